package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os/user"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// adminCommand is one administrative command ("keys create", ...): its
// own flags, and what it does with the service once they are parsed. It
// works on the database directly (--data-dir, --database-url), also while
// serve runs.
type adminCommand struct {
	// flags declares the command's own flags on fs; the returned function
	// runs it with its positional arguments.
	flags func(fs *flag.FlagSet) func(ctx context.Context, a *adminRun) error
	args  int // positional arguments it takes
}

// adminRun is what an administrative command runs with.
type adminRun struct {
	svc  *service.Service
	out  *printer
	args []string
}

// adminCommands are the administrative commands by name.
var adminCommands = map[string]adminCommand{
	"accounts create":         {flags: accountsCreate},
	"channel-accounts create": {flags: channelAccountsCreate},
	"channel-accounts list":   {flags: channelAccountsList},
	"keys create":             {flags: keysCreateLimited},
	"keys update":             {flags: keysUpdate, args: 1},
	"keys list":               {flags: keysList},
	"keys roll":               {flags: keysRoll, args: 1},
	"keys disable":            {flags: keysSetDisabled(true), args: 1},
	"keys enable":             {flags: keysSetDisabled(false), args: 1},
	"keys delete":             {flags: keysDelete, args: 1},
	"users create":            {flags: usersCreate},
	"users reset-password":    {flags: usersResetPassword},
	"users reset-two-step":    {flags: usersResetTwoStep},
}

// admin runs one administrative command ("keys create", ...).
func (c *cli) admin(ctx context.Context, name string, args []string) error {
	cmd, ok := adminCommands[name]
	if !ok {
		return usageError("unknown command %q; see adcamp help", name)
	}
	fs := c.newFlags(name)
	sf := c.storeFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON for scripts")
	run := cmd.flags(fs)
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != cmd.args {
		return usageError("%s takes %d argument(s), got %d", name, cmd.args, len(pos))
	}
	var missing error
	fs.VisitAll(func(f *flag.Flag) {
		if missing == nil && strings.HasSuffix(f.Usage, "(required)") && f.Value.String() == "" {
			missing = usageError("%s needs --%s", name, f.Name)
		}
	})
	if missing != nil {
		return missing
	}
	db, box, err := c.open(ctx, sf)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := newService(db, box, nil, service.Config{})
	ctx = service.WithOrigin(ctx, service.Origin{Actor: adcamp.Actor{Type: adcamp.ActorAdmin, ID: operator()}})
	return run(ctx, &adminRun{svc: svc, out: &printer{c: c, json: *asJSON}, args: pos})
}

// operator names who runs the command line, for the change history: the
// operating system's user name, or "admin" if it cannot be found.
func operator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "admin"
}

func accountsCreate(fs *flag.FlagSet) func(context.Context, *adminRun) error {
	name := fs.String("name", "", "account holder's name (required)")
	email := fs.String("email", "", "contact email")
	return func(ctx context.Context, a *adminRun) error {
		acc, err := a.svc.CreateAccount(ctx, *name, *email)
		if err != nil {
			return explain(err)
		}
		return a.out.object(acc, "Account %s created (%s).\n", acc.ID, acc.Name)
	}
}

func channelAccountsCreate(fs *flag.FlagSet) func(context.Context, *adminRun) error {
	account := fs.String("account", "", "account id (required)")
	marketplace := fs.String("marketplace", "", "marketplace site code, e.g. US (required)")
	name := fs.String("name", "", "seller account name (required)")
	return func(ctx context.Context, a *adminRun) error {
		ca, err := a.svc.CreateChannelAccount(ctx, *account, *marketplace, *name)
		if err != nil {
			return explain(err)
		}
		return a.out.object(ca, "Channel account %d created (%s on %s) for %s.\n", ca.ID, ca.Name, ca.Marketplace, ca.AccountID)
	}
}

func channelAccountsList(fs *flag.FlagSet) func(context.Context, *adminRun) error {
	account := fs.String("account", "", "account id (required)")
	return func(ctx context.Context, a *adminRun) error {
		return a.out.channelAccounts(ctx, a.svc, *account)
	}
}

func keysList(fs *flag.FlagSet) func(context.Context, *adminRun) error {
	account := fs.String("account", "", "account id (required)")
	return func(ctx context.Context, a *adminRun) error {
		keys, err := a.svc.ListKeys(ctx, *account)
		if err != nil {
			return explain(err)
		}
		return a.out.keys(keys)
	}
}

func keysRoll(fs *flag.FlagSet) func(context.Context, *adminRun) error {
	grace := fs.Duration("grace", service.DefaultRollGrace,
		"how long the old secret keeps verifying, up to 720h (30 days); 0 revokes it at once")
	return func(ctx context.Context, a *adminRun) error {
		if *grace < 0 || *grace > service.MaxRollGrace {
			return usageError("--grace must be from 0 (revoke the old secret at once) to 720h (30 days), got %s", *grace)
		}
		k, err := a.svc.RollKey(ctx, a.args[0], *grace)
		if err != nil {
			return explain(err)
		}
		return a.out.credential(k, true)
	}
}

func keysSetDisabled(disabled bool) func(*flag.FlagSet) func(context.Context, *adminRun) error {
	return func(*flag.FlagSet) func(context.Context, *adminRun) error {
		return func(ctx context.Context, a *adminRun) error {
			k, err := a.svc.SetKeyDisabled(ctx, a.args[0], disabled)
			if err != nil {
				return explain(err)
			}
			state := "enabled"
			if k.Disabled {
				state = "disabled"
			}
			return a.out.object(k, "API key %s is now %s.\n", k.ID, state)
		}
	}
}

func keysDelete(*flag.FlagSet) func(context.Context, *adminRun) error {
	return func(ctx context.Context, a *adminRun) error {
		if err := a.svc.DeleteKey(ctx, a.args[0]); err != nil {
			return explain(err)
		}
		return a.out.object(map[string]any{"api_key": a.args[0], "deleted": true}, "API key %s deleted.\n", a.args[0])
	}
}

// explain turns a validation error into one readable line per field.
func explain(err error) error {
	var e *adcamp.Error
	if ae, ok := err.(*adcamp.Error); ok {
		e = ae
	}
	if e == nil {
		return err
	}
	if issues, ok := e.Details.([]adcamp.FieldIssue); ok {
		msg := "invalid input:"
		for _, is := range issues {
			msg += fmt.Sprintf("\n  --%s %s", is.Field, is.Issue)
		}
		return fmt.Errorf("%s", msg)
	}
	return fmt.Errorf("%s", e.Message)
}

// printer writes command results as text or JSON.
type printer struct {
	c    *cli
	json bool
}

func (p *printer) object(v any, format string, args ...any) error {
	if p.json {
		enc := json.NewEncoder(p.c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprintf(p.c.stdout, format, args...)
	return err
}

// credential prints a created or (rolled) rolled credential with its secret.
func (p *printer) credential(k *service.NewCredential, rolled bool) error {
	if p.json {
		v := map[string]any{"api_key": k.ID, "api_secret": k.Secret, "environment": k.Environment, "account_id": k.AccountID,
			"scopes": k.Scopes, "expires_at": k.ExpiresAt, "allowed_ips": k.AllowedIPs, "rate_limit": k.RateLimit}
		if k.PreviousExpiresAt != nil {
			v["previous_secret_expires_at"] = k.PreviousExpiresAt.Format(time.RFC3339)
		}
		return p.object(v, "")
	}
	w := tabwriter.NewWriter(p.c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "API key:\t%s\n", k.ID)
	fmt.Fprintf(w, "API secret:\t%s\n", k.Secret)
	fmt.Fprintf(w, "Environment:\t%s\n", k.Environment)
	fmt.Fprintf(w, "Account:\t%s\n", k.AccountID)
	fmt.Fprintf(w, "Scopes and limits:\t%s\n", describeLimits(&k.APIKey, time.Now()))
	if k.PreviousExpiresAt != nil {
		fmt.Fprintf(w, "Old secret valid until:\t%s\n", k.PreviousExpiresAt.Format(time.RFC3339))
	} else if rolled {
		fmt.Fprintf(w, "Old secret:\trevoked now\n")
	}
	fmt.Fprintln(w, "\nThe secret is shown only this once: store it now.")
	return w.Flush()
}

// channelAccounts prints every channel account of an account, walking
// the pages.
func (p *printer) channelAccounts(ctx context.Context, svc *service.Service, accountID string) error {
	all := []*adcamp.ChannelAccount{}
	for page := 1; ; page++ {
		pg, err := svc.ListChannelAccounts(ctx, accountID, page, service.MaxPageSize)
		if err != nil {
			return explain(err)
		}
		all = append(all, pg.Items...)
		if int64(page) >= pg.TotalPages() {
			break
		}
	}
	if p.json {
		return p.object(all, "")
	}
	w := tabwriter.NewWriter(p.c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tMARKETPLACE\tNAME\tCREATED")
	for _, ca := range all {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", ca.ID, ca.Marketplace, ca.Name, ca.CreatedAt.Format(time.RFC3339))
	}
	return w.Flush()
}

func (p *printer) keys(keys []adcamp.APIKey) error {
	if p.json {
		if keys == nil {
			keys = []adcamp.APIKey{}
		}
		return p.object(keys, "")
	}
	w := tabwriter.NewWriter(p.c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "API KEY\tENVIRONMENT\tSTATE\tCREATED\tLAST USED\tSCOPES AND LIMITS")
	now := time.Now()
	for _, k := range keys {
		state, last := "enabled", "never"
		if k.Disabled {
			state = "disabled"
		} else if k.Expired(now) {
			state = "expired"
		}
		if k.LastUsedAt != nil {
			last = k.LastUsedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Environment, state, k.CreatedAt.Format(time.RFC3339), last,
			describeLimits(&k, now))
	}
	return w.Flush()
}
