package main

import (
	"context"
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// TestUsersCreateOfAnotherAccountsInvitee: users create for a user whom
// another account invited, who has no password yet, adds them but prints
// no link (whoever held it could sign in to the other account); the
// first invitation keeps working, and reset-password, the operator's own
// tool, still makes a link.
func TestUsersCreateOfAnotherAccountsInvitee(t *testing.T) {
	t.Parallel()
	dd := "--data-dir=" + t.TempDir()
	a := mustJSON(t, "accounts", "create", "--name", "A", dd)["id"].(string)
	b := mustJSON(t, "accounts", "create", "--name", "B", dd)["id"].(string)
	c := mustJSON(t, "accounts", "create", "--name", "C", dd)["id"].(string)
	first := mustJSON(t, "users", "create", "--account", b, "--email", "cfo@b.example", "--role", "owner", dd)
	linkB, _ := first["set_password_url"].(string)
	if !strings.Contains(linkB, "/set-password?token=") {
		t.Fatalf("users create of a new user = %v, want a link", first)
	}

	out, err := runCLI(t, "users", "create", "--account", a, "--email", "cfo@b.example", "--role", "viewer", dd)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "token=") || !strings.Contains(out, "cfo@b.example is now a viewer of account "+a) ||
		!strings.Contains(out, "invited to another account too") || !strings.Contains(out, "reset-password --email cfo@b.example") {
		t.Errorf("users create of another account's invitee printed:\n%s\nwant the membership, no link, and why", out)
	}
	v := mustJSON(t, "users", "create", "--account", c, "--email", "cfo@b.example", "--role", "viewer", dd)
	if _, ok := v["set_password_url"]; ok || v["password_set"] != false || v["account_id"] != c {
		t.Errorf("users create --json of another account's invitee = %v, want no set_password_url", v)
	}

	reset := mustJSON(t, "users", "reset-password", "--email", "cfo@b.example", dd)
	if link, _ := reset["set_password_url"].(string); !strings.Contains(link, "/set-password?token=") || link == linkB {
		t.Errorf("users reset-password = %v, want a new link", reset)
	}
}

// openService opens the data directory dir as the admin commands do, for
// what a test does as a console user. It is closed at the end of the test.
func openService(t *testing.T, dir string) *service.Service {
	t.Helper()
	c := &cli{lookup: noEnv, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	sf := &storeFlags{dataDir: dir}
	db, box, err := c.open(context.Background(), sf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return newService(db, box, nil, service.Config{})
}

// TestUsersResetTwoStep: an operator turns off two-step sign-in for a
// user who lost their authenticator; the command says what it did, and
// every account of the user records it in its history, by the operator.
func TestUsersResetTwoStep(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dd := "--data-dir=" + dir
	a := mustJSON(t, "accounts", "create", "--name", "A", dd)["id"].(string)
	b := mustJSON(t, "accounts", "create", "--name", "B", dd)["id"].(string)
	link := mustJSON(t, "users", "create", "--account", a, "--email", "owner@a.example", "--role", "owner", dd)["set_password_url"].(string)
	mustJSON(t, "users", "create", "--account", b, "--email", "owner@a.example", "--role", "viewer", dd)

	svc := openService(t, dir)
	ctx := context.Background()
	const pw = "the only owner's passphrase"
	u, _ := url.Parse(link)
	in, err := svc.SetPassword(ctx, u.Query().Get("token"), pw)
	if err != nil {
		t.Fatal(err)
	}
	as := service.WithOrigin(ctx, service.Origin{Actor: adcamp.Actor{Type: adcamp.ActorUser, ID: in.User.ID}})
	setup, err := svc.BeginTwoStep(as)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := totp.GenerateCode(setup.Secret, time.Now())
	if _, err := svc.EnableTwoStep(as, setup.Token, code, pw); err != nil {
		t.Fatal(err)
	}

	out, err := runCLI(t, "users", "reset-two-step", "--email", "Owner@A.example", dd)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Two-step sign-in is off for owner@a.example", "1 session", a, b} {
		if !strings.Contains(out, want) {
			t.Errorf("users reset-two-step printed:\n%s\nwant %q in it", out, want)
		}
	}
	if next, err := svc.SignIn(ctx, service.SignInRequest{Email: "owner@a.example", Password: pw}); err != nil || next.Session == "" {
		t.Errorf("sign-in after users reset-two-step = %+v, %v; want a session at once", next, err)
	}
	for _, acc := range []string{a, b} {
		recs, _, err := svc.ListChanges(ctx, adcamp.Tenant{AccountID: acc}, adcamp.ChangeFilter{EntityType: adcamp.EntityMember, ActorType: adcamp.ActorAdmin})
		if err != nil || len(recs) == 0 || len(recs[0].Changes) != 1 || recs[0].Changes[0].Field != "two_step" || recs[0].EntityID != in.User.ID {
			t.Errorf("the history of %s = %+v, %v; want the reset, by the operator", acc, recs, err)
		}
	}
	if _, err := runCLI(t, "users", "reset-two-step", "--email", "owner@a.example", dd); err == nil || !strings.Contains(err.Error(), "off for owner@a.example already") {
		t.Errorf("users reset-two-step again = %v, want a refusal", err)
	}
	if _, err := runCLI(t, "users", "reset-two-step", dd); !errors.Is(err, errUsage) {
		t.Errorf("users reset-two-step without --email = %v, want a usage error", err)
	}
}

// TestUsersLinkUsesServesConsole: the links of users create and
// reset-password point at the console serve last ran (its --console-url,
// else its listener's address), not at the default address; an explicit
// --console-url of the command still wins.
func TestUsersLinkUsesServesConsole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dd := "--data-dir=" + dir
	acc := mustJSON(t, "accounts", "create", "--name", "Acme", dd)["id"].(string)
	link := func(email string, more ...string) string {
		t.Helper()
		v := mustJSON(t, append([]string{"users", "create", "--account", acc, "--email", email, "--role", "viewer", dd}, more...)...)
		l, _ := v["set_password_url"].(string)
		return l
	}
	if l := link("before@example.com"); !strings.HasPrefix(l, "http://127.0.0.1:8082/set-password?token=") {
		t.Errorf("before any serve, users create links to %q, want the default console address", l)
	}

	addrs, _ := startServeOut(t, dd, "--production-addr", "", "--sandbox-addr", "127.0.0.1:0", "--console-addr", "127.0.0.1:0")
	want := "http://" + addrs["console"] + "/set-password?token="
	if l := link("bound@example.com"); !strings.HasPrefix(l, want) {
		t.Errorf("with serve's console on %s, users create links to %q, want %s...", addrs["console"], l, want)
	}
	out, err := runCLI(t, "users", "reset-password", "--email", "bound@example.com", dd)
	if err != nil || !strings.Contains(out, want) {
		t.Errorf("users reset-password = %q, %v; want a link to %s...", out, err, want)
	}
	if l := link("explicit@example.com", "--console-url", "https://other.example/"); !strings.HasPrefix(l, "https://other.example/set-password?token=") {
		t.Errorf("users create --console-url https://other.example/ links to %q", l)
	}

	if _, err := runCLI(t, "serve", dd, "--console-url", "console.example.com"); !errors.Is(err, errUsage) {
		t.Errorf("serve --console-url console.example.com = %v, want a usage error", err)
	}
	startServeOut(t, dd, "--production-addr", "", "--sandbox-addr", "127.0.0.1:0", "--console-addr", "127.0.0.1:0",
		"--console-url", "https://console.example.com/")
	if l := link("proxied@example.com"); !strings.HasPrefix(l, "https://console.example.com/set-password?token=") {
		t.Errorf("with serve --console-url https://console.example.com/, users create links to %q", l)
	}
}
