package main

import (
	"cmp"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/console"
	"github.com/adcamp/adcamp/internal/service"
)

// The account console: its listener in serve, the setup link serve prints
// while the console has no user, and the admin commands for users.

// defaultConsoleURL is where the console listens by default, for the
// links the admin commands print.
const defaultConsoleURL = "http://127.0.0.1:8082"

// listenConsole binds the console's listener (over TLS when configured).
func (a *app) listenConsole(cfg *serveConfig, tlsConfig *tls.Config) (listener, error) {
	h, err := console.New(console.Config{
		Ads: a.svc.Ads, Access: a.svc.Access, Keys: a.svc.Keys, Logger: a.log.With("listener", "console"),
		Secure:  tlsConfig != nil || strings.HasPrefix(cfg.consoleURL, "https://"),
		BaseURL: cfg.consoleURL, TrustedOrigins: trustedOrigins(cfg.consoleURL),
	})
	if err != nil {
		return listener{}, err
	}
	l, err := net.Listen("tcp", cfg.consoleAddr)
	if err != nil {
		return listener{}, fmt.Errorf("console: %w", err)
	}
	if tlsConfig != nil {
		l = tls.NewListener(l, tlsConfig)
	}
	a.log.Info("console listening", "url", consoleURL(cfg, l.Addr().String(), tlsConfig != nil))
	return listener{"console", newHTTPServer(a.foreground.Wrap(h), a.log, serverTimeouts), l}, nil
}

// trustedOrigins is the origin of --console-url, whose form posts the
// console accepts even when a proxy changes the Host they arrive with.
func trustedOrigins(consoleURL string) []string {
	u, err := url.Parse(consoleURL)
	if consoleURL == "" || err != nil || u.Host == "" {
		return nil
	}
	return []string{u.Scheme + "://" + u.Host}
}

// consoleURL is the console's address for people: --console-url, or the
// bound address.
func consoleURL(cfg *serveConfig, addr string, tls bool) string {
	if cfg.consoleURL != "" {
		return strings.TrimSuffix(cfg.consoleURL, "/")
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	return scheme + "://" + addr
}

// announceConsole prints the console's address and, while the console
// has no user, a one-time setup link for the first account and its owner.
func (c *cli) announceConsole(ctx context.Context, a *app, cfg *serveConfig, ls listeners) error {
	addr, ok := ls.addrs()["console"]
	if !ok {
		return nil
	}
	base := consoleURL(cfg, addr, cfg.tlsCert != "")
	fmt.Fprintf(c.stdout, "adcamp console: %s/\n", base)
	if err := a.svc.SetConsoleURL(ctx, base); err != nil {
		return fmt.Errorf("record the console's address (--console-url): %w", explain(err))
	}
	token, err := a.svc.NewSetupLink(ctx)
	if err != nil || token == "" {
		return err
	}
	fmt.Fprintf(c.stdout, "No one can sign in to the console yet. Open this link within the hour to create the first account and its owner\n(it works once; restart serve for a new one):\n\n    %s/setup?token=%s\n\n",
		base, url.QueryEscape(token))
	return nil
}

// consoleURLFlag declares --console-url for an admin command that prints
// a link.
func consoleURLFlag(fs *flag.FlagSet) *string {
	return fs.String("console-url", "", "the console's address, for the link (default $ADCAMP_CONSOLE_URL, "+
		"else the address serve last announced for its console, else "+defaultConsoleURL+")")
}

// linkBase is the console's address for a printed link: --console-url,
// else ADCAMP_CONSOLE_URL, else the address serve recorded for its
// console when it last started, else the default one.
func (a *adminRun) linkBase(ctx context.Context, flagValue string) (string, error) {
	if flagValue == "" {
		flagValue, _ = a.out.c.lookup("ADCAMP_CONSOLE_URL")
	}
	if flagValue == "" {
		recorded, err := a.svc.ConsoleURL(ctx)
		if err != nil {
			return "", err
		}
		flagValue = cmp.Or(recorded, defaultConsoleURL)
	}
	return strings.TrimSuffix(flagValue, "/"), nil
}

// usersCreate adds a user to an account with a role and prints a one-time
// link for them to set their password (no password is ever given on a
// command line).
func usersCreate(fs *flag.FlagSet) func(context.Context, *adminRun) error {
	account := fs.String("account", "", "account id (required)")
	email := fs.String("email", "", "the user's email (required)")
	role := fs.String("role", "", "owner, developer or viewer (required)")
	base := consoleURLFlag(fs)
	return func(ctx context.Context, a *adminRun) error {
		r, ok := adcamp.ParseRole(*role)
		if !ok {
			return usageError("--role must be owner, developer or viewer, got %q", *role)
		}
		inv, err := a.svc.AddMember(ctx, *account, *email, r)
		if err != nil {
			return explain(err)
		}
		link, err := a.linkBase(ctx, *base)
		if err != nil {
			return err
		}
		return a.printInvitation(inv, link,
			fmt.Sprintf("%s is now %s of account %s.", inv.Member.User.Email, article(r), inv.Member.AccountID))
	}
}

// usersResetPassword prints a new one-time link for a user to set their
// password.
func usersResetPassword(fs *flag.FlagSet) func(context.Context, *adminRun) error {
	email := fs.String("email", "", "the user's email (required)")
	base := consoleURLFlag(fs)
	return func(ctx context.Context, a *adminRun) error {
		inv, err := a.svc.PasswordLink(ctx, *email)
		if err != nil {
			return explain(err)
		}
		link, err := a.linkBase(ctx, *base)
		if err != nil {
			return err
		}
		return a.printInvitation(inv, link, "Earlier links for "+inv.Member.User.Email+" no longer work.")
	}
}

// usersResetTwoStep turns off two-step sign-in for a user who lost their
// authenticator and recovery codes.
func usersResetTwoStep(fs *flag.FlagSet) func(context.Context, *adminRun) error {
	email := fs.String("email", "", "the user's email (required)")
	return func(ctx context.Context, a *adminRun) error {
		r, err := a.svc.ResetTwoStep(ctx, *email)
		if err != nil {
			return explain(err)
		}
		accounts := r.Accounts
		if accounts == nil {
			accounts = []string{}
		}
		v := map[string]any{"user_id": r.User.ID, "email": r.User.Email, "two_step": false,
			"sessions_ended": r.SessionsEnded, "accounts": accounts}
		return a.out.object(v, "Two-step sign-in is off for %s: their authenticator and recovery codes no longer work, "+
			"and %s ended.\nThey sign in with their password alone, and may turn it on again in the console's settings.\n"+
			"Recorded in the history of %s.\n",
			r.User.Email, counted(r.SessionsEnded, "session"), accountList(accounts))
	}
}

// counted writes n with its noun: "1 session", "2 sessions".
func counted(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// accountList names accounts for a sentence: "account acc_1", "accounts
// acc_1, acc_2", "no account (they belong to none)".
func accountList(ids []string) string {
	switch len(ids) {
	case 0:
		return "no account (they belong to none)"
	case 1:
		return "account " + ids[0]
	}
	return "accounts " + strings.Join(ids, ", ")
}

func article(r adcamp.Role) string {
	if r == adcamp.RoleOwner {
		return "an owner"
	}
	return "a " + string(r)
}

// printInvitation prints what users create and reset-password did, with
// the link if there is one.
func (a *adminRun) printInvitation(inv *service.Invitation, base, what string) error {
	link := ""
	if inv.Token != "" {
		link = base + "/set-password?token=" + url.QueryEscape(inv.Token)
	}
	if a.out.json {
		v := map[string]any{"user_id": inv.Member.User.ID, "email": inv.Member.User.Email, "password_set": inv.Member.User.PasswordSet}
		if inv.Member.AccountID != "" {
			v["account_id"], v["role"] = inv.Member.AccountID, inv.Member.Role
		}
		if link != "" {
			v["set_password_url"], v["expires_at"] = link, inv.ExpiresAt.UTC().Format(time.RFC3339)
		}
		return a.out.object(v, "")
	}
	switch {
	case inv.PendingElsewhere:
		return a.out.object(nil, "%s They have not chosen a password yet, and were invited to another account too, "+
			"so no link is printed here:\nwhoever held it could sign in to that account as well. They see this account once they sign in,\n"+
			"with the invitation they have; if they lost it, adcamp users reset-password --email %s makes a new one.\n",
			what, inv.Member.User.Email)
	case link == "":
		return a.out.object(nil, "%s They have a password already: they see the account when they sign in.\n", what)
	}
	return a.out.object(nil, "%s\nSend them this link to choose their password (it works once, until %s):\n\n    %s\n\n",
		what, inv.ExpiresAt.UTC().Format(time.RFC3339), link)
}
