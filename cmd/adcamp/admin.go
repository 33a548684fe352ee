package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// admin runs one administrative command ("keys create", ...).
func (c *cli) admin(ctx context.Context, cmd string, args []string) error {
	fs := c.newFlags(cmd)
	sf := c.storeFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON for scripts")
	var name, email, account, marketplace, envName string
	var grace time.Duration
	switch cmd {
	case "accounts create":
		fs.StringVar(&name, "name", "", "account holder's name (required)")
		fs.StringVar(&email, "email", "", "contact email")
	case "channel-accounts create":
		fs.StringVar(&account, "account", "", "account id (required)")
		fs.StringVar(&marketplace, "marketplace", "", "marketplace site code, e.g. US (required)")
		fs.StringVar(&name, "name", "", "seller account name (required)")
	case "keys create":
		fs.StringVar(&account, "account", "", "account id (required)")
		fs.StringVar(&envName, "env", "", "sandbox or production (required)")
	case "keys list", "channel-accounts list":
		fs.StringVar(&account, "account", "", "account id (required)")
	case "keys roll":
		fs.DurationVar(&grace, "grace", 24*time.Hour, "how long the old secret keeps verifying")
	case "keys disable", "keys enable", "keys delete":
	default:
		return usageError("unknown command %q; see adcamp help", cmd)
	}
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	want := 0
	switch cmd {
	case "keys roll", "keys disable", "keys enable", "keys delete":
		want = 1
	}
	if len(pos) != want {
		return usageError("%s takes %d argument(s), got %d", cmd, want, len(pos))
	}
	for flagName, v := range map[string]string{"name": name, "account": account, "marketplace": marketplace, "env": envName} {
		if fs.Lookup(flagName) != nil && v == "" {
			return usageError("%s needs --%s", cmd, flagName)
		}
	}

	db, box, err := c.open(ctx, sf)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := newService(db, box, nil, service.Config{})
	out := &printer{c: c, json: *asJSON}

	switch cmd {
	case "accounts create":
		a, err := svc.CreateAccount(ctx, name, email)
		if err != nil {
			return explain(err)
		}
		return out.object(a, "Account %s created (%s).\n", a.ID, a.Name)
	case "channel-accounts create":
		ca, err := svc.CreateChannelAccount(ctx, account, marketplace, name)
		if err != nil {
			return explain(err)
		}
		return out.object(ca, "Channel account %d created (%s on %s) for %s.\n", ca.ID, ca.Name, ca.Marketplace, ca.AccountID)
	case "keys create":
		env, ok := adcamp.ParseEnvironment(envName)
		if !ok {
			return usageError("--env must be sandbox or production, got %q", envName)
		}
		k, err := svc.CreateKey(ctx, account, env)
		if err != nil {
			return explain(err)
		}
		return out.credential(k)
	case "keys roll":
		k, err := svc.RollKey(ctx, pos[0], grace)
		if err != nil {
			return explain(err)
		}
		return out.credential(k)
	case "channel-accounts list":
		return out.channelAccounts(ctx, svc, account)
	case "keys list":
		keys, err := svc.ListKeys(ctx, account)
		if err != nil {
			return explain(err)
		}
		return out.keys(keys)
	case "keys disable", "keys enable":
		k, err := svc.SetKeyDisabled(ctx, pos[0], cmd == "keys disable")
		if err != nil {
			return explain(err)
		}
		return out.object(k, "API key %s is now %s.\n", k.ID, map[bool]string{true: "disabled", false: "enabled"}[k.Disabled])
	case "keys delete":
		if err := svc.DeleteKey(ctx, pos[0]); err != nil {
			return explain(err)
		}
		return out.object(map[string]any{"api_key": pos[0], "deleted": true}, "API key %s deleted.\n", pos[0])
	}
	return nil
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

func (p *printer) credential(k *service.NewCredential) error {
	if p.json {
		v := map[string]any{"api_key": k.ID, "api_secret": k.Secret, "environment": k.Environment, "account_id": k.AccountID}
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
	if k.PreviousExpiresAt != nil {
		fmt.Fprintf(w, "Old secret valid until:\t%s\n", k.PreviousExpiresAt.Format(time.RFC3339))
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
	fmt.Fprintln(w, "API KEY\tENVIRONMENT\tSTATE\tCREATED\tLAST USED")
	for _, k := range keys {
		state, last := "enabled", "never"
		if k.Disabled {
			state = "disabled"
		}
		if k.LastUsedAt != nil {
			last = k.LastUsedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", k.ID, k.Environment, state, k.CreatedAt.Format(time.RFC3339), last)
	}
	return w.Flush()
}
