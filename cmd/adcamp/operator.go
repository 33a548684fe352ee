package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"text/tabwriter"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/operatorapi"
	"github.com/adcamp/adcamp/internal/service"
)

// The marketplace's side: the operator listener in serve, the admin
// commands for operator keys, and accounts update --time-zone.

func init() {
	adminCommands["operator-keys create"] = adminCommand{flags: operatorKeysCreate}
	adminCommands["operator-keys list"] = adminCommand{flags: operatorKeysList}
	adminCommands["operator-keys disable"] = adminCommand{flags: operatorKeysSetDisabled(true), args: 1}
	adminCommands["operator-keys enable"] = adminCommand{flags: operatorKeysSetDisabled(false), args: 1}
	adminCommands["operator-keys delete"] = adminCommand{flags: operatorKeysDelete, args: 1}
	adminCommands["accounts update"] = adminCommand{flags: accountsUpdate, args: 1}
}

// listenOperator binds the operator listener (over TLS when configured).
func (a *app) listenOperator(cfg *serveConfig, tlsConfig *tls.Config) (listener, error) {
	h, err := operatorapi.New(operatorapi.Config{Operator: a.svc.Operator, Logger: a.log.With("listener", "operator")})
	if err != nil {
		return listener{}, err
	}
	l, err := net.Listen("tcp", cfg.operatorAddr)
	if err != nil {
		return listener{}, fmt.Errorf("operator listener (--operator-addr, empty turns it off): %w", err)
	}
	scheme := "http"
	if tlsConfig != nil {
		l = tls.NewListener(l, tlsConfig)
		scheme = "https"
	}
	a.log.Info("operator listening", "url", scheme+"://"+l.Addr().String()+operatorapi.Prefix)
	// The changes route long-polls: its writes may wait up to its wait
	// parameter, and a snapshot streams for as long as it takes.
	t := serverTimeouts
	t.write = 0
	return listener{"operator", newHTTPServer(a.foreground.Wrap(h), a.log, t), l}, nil
}

func operatorKeysCreate(fs *flag.FlagSet) func(context.Context, *adminRun) error {
	name := fs.String("name", "", "a name for the key, such as the ad server it is for (required)")
	return func(ctx context.Context, a *adminRun) error {
		k, err := a.svc.CreateOperatorKey(ctx, *name)
		if err != nil {
			return explain(err)
		}
		if a.out.json {
			return a.out.object(map[string]any{"api_key": k.ID, "api_secret": k.Secret, "name": k.Name,
				"created_at": k.CreatedAt.Format(time.RFC3339)}, "")
		}
		w := tabwriter.NewWriter(a.out.c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintf(w, "Operator key:\t%s\n", k.ID)
		fmt.Fprintf(w, "Operator secret:\t%s\n", k.Secret)
		fmt.Fprintf(w, "Name:\t%s\n", k.Name)
		fmt.Fprintln(w, "\nThe secret is shown only this once: store it now. It signs requests to the operator listener (--operator-addr).")
		return w.Flush()
	}
}

func operatorKeysList(*flag.FlagSet) func(context.Context, *adminRun) error {
	return func(ctx context.Context, a *adminRun) error {
		keys, err := a.svc.ListOperatorKeys(ctx)
		if err != nil {
			return explain(err)
		}
		if a.out.json {
			out := make([]map[string]any, 0, len(keys))
			for _, k := range keys {
				v := map[string]any{"id": k.ID, "name": k.Name, "disabled": k.Disabled, "created_at": k.CreatedAt.Format(time.RFC3339)}
				if k.LastUsedAt != nil {
					v["last_used_at"] = k.LastUsedAt.Format(time.RFC3339)
				}
				out = append(out, v)
			}
			return a.out.object(out, "")
		}
		w := tabwriter.NewWriter(a.out.c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "OPERATOR KEY\tNAME\tSTATE\tCREATED")
		for _, k := range keys {
			state := "enabled"
			if k.Disabled {
				state = "disabled"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", k.ID, k.Name, state, k.CreatedAt.Format(time.RFC3339))
		}
		return w.Flush()
	}
}

func operatorKeysSetDisabled(disabled bool) func(*flag.FlagSet) func(context.Context, *adminRun) error {
	return func(*flag.FlagSet) func(context.Context, *adminRun) error {
		return func(ctx context.Context, a *adminRun) error {
			k, err := a.svc.SetOperatorKeyDisabled(ctx, a.args[0], disabled)
			if err != nil {
				return explain(err)
			}
			state := "enabled"
			if k.Disabled {
				state = "disabled"
			}
			return a.out.object(map[string]any{"id": k.ID, "name": k.Name, "disabled": k.Disabled},
				"Operator key %s is now %s.\n", k.ID, state)
		}
	}
}

func operatorKeysDelete(*flag.FlagSet) func(context.Context, *adminRun) error {
	return func(ctx context.Context, a *adminRun) error {
		if err := a.svc.DeleteOperatorKey(ctx, a.args[0]); err != nil {
			return explain(err)
		}
		return a.out.object(map[string]any{"id": a.args[0], "deleted": true}, "Operator key %s deleted.\n", a.args[0])
	}
}

func accountsUpdate(fs *flag.FlagSet) func(context.Context, *adminRun) error {
	zone := fs.String("time-zone", "", "IANA time zone the account's days are counted in, such as Asia/Seoul (required)")
	return func(ctx context.Context, a *adminRun) error {
		acc, err := a.svc.SetAccountTimeZone(ctx, a.args[0], *zone)
		if adcamp.ErrorCode(err) == adcamp.CodeValidation {
			return fmt.Errorf("invalid input:\n  --time-zone %q is not an IANA time zone name (such as UTC, Europe/Paris or Asia/Seoul)", *zone)
		}
		if err != nil {
			return explain(err)
		}
		return a.out.object(acc, "Account %s now counts its days in %s.\n", acc.ID, acc.TimeZone)
	}
}

// feedTick is how often serve appends to the serving feed the accounts
// whose day turned (midnight in their time zone) and purges the feed.
const feedTick = 5 * time.Second

// feedFlags declares serve's flags of the serving feed.
func (c *cli) feedFlags(fs *flag.FlagSet, cfg *serveConfig) {
	cfg.feedRetention = service.DefaultFeedRetention
	if v, ok := c.lookup("ADCAMP_FEED_RETENTION"); ok {
		if d, err := time.ParseDuration(v); err == nil {
			cfg.feedRetention = d
		}
	}
	fs.Func("feed-retention", "how long the serving feed keeps its changes; an older position answers 410 (default 168h)", func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Hour {
			return fmt.Errorf("must be a duration of at least 1h, such as 168h")
		}
		cfg.feedRetention = d
		return nil
	})
}
