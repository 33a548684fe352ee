package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/adcamp/adcamp/cmd/adcamp/internal/apicmd"
	"github.com/adcamp/adcamp/cmd/adcamp/internal/cmdline"
)

const usage = `adcamp runs and administers the Campaign Advertising Open API, and calls it.

Usage:
  adcamp serve [flags]                       run the API (production :8080, sandbox :8081), the console (:8082), the operator listener (:8083)
  adcamp accounts create --name NAME [--email EMAIL] [--json]
  adcamp accounts update ID --time-zone ZONE [--json]   (IANA name: the account's days, for budgets)
  adcamp channel-accounts create --account ID --marketplace CODE --name NAME [--json]
  adcamp channel-accounts list --account ID [--json]
  adcamp keys create --account ID --env sandbox|production [--name NAME] [--json]
      [--scope campaigns=read,reports=read] [--expires-in 90d | --expires-at TIME] [--allow-ip CIDR]... [--rate-limit N]
  adcamp keys update KEY [--scope ...] [--expires-in 30d | --expires-at TIME | --no-expiry]
      [--allow-ip CIDR... | --allow-any-ip] [--rate-limit N] [--json]
  adcamp keys list --account ID [--json]
  adcamp keys disable|enable|delete KEY
  adcamp keys roll KEY [--grace 24h] [--json]   (--grace 0: the old secret stops at once)
  adcamp operator-keys create --name NAME [--json]   (the marketplace's ad server, --operator-addr)
  adcamp operator-keys list [--json]
  adcamp operator-keys disable|enable|delete KEY
  adcamp users create --account ID --email EMAIL --role owner|developer|viewer [--console-url URL] [--json]
  adcamp users reset-password --email EMAIL [--console-url URL] [--json]
  adcamp users reset-two-step --email EMAIL [--json]   (for a user who lost their authenticator)
  adcamp backup --to FILE [--json]           online backup of the SQLite database, while serve runs
  adcamp restore --from FILE [--json]        restore a backup into --data-dir (no process may use it)
  adcamp migrate [--dry-run] [--json]        apply the pending migrations, or list them and what each locks
  adcamp version [--json]

Every command above but version takes --data-dir, --database-url and
--master-key-file (or ADCAMP_DATA_DIR, ADCAMP_DATABASE_URL, ADCAMP_MASTER_KEY_FILE).

API commands (signed requests to a running server):
  adcamp campaigns list [--status S] [--page N] [--page-size N | --all]
  adcamp campaigns get|pause|resume|end ID
  adcamp campaigns create --name NAME --budget 12.50 (--marketplace US | --channel-account ID)
                          [--start-date YYYY-MM-DD] [--end-date YYYY-MM-DD]
  adcamp campaigns update ID [--name NAME] [--budget 12.50] [--status S]
                          [--start-date D | --clear-start-date] [--end-date D | --clear-end-date]
  adcamp campaigns delete ID
  adcamp ad-groups list --campaign ID [--status S] [--page N] [--page-size N | --all]
  adcamp ad-groups get ID | delete ID
  adcamp ad-groups create --campaign ID --name NAME --default-bid 0.75 [--status S]
  adcamp ad-groups update ID [--name NAME] [--default-bid 0.75] [--status S]
  adcamp keywords list --ad-group ID [--status S] [--match-type T] [--page N] [--page-size N | --all]
  adcamp keywords get ID | delete ID
  adcamp keywords create --ad-group ID --text TEXT --match-type exact|phrase|broad [--bid 1.10] [--status S]
  adcamp keywords create --ad-group ID --file PATH|- [--partial]   CSV (text,match_type,bid,status) or JSON
  adcamp keywords update ID [--text T] [--match-type T] [--bid 1.10 | --clear-bid] [--status S]
  adcamp negatives list (--ad-group ID | --campaign ID | --list ID) [--status S] [--match-type T] [--all]
  adcamp negatives create (--ad-group ID | --campaign ID | --list ID) --match-type exact|phrase
                          (--text TEXT | --file PATH|-) [--status S] [--partial]   one text a line
  adcamp negatives get ID | delete ID | update ID --status S
  adcamp negatives lists list | get ID | create --name N | rename ID --name N | delete ID
  adcamp negatives lists attach|detach --campaign ID --list ID | attached --campaign ID
  adcamp negatives lists remove --list ID ENTRY_ID[,ENTRY_ID...]
  adcamp channel-accounts list --api [--page N] [--page-size N | --all]
  adcamp changes list [--campaign ID | --ad-group ID | --keyword ID] [--entity-type T] [--entity-id ID]
                      [--actor-type T] [--actor-id ID] [--since TIME] [--until TIME]
                      [--limit N] [--cursor C | --all]
  adcamp reports performance [--level campaign|ad_group|keyword] [--granularity summary|day|hour]
                      [--from DAY] [--to DAY] [--campaign ID] [--ad-group ID] [--status S]
                      [--sort [-]METRIC] [--format table|csv]
  adcamp reports job create [the filters of reports performance] [--format csv.gz|jsonl.gz]
                      [--out FILE] [--force] [--wait=false]   a file of any size: waits, then writes it
  adcamp reports job get ID | download ID [--out FILE] [--force]
  adcamp reports jobs           the environment's report jobs, newest first
  adcamp sandbox reset          delete the account's sandbox campaigns, ad groups and keywords (sandbox only)
  adcamp sandbox sample-data    fill the sandbox with sample campaigns, ad groups and keywords (sandbox only)
  adcamp sandbox simulate [--days 30]  backfill the sandbox's last days with simulated delivery (sandbox only)
  adcamp webhooks create --url URL [--description D] [--event-types T,T] [--disabled]
  adcamp webhooks list | get ID | delete ID | test ID | deliveries ID [--limit N] [--cursor C]
  adcamp webhooks update ID [--url URL] [--description D] [--event-types T,T|all] [--enable | --disable]
  adcamp webhooks rotate-secret ID [--grace 24h]
  adcamp webhooks redeliver ID (--event ID | --since TIME [--until TIME])
  adcamp events list [--type T,T] [--since TIME] [--until TIME] [--limit N] [--cursor C | --all]

Every API command takes --json (print the API's data) and --config PATH; create
and update take --validate-only; update, delete, pause, resume and end take
--if-match VERSION. Credentials come from ADCAMP_API_KEY and ADCAMP_API_SECRET,
the server from ADCAMP_BASE_URL (default http://127.0.0.1:8080), or for what the
environment leaves unset from the config file (default
$XDG_CONFIG_HOME/adcamp/config.json or ~/.config/adcamp/config.json, mode 0600):
{"api_key": "...", "api_secret": "...", "base_url": "..."}.

Run "adcamp COMMAND [SUBCOMMAND] -h" for the flags of one command.
`

// env gives the program its environment variables; a variable that is set
// but empty is different from one that is not set.
type env func(string) (string, bool)

// run is the whole program; main only wires it to the process.
func run(ctx context.Context, args []string, lookup env, stdin io.Reader, stdout, stderr io.Writer) error {
	return (&cli{lookup: lookup, stdin: stdin, stdout: stdout, stderr: stderr}).run(ctx, args)
}

func (c *cli) run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(c.stderr, usage)
		return usageError("no command given")
	}
	err := c.dispatch(ctx, args[0], args[1:])
	if errors.Is(err, flag.ErrHelp) { // asked for, and printed
		return nil
	}
	return err
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// groupHelp prints the lines of usage of the commands of group
// ("keys"), for "adcamp keys -h".
func (c *cli) groupHelp(group string) error {
	fmt.Fprintf(c.stdout, "Usage of adcamp %s:\n", group)
	in := false // in the group's lines, which may continue on lines indented deeper
	for _, line := range strings.Split(usage, "\n") {
		switch trimmed := strings.TrimSpace(line); {
		case strings.HasPrefix(trimmed, "adcamp "):
			in = strings.HasPrefix(trimmed, "adcamp "+group+" ")
		case !strings.HasPrefix(line, "    ") || trimmed == "":
			in = false
		}
		if in {
			fmt.Fprintln(c.stdout, line)
		}
	}
	fmt.Fprintf(c.stdout, "\nRun \"adcamp %s SUBCOMMAND -h\" for the flags of one; \"adcamp help\" for every command.\n", group)
	return flag.ErrHelp
}

// dispatch runs command cmd with its arguments.
func (c *cli) dispatch(ctx context.Context, cmd string, rest []string) error {
	switch cmd {
	case "serve":
		return c.serve(ctx, rest)
	case "accounts", "channel-accounts", "keys", "users", "operator-keys":
		if len(rest) == 0 {
			return usageError("%s needs a subcommand; see adcamp %s -h", cmd, cmd)
		}
		if isHelp(rest[0]) {
			return c.groupHelp(cmd)
		}
		if cmd == "channel-accounts" && rest[0] == "list" && apicmd.WantsAPI(rest[1:]) {
			return c.api(ctx, cmd+" "+rest[0], rest[1:])
		}
		return c.admin(ctx, cmd+" "+rest[0], rest[1:])
	case "campaigns", "ad-groups", "keywords", "changes", "reports", "sandbox", "negatives", "webhooks", "events":
		if len(rest) == 0 {
			return usageError("%s needs a subcommand; see adcamp %s -h", cmd, cmd)
		}
		if isHelp(rest[0]) {
			return c.groupHelp(cmd)
		}
		return c.api(ctx, cmd+" "+rest[0], rest[1:])
	case "backup":
		return c.backupCmd(ctx, rest)
	case "restore":
		return c.restoreCmd(ctx, rest)
	case "migrate":
		return c.migrateCmd(ctx, rest)
	case "version", "--version":
		return c.versionCmd(rest)
	case "help", "-h", "--help":
		fmt.Fprint(c.stdout, usage)
		return nil
	}
	fmt.Fprint(c.stderr, usage)
	return usageError("unknown command %q", cmd)
}

// cli carries the program's standard streams and environment.
type cli struct {
	lookup         env
	stdin          io.Reader
	stdout, stderr io.Writer
	// ready, if set, receives serve's bound addresses once it listens,
	// by listener: "production", "sandbox", "debug"...
	ready func(map[string]string)
}

// errUsage marks mistakes on the command line (exit status 2).
var errUsage = cmdline.ErrUsage

func usageError(format string, args ...any) error {
	return cmdline.Usagef(format, args...)
}

func exitCode(err error) int { return cmdline.ExitCode(err) }

// newFlags returns a flag set that does not exit and prints nothing of
// its own: parse reports mistakes, and prints the help asked for.
func (c *cli) newFlags(name string) *flag.FlagSet { return cmdline.NewFlags(name) }

// parse parses args, allowing flags after positional arguments
// ("keys disable KEY --json"), and returns the positional ones; on -h it
// prints the command's flags (cmdline.Parse).
func (c *cli) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	return cmdline.Parse(fs, args, c.stdout)
}

// envDefault returns the value of an environment variable, or def.
func (c *cli) envDefault(name, def string) string {
	if v, ok := c.lookup(name); ok {
		return v
	}
	return def
}

// envName is the variable that mirrors a flag: --data-dir ↔ ADCAMP_DATA_DIR.
func envName(flagName string) string {
	return "ADCAMP_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}
