// Package apicmd holds adcamp's API commands ("campaigns list",
// "keywords create", "changes list"...). They call a running server
// through the Go SDK, which signs every request: a user never signs by
// hand. This file holds what they share (credentials, flags, errors),
// output.go how they print, and campaigns.go, children.go, keywords.go
// and changes.go the commands themselves.
package apicmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/cmd/adcamp/internal/cmdline"
)

// Env is what a command sees of its process: its environment variables
// (Lookup tells a variable set but empty from one not set), its input
// (a batch file may be read from it), its output, and its error stream,
// where a long command shows its progress (nil: none). A command prints
// no error: it returns it, for main to print.
type Env struct {
	Lookup func(string) (string, bool)
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Clock is the commands' time (the system's if nil): requests are
	// signed at its Now, and a change waits on it for the next second
	// (settle). Tests give one whose Sleep moves it at once.
	Clock Clock
}

// Clock is a source of time that can be waited on.
type Clock interface {
	Now() time.Time
	// Sleep returns once d has passed on the clock, or ctx is done.
	Sleep(ctx context.Context, d time.Duration)
}

// systemClock is the system's time.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// cli carries the program's environment and standard streams.
type cli struct {
	lookup func(string) (string, bool)
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	clock  Clock
}

func usageError(format string, args ...any) error { return cmdline.Usagef(format, args...) }

func (c *cli) newFlags(name string) *flag.FlagSet { return cmdline.NewFlags(name) }

func (c *cli) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	return cmdline.Parse(fs, args, c.stdout)
}

// Run runs one API command: cmd is "campaigns list", "keywords create"...
// A mistake on the command line is a cmdline usage error; -h prints the
// command's flags and returns flag.ErrHelp.
func Run(ctx context.Context, env Env, cmd string, args []string) error {
	c := &cli{lookup: env.Lookup, stdin: env.Stdin, stdout: env.Stdout, stderr: env.Stderr, clock: env.Clock}
	if c.stderr == nil {
		c.stderr = io.Discard
	}
	if c.clock == nil {
		c.clock = systemClock{}
	}
	return c.api(ctx, cmd, args)
}

// api runs the API command cmd.
func (c *cli) api(ctx context.Context, cmd string, args []string) error {
	switch cmd {
	case "campaigns list":
		return c.campaignsList(ctx, args)
	case "campaigns get":
		return c.campaignsGet(ctx, args)
	case "campaigns create":
		return c.campaignsCreate(ctx, args)
	case "campaigns update":
		return c.campaignsUpdate(ctx, args)
	case "campaigns delete":
		return c.campaignsDelete(ctx, args)
	case "campaigns pause":
		return c.campaignsSetStatus(ctx, cmd, args, client.CampaignPaused)
	case "campaigns resume":
		return c.campaignsSetStatus(ctx, cmd, args, client.CampaignActive)
	case "campaigns end":
		return c.campaignsSetStatus(ctx, cmd, args, client.CampaignEnded)
	case "ad-groups list":
		return c.adGroupsList(ctx, args)
	case "ad-groups get":
		return c.adGroupsGet(ctx, args)
	case "ad-groups create":
		return c.adGroupsCreate(ctx, args)
	case "ad-groups update":
		return c.adGroupsUpdate(ctx, args)
	case "ad-groups delete":
		return c.adGroupsDelete(ctx, args)
	case "keywords list":
		return c.keywordsList(ctx, args)
	case "keywords get":
		return c.keywordsGet(ctx, args)
	case "keywords create":
		return c.keywordsCreate(ctx, args)
	case "keywords update":
		return c.keywordsUpdate(ctx, args)
	case "keywords delete":
		return c.keywordsDelete(ctx, args)
	case "channel-accounts list":
		return c.channelAccountsListAPI(ctx, args)
	case "changes list":
		return c.changesList(ctx, args)
	case "reports performance":
		return c.reportsPerformance(ctx, args)
	case "reports job":
		return c.reportsJob(ctx, args)
	case "reports jobs":
		return c.reportsJobs(ctx, args)
	case "sandbox reset":
		return c.sandboxAction(ctx, cmd, args, (*client.Client).ResetSandbox, "deleted")
	case "sandbox sample-data":
		return c.sandboxAction(ctx, cmd, args, (*client.Client).CreateSampleData, "created")
	case "sandbox simulate":
		return c.sandboxSimulate(ctx, args)
	}
	if ok, err := c.negatives(ctx, cmd, args); ok {
		return err
	}
	if strings.HasPrefix(cmd, "webhooks ") || strings.HasPrefix(cmd, "events ") {
		return c.webhooks(ctx, cmd, args)
	}
	return usageError("unknown command %q; see adcamp help", cmd)
}

// WantsAPI reports whether "channel-accounts list" args ask for the API
// listing (--api) rather than the administrative one over the database.
func WantsAPI(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "api" {
			return true
		}
	}
	return false
}

// apiCommand is one API command line: its flags, the ones every API
// command takes, and after parse its positional arguments.
type apiCommand struct {
	c      *cli
	name   string // "campaigns create"
	fs     *flag.FlagSet
	config string
	json   bool
	args   []string        // positional arguments
	given  map[string]bool // flags set on the command line
}

func (c *cli) apiCommand(name string) *apiCommand {
	a := &apiCommand{c: c, name: name, fs: c.newFlags(name)}
	a.fs.StringVar(&a.config, "config", "",
		"`PATH` of a JSON file holding api_key, api_secret and base_url, mode 0600\n(default $XDG_CONFIG_HOME/adcamp/config.json or ~/.config/adcamp/config.json)")
	a.fs.BoolVar(&a.json, "json", false, "print the API's JSON data, for scripts")
	return a
}

// parse parses args; the command takes one positional argument per
// name in want ("ID").
func (a *apiCommand) parse(args []string, want ...string) error {
	pos, err := a.c.parse(a.fs, args)
	if err != nil {
		return err
	}
	if len(pos) != len(want) {
		if len(want) == 0 {
			return usageError("%s takes no arguments (got %d)", a.name, len(pos))
		}
		return usageError("%s takes %s", a.name, strings.Join(want, " "))
	}
	for i, p := range pos {
		if p == "" {
			return usageError("%s: %s must not be empty", a.name, want[i])
		}
	}
	a.args = pos
	a.given = map[string]bool{}
	a.fs.Visit(func(f *flag.Flag) { a.given[f.Name] = true })
	return nil
}

// require says which of the named flags are missing or empty (as an
// unset shell variable would make them).
func (a *apiCommand) require(names ...string) error {
	var missing []string
	for _, n := range names {
		if !a.given[n] || a.fs.Lookup(n).Value.String() == "" {
			missing = append(missing, "--"+n)
		}
	}
	if len(missing) > 0 {
		return usageError("%s needs %s (not empty)", a.name, strings.Join(missing, " and "))
	}
	return nil
}

// anyGiven reports whether any of the named flags was given.
func (a *apiCommand) anyGiven(names ...string) bool {
	for _, n := range names {
		if a.given[n] {
			return true
		}
	}
	return false
}

// ifMatch defines --if-match.
func (a *apiCommand) ifMatch() *int64 {
	return a.fs.Int64("if-match", 0, "act only if the version is still `VERSION` (412 otherwise)")
}

// checkIfMatch refuses a version below 1 given on the command line.
func (a *apiCommand) checkIfMatch(v int64) error {
	if a.given["if-match"] && v < 1 {
		return usageError("--if-match must be a version, 1 or more; got %d", v)
	}
	return nil
}

// settle waits until the clock has passed into the next second, after a
// change was sent. The server takes a change signed exactly like one it
// has answered for a replay, and answers it with the first answer; the
// signature covers the method, path, body and the timestamp in whole
// seconds, not the query (validate_only, partial_failure) nor If-Match.
// The SDK gives repeated changes of one client seconds of their own, but
// every adcamp command is a new client: without this wait, a script that
// runs "update --validate-only" and then the same "update", or retries an
// update after a 412, or pauses, resumes and pauses again, could be
// answered with an earlier answer (or refused with 409 CONFLICT when only
// the query or If-Match differ) within the same second.
func (c *cli) settle(ctx context.Context) {
	now := c.clock.Now()
	c.clock.Sleep(ctx, now.Truncate(time.Second).Add(time.Second).Sub(now))
}

// Credentials.

// apiConfig is the config file, and the settings it may hold.
type apiConfig struct {
	APIKey    string `json:"api_key"`
	APISecret string `json:"api_secret"`
	BaseURL   string `json:"base_url"`
}

// client returns an SDK client with the credentials of the environment
// (ADCAMP_API_KEY, ADCAMP_API_SECRET, ADCAMP_BASE_URL) or, for what they
// leave unset, of the config file. A secret is never taken from the
// command line, where other users could read it.
func (a *apiCommand) client() (*client.Client, error) {
	cfg, path, err := a.c.readAPIConfig(a.config)
	if err != nil {
		return nil, err
	}
	for name, dst := range map[string]*string{
		"ADCAMP_API_KEY": &cfg.APIKey, "ADCAMP_API_SECRET": &cfg.APISecret, "ADCAMP_BASE_URL": &cfg.BaseURL,
	} {
		if v, ok := a.c.lookup(name); ok && v != "" {
			*dst = v
		}
	}
	if cfg.APIKey == "" || cfg.APISecret == "" {
		where := "a config file (--config PATH)"
		if path != "" {
			where = path + " (or --config PATH)"
		}
		return nil, usageError("%s needs API credentials: set ADCAMP_API_KEY and ADCAMP_API_SECRET, "+
			`or put {"api_key": ..., "api_secret": ...} in %s, mode 0600`, a.name, where)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = client.ProductionURL
	}
	cl, err := client.New(cfg.APIKey, cfg.APISecret, client.WithBaseURL(cfg.BaseURL),
		client.WithUserAgent("adcamp-cli/"+client.Version), client.WithClock(a.c.clock.Now))
	if err != nil {
		return nil, usageError("%s (from ADCAMP_BASE_URL or base_url)", strings.TrimPrefix(err.Error(), "client: "))
	}
	return cl, nil
}

// defaultConfigPath is $XDG_CONFIG_HOME/adcamp/config.json, else
// ~/.config/adcamp/config.json, else "" when neither variable is set.
func (c *cli) defaultConfigPath() string {
	if dir, ok := c.lookup("XDG_CONFIG_HOME"); ok && filepath.IsAbs(dir) {
		return filepath.Join(dir, "adcamp", "config.json")
	}
	if home, ok := c.lookup("HOME"); ok && home != "" {
		return filepath.Join(home, ".config", "adcamp", "config.json")
	}
	return ""
}

// readAPIConfig reads the config file at path, or at the default path if
// path is empty; a missing default file is no error. It also returns the
// path it looked at. A file that others may read is refused: it holds the
// API secret.
func (c *cli) readAPIConfig(path string) (apiConfig, string, error) {
	var cfg apiConfig
	explicit := path != ""
	if !explicit {
		if path = c.defaultConfigPath(); path == "" {
			return cfg, "", nil
		}
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return cfg, path, nil
	}
	if err != nil {
		return cfg, path, fmt.Errorf("config file: %w", err)
	}
	defer f.Close()
	if err := checkConfigFile(f, path); err != nil {
		return cfg, path, err
	}
	dec := json.NewDecoder(io.LimitReader(f, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, path, usageError("config file %s: want a JSON object with api_key, api_secret and base_url: %v", path, err)
	}
	return cfg, path, nil
}

// checkConfigFile refuses a config file that is not a regular file or
// that its group or others may access.
func checkConfigFile(f *os.File, path string) error {
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	if !info.Mode().IsRegular() {
		return usageError("config file %s is not a regular file", path)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return usageError("config file %s has mode %04o: it holds the API secret, so only its owner may read it "+
			"(run: chmod 600 %s)", path, perm, path)
	}
	return nil
}

// Errors.

// apiError rewrites an error answer of the API as one line, "CODE:
// message (request ID)", followed by one indented line per bad field;
// main puts "adcamp: " in front. Other errors (the network) pass as they
// are. The exit status is 1.
func apiError(err error) error {
	var e *client.Error
	if !errors.As(err, &e) {
		return err
	}
	return errors.New(describe(e, "  "))
}

// oneLine keeps a server's message on one line.
var oneLine = strings.NewReplacer("\r", `\r`, "\n", `\n`)

// describe formats e as apiError does, indenting field lines with indent.
func describe(e *client.Error, indent string) string {
	var b strings.Builder
	if e.Code != "" {
		b.WriteString(e.Code)
	} else {
		fmt.Fprintf(&b, "HTTP %d", e.StatusCode)
	}
	if e.Message != "" {
		b.WriteString(": " + oneLine.Replace(e.Message))
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	for _, is := range e.Details {
		fmt.Fprintf(&b, "\n%s%s %s", indent, is.Field, oneLine.Replace(is.Issue))
	}
	return b.String()
}

// Flag values.

// moneyFlag is a flag holding an exact amount in USD ("12.50").
type moneyFlag struct{ v client.Money }

func (m *moneyFlag) String() string { return m.v.String() }

func (m *moneyFlag) Set(s string) error {
	v, err := client.ParseMoney(s)
	if err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return fmt.Errorf("want an amount in USD such as 12.50: %w", err)
	}
	m.v = v
	return nil
}

// dateFlag is a flag holding a date (YYYY-MM-DD).
type dateFlag struct{ v client.Date }

func (d *dateFlag) String() string { return d.v.String() }

func (d *dateFlag) Set(s string) error {
	v, err := client.ParseDate(s)
	if err != nil {
		return errors.New("want a date written YYYY-MM-DD")
	}
	d.v = v
	return nil
}
