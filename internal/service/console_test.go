package service_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// The console's rules, through the service: setup, sign-in and its
// throttling, sessions, passwords, members and roles, credentials.

var ctx = context.Background()

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	t     *testing.T
	svc   *service.Service
	clock *clock
}

// openStore opens SQLite in a temporary directory, or with
// ADCAMP_TEST_STORE=postgres a fresh PostgreSQL schema.
func openStore(t testing.TB) store.Store {
	t.Helper()
	var db store.Store
	var err error
	if os.Getenv("ADCAMP_TEST_STORE") == "postgres" {
		if os.Getenv(pgtest.EnvURL) == "" {
			t.Fatalf("ADCAMP_TEST_STORE=postgres needs %s", pgtest.EnvURL)
		}
		db, err = postgres.Open(ctx, pgtest.NewSchema(t).URL)
	} else {
		db, err = sqlite.Open(ctx, t.TempDir())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{now: time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)}
	return &fixture{t: t, svc: service.New(service.Config{Store: openStore(t), Box: box, Now: clk.Now}), clock: clk}
}

// as is ctx for a console user.
func as(userID string) context.Context {
	return service.WithOrigin(ctx, service.Origin{Actor: adcamp.Actor{Type: adcamp.ActorUser, ID: userID}})
}

// admin is ctx for an operator at the command line.
var admin = service.WithOrigin(ctx, service.Origin{Actor: adcamp.Actor{Type: adcamp.ActorAdmin, ID: "root"}})

const ownerPassword = "a calm and long passphrase"

// setup creates the first account and its owner through a setup link.
func (f *fixture) setup() (accountID string, owner *service.SignIn) {
	f.t.Helper()
	token, err := f.svc.NewSetupLink(ctx)
	if err != nil || token == "" {
		f.t.Fatalf("NewSetupLink = %q, %v", token, err)
	}
	in, err := f.svc.Setup(ctx, service.SetupRequest{Token: token, AccountName: "Acme", Email: "Owner@Example.com ", Password: ownerPassword})
	if err != nil {
		f.t.Fatalf("Setup: %v", err)
	}
	accs, err := f.svc.Accounts(as(in.User.ID))
	if err != nil || len(accs) != 1 || accs[0].Role != adcamp.RoleOwner {
		f.t.Fatalf("Accounts of the first owner = %+v, %v", accs, err)
	}
	return accs[0].Account.ID, in
}

// member adds a member with role who sets a password and signs in.
func (f *fixture) member(accountID, email string, role adcamp.Role) *service.SignIn {
	f.t.Helper()
	inv, err := f.svc.AddMember(admin, accountID, email, role)
	if err != nil || inv.Token == "" {
		f.t.Fatalf("AddMember(%s) = %+v, %v", email, inv, err)
	}
	in, err := f.svc.SetPassword(ctx, inv.Token, "the "+string(role)+"'s own passphrase")
	if err != nil || in.Session == "" {
		f.t.Fatalf("SetPassword(%s) = %+v, %v", email, in, err)
	}
	return in
}

// wantCode checks that err has code (and, if given, a message containing
// part).
func wantCode(t *testing.T, call string, err error, code adcamp.Code, part ...string) {
	t.Helper()
	if got := adcamp.ErrorCode(err); err == nil || got != code {
		t.Errorf("%s = %v, want %s", call, err, code)
		return
	}
	for _, p := range part {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s = %v, want a message with %q", call, err, p)
		}
	}
}

// wantIssue checks that err is a VALIDATION_ERROR naming field.
func wantIssue(t *testing.T, call string, err error, field string) {
	t.Helper()
	var e *adcamp.Error
	if !errors.As(err, &e) || e.Code != adcamp.CodeValidation {
		t.Errorf("%s = %v, want VALIDATION_ERROR on %s", call, err, field)
		return
	}
	for _, is := range e.Details.([]adcamp.FieldIssue) {
		if is.Field == field {
			return
		}
	}
	t.Errorf("%s = %v, want an issue with %s", call, err, field)
}

func TestSetup(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if need, err := f.svc.NeedsSetup(ctx); !need || err != nil {
		t.Fatalf("NeedsSetup of a new store = %v, %v; want true", need, err)
	}
	token, err := f.svc.NewSetupLink(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "CheckSetupLink(wrong token)", f.svc.CheckSetupLink(ctx, "nope"), adcamp.CodeNotFound)
	_, err = f.svc.Setup(ctx, service.SetupRequest{Token: token, AccountName: "", Email: "not an email", Password: "short"})
	for _, field := range []string{"account_name", "email", "password"} {
		wantIssue(t, "Setup(bad fields)", err, field)
	}
	in, err := f.svc.Setup(ctx, service.SetupRequest{Token: token, AccountName: "Acme", Email: "Owner@Example.com", Password: ownerPassword})
	if err != nil || in.Session == "" || in.User.Email != "owner@example.com" {
		t.Fatalf("Setup = %+v, %v; want a session of owner@example.com", in, err)
	}
	if ss, err := f.svc.Session(ctx, in.Session); err != nil || ss.User.ID != in.User.ID {
		t.Errorf("Session after setup = %+v, %v", ss, err)
	}
	_, err = f.svc.Setup(ctx, service.SetupRequest{Token: token, AccountName: "Again", Email: "x@example.com", Password: ownerPassword})
	wantCode(t, "Setup(the link again)", err, adcamp.CodeNotFound, "set up already")
	if token, err := f.svc.NewSetupLink(ctx); token != "" || err != nil {
		t.Errorf("NewSetupLink once a user exists = %q, %v; want none", token, err)
	}
}

func TestSetupLinkExpires(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	token, _ := f.svc.NewSetupLink(ctx)
	f.clock.Advance(service.SetupLinkTimeout)
	_, err := f.svc.Setup(ctx, service.SetupRequest{Token: token, AccountName: "Acme", Email: "a@example.com", Password: ownerPassword})
	wantCode(t, "Setup after an hour", err, adcamp.CodeNotFound)
}

func TestSignIn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, owner := f.setup()
	in, err := f.svc.SignIn(ctx, service.SignInRequest{Email: " OWNER@example.com", Password: ownerPassword, ClientAddr: "192.0.2.1"})
	if err != nil || in.Session == "" || in.Session == owner.Session {
		t.Fatalf("SignIn = %+v, %v; want a new session", in, err)
	}
	_, err = f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: "wrong password!", ClientAddr: "192.0.2.1"})
	wantCode(t, "SignIn(wrong password)", err, adcamp.CodeUnauthorized)
	wrong := err.Error()
	_, err = f.svc.SignIn(ctx, service.SignInRequest{Email: "nobody@example.com", Password: ownerPassword, ClientAddr: "192.0.2.1"})
	if err == nil || err.Error() != wrong {
		t.Errorf("SignIn(unknown email) = %v, want the same answer as a wrong password (%s)", err, wrong)
	}
}

// TestSignInThrottled: ten failures for one email within 15 minutes, then
// even the right password waits; an unknown email is throttled alike;
// the wait ends with the window.
func TestSignInThrottled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.setup()
	for _, email := range []string{"owner@example.com", "nobody@example.com"} {
		for i := range service.SignInLimitPerEmail {
			_, err := f.svc.SignIn(ctx, service.SignInRequest{Email: email, Password: fmt.Sprintf("guess number %d", i),
				ClientAddr: fmt.Sprintf("192.0.2.%d", i)})
			wantCode(t, "SignIn(wrong password)", err, adcamp.CodeUnauthorized)
		}
		f.clock.Advance(time.Minute)
		_, err := f.svc.SignIn(ctx, service.SignInRequest{Email: email, Password: ownerPassword, ClientAddr: "198.51.100.7"})
		wantCode(t, "SignIn after 10 failures of "+email, err, adcamp.CodeRateLimited, "Wait 14 minutes")
	}
	f.clock.Advance(service.SignInWindow)
	if _, err := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword}); err != nil {
		t.Errorf("SignIn once the window has passed = %v", err)
	}
}

// TestSignInThrottledPerAddress: failures from one address for many
// emails throttle that address only.
func TestSignInThrottledPerAddress(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.setup()
	for i := range service.SignInLimitPerAddress {
		_, err := f.svc.SignIn(ctx, service.SignInRequest{Email: fmt.Sprintf("user%d@example.com", i), Password: "not the password", ClientAddr: "203.0.113.9"})
		wantCode(t, "SignIn(wrong)", err, adcamp.CodeUnauthorized)
	}
	_, err := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword, ClientAddr: "203.0.113.9"})
	wantCode(t, "SignIn from a throttled address", err, adcamp.CodeRateLimited)
	if _, err := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword, ClientAddr: "203.0.113.10"}); err != nil {
		t.Errorf("SignIn from another address = %v", err)
	}
}

func TestSessionTimeouts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, owner := f.setup()
	// Idle: used every 11 hours it lives on, until 7 days.
	for elapsed := time.Duration(0); elapsed+11*time.Hour < service.SessionLifetime; elapsed += 11 * time.Hour {
		f.clock.Advance(11 * time.Hour)
		if _, err := f.svc.Session(ctx, owner.Session); err != nil {
			t.Fatalf("Session used every 11 h, after %v = %v", elapsed+11*time.Hour, err)
		}
	}
	f.clock.Advance(11 * time.Hour)
	_, err := f.svc.Session(ctx, owner.Session)
	wantCode(t, "Session after 7 days", err, adcamp.CodeUnauthorized, "ended")

	in, _ := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword})
	f.clock.Advance(service.SessionIdleTimeout)
	_, err = f.svc.Session(ctx, in.Session)
	wantCode(t, "Session idle for 12 hours", err, adcamp.CodeUnauthorized)
	_, err = f.svc.Session(ctx, in.Session)
	wantCode(t, "Session ended, again", err, adcamp.CodeUnauthorized)
}

func TestSignOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, owner := f.setup()
	other, _ := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword})
	third, _ := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword})
	if err := f.svc.SignOut(ctx, owner.Session); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.Session(ctx, owner.Session)
	wantCode(t, "Session after SignOut", err, adcamp.CodeUnauthorized)
	if _, err := f.svc.Session(ctx, other.Session); err != nil {
		t.Errorf("another session after SignOut = %v", err)
	}
	n, err := f.svc.SignOutEverywhere(ctx, other.Session)
	if n != 2 || err != nil {
		t.Errorf("SignOutEverywhere = %d, %v; want 2 sessions ended", n, err)
	}
	for _, s := range []string{other.Session, third.Session} {
		_, err := f.svc.Session(ctx, s)
		wantCode(t, "Session after SignOutEverywhere", err, adcamp.CodeUnauthorized)
	}
}

func TestChangePassword(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, owner := f.setup()
	other, _ := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword})
	u := as(owner.User.ID)
	wantIssue(t, "ChangePassword(wrong current)", f.svc.ChangePassword(u, owner.Session, "not it at all", "a brand new passphrase"), "current_password")
	wantIssue(t, "ChangePassword(common)", f.svc.ChangePassword(u, owner.Session, ownerPassword, "qwerty123456"), "new_password")
	wantIssue(t, "ChangePassword(short)", f.svc.ChangePassword(u, owner.Session, ownerPassword, "too short"), "new_password")
	if err := f.svc.ChangePassword(u, owner.Session, ownerPassword, "a brand new passphrase"); err != nil {
		t.Fatalf("ChangePassword: %v", err)
	}
	if _, err := f.svc.Session(ctx, owner.Session); err != nil {
		t.Errorf("the session that changed the password = %v, want it kept", err)
	}
	_, err := f.svc.Session(ctx, other.Session)
	wantCode(t, "another session after a password change", err, adcamp.CodeUnauthorized)
	_, err = f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword})
	wantCode(t, "SignIn with the old password", err, adcamp.CodeUnauthorized)
	if _, err := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: "a brand new passphrase"}); err != nil {
		t.Errorf("SignIn with the new password = %v", err)
	}
}

func TestInvitation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, owner := f.setup()
	inv, err := f.svc.AddMember(as(owner.User.ID), acc, "Dev@Example.com", adcamp.RoleDeveloper)
	if err != nil || inv.Token == "" || inv.Member.User.Email != "dev@example.com" {
		t.Fatalf("AddMember = %+v, %v", inv, err)
	}
	_, err = f.svc.AddMember(as(owner.User.ID), acc, "dev@example.com", adcamp.RoleViewer)
	wantCode(t, "AddMember(a member already)", err, adcamp.CodeConflict)
	_, err = f.svc.SignIn(ctx, service.SignInRequest{Email: "dev@example.com", Password: ""})
	wantCode(t, "SignIn before a password is set", err, adcamp.CodeUnauthorized)
	u, err := f.svc.PasswordLinkUser(ctx, inv.Token)
	if err != nil || u.Email != "dev@example.com" {
		t.Errorf("PasswordLinkUser = %+v, %v", u, err)
	}
	// A new link replaces the first.
	inv2, err := f.svc.NewInvitation(as(owner.User.ID), acc, inv.Member.User.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.SetPassword(ctx, inv.Token, "the developer's passphrase")
	wantCode(t, "SetPassword(replaced link)", err, adcamp.CodeNotFound)
	wantIssue(t, "SetPassword(common password)", errOf(f.svc.SetPassword(ctx, inv2.Token, "password1234")), "password")
	in, err := f.svc.SetPassword(ctx, inv2.Token, "the developer's passphrase")
	if err != nil || in.Session == "" {
		t.Fatalf("SetPassword = %+v, %v", in, err)
	}
	_, err = f.svc.SetPassword(ctx, inv2.Token, "another passphrase here")
	wantCode(t, "SetPassword(the link again)", err, adcamp.CodeNotFound)
	_, err = f.svc.NewInvitation(as(owner.User.ID), acc, inv.Member.User.ID)
	wantCode(t, "NewInvitation(password set)", err, adcamp.CodeConflict)
	// An existing user joins another account without a link.
	other, err := f.svc.CreateAccount(ctx, "Other", "")
	if err != nil {
		t.Fatal(err)
	}
	inv3, err := f.svc.AddMember(admin, other.ID, "dev@example.com", adcamp.RoleViewer)
	if err != nil || inv3.Token != "" {
		t.Errorf("AddMember(a user with a password) = %+v, %v; want no link", inv3, err)
	}
	if accs, _ := f.svc.Accounts(as(in.User.ID)); len(accs) != 2 {
		t.Errorf("Accounts of a member of two = %+v", accs)
	}
	// A reset link is the operators' alone.
	_, err = f.svc.PasswordLink(as(owner.User.ID), "dev@example.com")
	wantCode(t, "PasswordLink by a console user", err, adcamp.CodeForbidden)
	if r, err := f.svc.PasswordLink(admin, "dev@example.com"); err != nil || r.Token == "" {
		t.Errorf("PasswordLink by an operator = %+v, %v", r, err)
	}
}

func errOf[T any](_ T, err error) error { return err }

// TestRoles: what each role may do with credentials and members, through
// the same calls as the command line's.
func TestRoles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, owner := f.setup()
	dev := f.member(acc, "dev@example.com", adcamp.RoleDeveloper)
	viewer := f.member(acc, "viewer@example.com", adcamp.RoleViewer)
	other, _ := f.svc.CreateAccount(ctx, "Other", "")
	outsider := f.member(other.ID, "out@example.com", adcamp.RoleOwner)
	sandbox := service.KeyRequest{AccountID: acc, Environment: adcamp.Sandbox, Name: "CI"}
	production := service.KeyRequest{AccountID: acc, Environment: adcamp.Production, Name: "Live"}

	_, err := f.svc.CreateKeyWith(as(viewer.User.ID), sandbox)
	wantCode(t, "viewer creates a sandbox key", err, adcamp.CodeForbidden, "viewer")
	_, err = f.svc.CreateKeyWith(as(dev.User.ID), production)
	wantCode(t, "developer creates a production key", err, adcamp.CodeForbidden, "production")
	_, err = f.svc.CreateKeyWith(as(outsider.User.ID), sandbox)
	wantCode(t, "another account's owner creates a key", err, adcamp.CodeNotFound)
	devKey, err := f.svc.CreateKeyWith(as(dev.User.ID), sandbox)
	if err != nil || devKey.Name != "CI" || devKey.CreatedBy == nil || devKey.CreatedBy.ID != dev.User.ID {
		t.Fatalf("developer creates a sandbox key = %+v, %v", devKey, err)
	}
	_, err = f.svc.CreateKeyWith(as(owner.User.ID), production)
	wantIssue(t, "owner creates a production key without the password", err, "confirm")
	wrong := production
	wrong.Confirm = "not my password"
	_, err = f.svc.CreateKeyWith(as(owner.User.ID), wrong)
	wantIssue(t, "owner creates a production key with a wrong password", err, "confirm")
	production.Confirm = ownerPassword
	live, err := f.svc.CreateKeyWith(as(owner.User.ID), production)
	if err != nil || !strings.HasPrefix(live.Secret, "sk_live_") {
		t.Fatalf("owner creates a production key = %+v, %v", live, err)
	}

	// Changes of existing keys.
	_, err = f.svc.SetKeyDisabled(as(viewer.User.ID), devKey.ID, true)
	wantCode(t, "viewer disables a key", err, adcamp.CodeForbidden)
	_, err = f.svc.SetKeyDisabled(as(outsider.User.ID), devKey.ID, true)
	wantCode(t, "outsider disables a key", err, adcamp.CodeNotFound)
	_, err = f.svc.SetKeyDisabled(as(dev.User.ID), live.ID, true)
	wantCode(t, "developer disables a production key", err, adcamp.CodeForbidden)
	if _, err := f.svc.SetKeyDisabled(as(dev.User.ID), devKey.ID, true); err != nil {
		t.Errorf("developer disables a sandbox key = %v", err)
	}
	_, err = f.svc.RollKeyWith(as(dev.User.ID), live.ID, time.Hour, ownerPassword)
	wantCode(t, "developer rolls a production key", err, adcamp.CodeForbidden)
	_, err = f.svc.RollKeyWith(as(owner.User.ID), live.ID, time.Hour, "")
	wantIssue(t, "owner rolls a production key without the password", err, "confirm")
	if _, err := f.svc.RollKeyWith(as(owner.User.ID), live.ID, time.Hour, ownerPassword); err != nil {
		t.Errorf("owner rolls a production key = %v", err)
	}
	if _, err := f.svc.RollKeyWith(as(dev.User.ID), devKey.ID, 0, ""); err != nil {
		t.Errorf("developer rolls a sandbox key = %v", err)
	}
	wantCode(t, "viewer deletes a key", f.svc.DeleteKey(as(viewer.User.ID), devKey.ID), adcamp.CodeForbidden)
	wantCode(t, "outsider deletes a key", f.svc.DeleteKey(as(outsider.User.ID), devKey.ID), adcamp.CodeNotFound)
	_, err = f.svc.Key(as(outsider.User.ID), other.ID, devKey.ID)
	wantCode(t, "outsider reads a key through their own account", err, adcamp.CodeNotFound)
	_, err = f.svc.KeyViews(as(outsider.User.ID), acc)
	wantCode(t, "outsider lists the keys", err, adcamp.CodeNotFound)
	if views, err := f.svc.KeyViews(as(viewer.User.ID), acc); err != nil || len(views) != 2 {
		t.Errorf("viewer lists the keys = %d, %v; want 2", len(views), err)
	}

	// Members.
	_, err = f.svc.AddMember(as(dev.User.ID), acc, "new@example.com", adcamp.RoleViewer)
	wantCode(t, "developer adds a member", err, adcamp.CodeForbidden)
	_, err = f.svc.SetMemberRole(as(viewer.User.ID), acc, viewer.User.ID, adcamp.RoleOwner)
	wantCode(t, "viewer promotes themself", err, adcamp.CodeForbidden)
	_, err = f.svc.RemoveMember(as(outsider.User.ID), acc, dev.User.ID)
	wantCode(t, "outsider removes a member", err, adcamp.CodeNotFound)
	_, err = f.svc.Members(as(outsider.User.ID), acc)
	wantCode(t, "outsider lists the members", err, adcamp.CodeNotFound)
}

// TestLastOwner: an account keeps at least one owner.
func TestLastOwner(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, owner := f.setup()
	o := as(owner.User.ID)
	_, err := f.svc.SetMemberRole(o, acc, owner.User.ID, adcamp.RoleDeveloper)
	wantCode(t, "the last owner steps down", err, adcamp.CodeConflict, "only owner")
	_, err = f.svc.RemoveMember(o, acc, owner.User.ID)
	wantCode(t, "the last owner is removed", err, adcamp.CodeConflict, "only owner")
	second := f.member(acc, "second@example.com", adcamp.RoleDeveloper)
	if _, err := f.svc.SetMemberRole(o, acc, second.User.ID, adcamp.RoleOwner); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SetMemberRole(o, acc, owner.User.ID, adcamp.RoleViewer); err != nil {
		t.Errorf("an owner steps down beside another = %v", err)
	}
	_, err = f.svc.RemoveMember(as(second.User.ID), acc, second.User.ID)
	wantCode(t, "the new last owner leaves", err, adcamp.CodeConflict)
	_, err = f.svc.SetMemberRole(as(second.User.ID), acc, owner.User.ID, "admin")
	wantIssue(t, "SetMemberRole(unknown role)", err, "role")
	if _, err := f.svc.RemoveMember(as(second.User.ID), acc, owner.User.ID); err != nil {
		t.Errorf("an owner removes a viewer = %v", err)
	}
	_, err = f.svc.KeyViews(o, acc)
	wantCode(t, "a removed member lists the keys", err, adcamp.CodeNotFound)
}

// TestRevealOnce: a secret held for the console is shown once, to its
// user only.
func TestRevealOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, owner := f.setup()
	dev := f.member(acc, "dev@example.com", adcamp.RoleDeveloper)
	k, err := f.svc.CreateKeyWith(as(owner.User.ID), service.KeyRequest{AccountID: acc, Environment: adcamp.Sandbox})
	if err != nil {
		t.Fatal(err)
	}
	token, err := f.svc.HoldSecret(as(owner.User.ID), k, false)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = f.svc.RevealSecret(as(dev.User.ID), token)
	wantCode(t, "RevealSecret by another user", err, adcamp.CodeNotFound)
	got, rolled, err := f.svc.RevealSecret(as(owner.User.ID), token)
	if err != nil || got.Secret != k.Secret || got.ID != k.ID || rolled {
		t.Fatalf("RevealSecret = %+v, %v, %v; want the secret of %s", got, rolled, err, k.ID)
	}
	_, _, err = f.svc.RevealSecret(as(owner.User.ID), token)
	wantCode(t, "RevealSecret again", err, adcamp.CodeNotFound, "shown once")
}

// TestRequestsPerDay: requests are counted per credential and day with
// the last use, and listed for the chart.
func TestRequestsPerDay(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, owner := f.setup()
	k, err := f.svc.CreateKeyWith(as(owner.User.ID), service.KeyRequest{AccountID: acc, Environment: adcamp.Sandbox})
	if err != nil {
		t.Fatal(err)
	}
	request := func() {
		t.Helper()
		ts := signing.Timestamp(f.clock.Now())
		msg := signing.StringToSign(signing.SchemeA, ts, "GET", "/api/v1/open/campaigns", nil)
		_, err := f.svc.Authenticate(ctx, service.AuthRequest{Environment: adcamp.Sandbox, APIKey: k.ID, Timestamp: ts,
			Signature: signing.Sign(k.Secret, msg), Method: "GET", Path: "/api/v1/open/campaigns"})
		if err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		request()
	}
	f.clock.Advance(24 * time.Hour)
	for range 5 {
		request()
	}
	f.svc.FlushUsage(ctx)
	request()
	f.svc.FlushUsage(ctx)
	views, err := f.svc.KeyViews(as(owner.User.ID), acc)
	if err != nil || len(views) != 1 {
		t.Fatalf("KeyViews = %+v, %v", views, err)
	}
	uses := views[0].Uses
	if len(uses) != service.ChartDays || uses[len(uses)-1].Day.String() != "2026-11-23" {
		t.Fatalf("KeyViews uses = %+v, want %d days ending 2026-11-23", uses, service.ChartDays)
	}
	var got []int64
	for _, u := range uses[len(uses)-3:] {
		got = append(got, u.Requests)
	}
	if fmt.Sprint(got) != "[0 3 6]" {
		t.Errorf("requests of the last 3 days = %v, want [0 3 6]", got)
	}
	if views[0].LastUsedAt == nil || views[0].CreatorEmail != "owner@example.com" {
		t.Errorf("KeyViews = %+v, want a last use and the creator's email", views[0])
	}
}

// TestTwoStep: an authenticator is added with a code; sign-in then asks
// for a code, accepts each code once, and takes a recovery code once.
func TestTwoStep(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, owner := f.setup()
	u := as(owner.User.ID)
	setup, err := f.svc.BeginTwoStep(u)
	if err != nil || setup.Secret == "" || !strings.HasPrefix(setup.URL, "otpauth://totp/") {
		t.Fatalf("BeginTwoStep = %+v, %v", setup, err)
	}
	code := func() string {
		c, err := totp.GenerateCode(setup.Secret, f.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	_, err = f.svc.EnableTwoStep(u, setup.Token, "123", ownerPassword)
	wantIssue(t, "EnableTwoStep(wrong code)", err, "code")
	codes, err := f.svc.EnableTwoStep(u, setup.Token, code(), ownerPassword)
	if err != nil || len(codes) != 10 {
		t.Fatalf("EnableTwoStep = %v, %v", codes, err)
	}
	in, err := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword})
	if err != nil || in.Session != "" || in.SecondStep == "" {
		t.Fatalf("SignIn with two steps = %+v, %v; want a second step, no session", in, err)
	}
	_, err = f.svc.SignInCode(ctx, in.SecondStep, code(), "")
	wantCode(t, "SignInCode(the code used to turn it on)", err, adcamp.CodeUnauthorized)
	f.clock.Advance(30 * time.Second)
	done, err := f.svc.SignInCode(ctx, in.SecondStep, code(), "")
	if err != nil || done.Session == "" {
		t.Fatalf("SignInCode = %+v, %v", done, err)
	}
	_, err = f.svc.SignInCode(ctx, in.SecondStep, code(), "")
	wantCode(t, "SignInCode(second step used)", err, adcamp.CodeNotFound)

	in, _ = f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword})
	_, err = f.svc.SignInCode(ctx, in.SecondStep, code(), "")
	wantCode(t, "SignInCode(a code used already)", err, adcamp.CodeUnauthorized)
	if done, err := f.svc.SignInCode(ctx, in.SecondStep, strings.ToUpper(codes[0]), ""); err != nil || done.Session == "" {
		t.Fatalf("SignInCode(recovery code) = %+v, %v", done, err)
	}
	in, _ = f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword})
	_, err = f.svc.SignInCode(ctx, in.SecondStep, codes[0], "")
	wantCode(t, "SignInCode(recovery code again)", err, adcamp.CodeUnauthorized)
	if n, _ := f.svc.RecoveryCodesLeft(u); n != 9 {
		t.Errorf("RecoveryCodesLeft = %d, want 9", n)
	}
	// A production credential may be confirmed with a code instead of
	// the password.
	f.clock.Advance(30 * time.Second)
	accs, _ := f.svc.Accounts(u)
	if _, err := f.svc.CreateKeyWith(u, service.KeyRequest{AccountID: accs[0].Account.ID, Environment: adcamp.Production, Confirm: code()}); err != nil {
		t.Errorf("CreateKeyWith(production, confirmed by a code) = %v", err)
	}
	wantIssue(t, "DisableTwoStep(wrong password)", f.svc.DisableTwoStep(u, "wrong password here"), "password")
	if err := f.svc.DisableTwoStep(u, ownerPassword); err != nil {
		t.Fatal(err)
	}
	if in, _ := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword}); in == nil || in.Session == "" {
		t.Errorf("SignIn after turning two steps off = %+v, want a session", in)
	}
}

// TestRollNow: a roll with no grace stops the old secret at once.
func TestRollNow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, owner := f.setup()
	k, _ := f.svc.CreateKeyWith(as(owner.User.ID), service.KeyRequest{AccountID: acc, Environment: adcamp.Sandbox})
	auth := func(secret string) error {
		ts := signing.Timestamp(f.clock.Now())
		msg := signing.StringToSign(signing.SchemeA, ts, "GET", "/api/v1/open/campaigns", nil)
		_, err := f.svc.Authenticate(ctx, service.AuthRequest{Environment: adcamp.Sandbox, APIKey: k.ID, Timestamp: ts,
			Signature: signing.Sign(secret, msg), Method: "GET", Path: "/api/v1/open/campaigns"})
		return err
	}
	rolled, err := f.svc.RollKeyWith(as(owner.User.ID), k.ID, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := auth(k.Secret); err == nil {
		t.Error("the old secret still verifies after a roll with no grace")
	}
	if err := auth(rolled.Secret); err != nil {
		t.Errorf("the new secret = %v", err)
	}
}

// TestNothingSecretAtRest: after a setup, sign-ins, an invitation, an
// authenticator added and a credential's secret held to be shown once,
// the database's files hold none of the secrets in the clear: passwords,
// session and link tokens, recovery codes, the authenticator's key, the
// API secret.
func TestNothingSecretAtRest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, _ := secrets.New(key)
	svc := service.New(service.Config{Store: db, Box: box})
	var clear []string
	keep := func(s ...string) { clear = append(clear, s...) }

	setupToken, err := svc.NewSetupLink(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in, err := svc.Setup(ctx, service.SetupRequest{Token: setupToken, AccountName: "Acme", Email: "owner@example.com", Password: ownerPassword})
	if err != nil {
		t.Fatal(err)
	}
	keep(setupToken, ownerPassword, in.Session)
	u := as(in.User.ID)
	accs, _ := svc.Accounts(u)
	inv, err := svc.AddMember(u, accs[0].Account.ID, "dev@example.com", adcamp.RoleDeveloper)
	if err != nil {
		t.Fatal(err)
	}
	keep(inv.Token)
	ts, err := svc.BeginTwoStep(u)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := totp.GenerateCode(ts.Secret, time.Now())
	codes, err := svc.EnableTwoStep(u, ts.Token, code, ownerPassword)
	if err != nil {
		t.Fatal(err)
	}
	keep(ts.Secret, ts.Token)
	for _, c := range codes {
		keep(c, strings.ReplaceAll(c, "-", ""))
	}
	step, err := svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword})
	if err != nil {
		t.Fatal(err)
	}
	keep(step.SecondStep)
	k, err := svc.CreateKeyWith(u, service.KeyRequest{AccountID: accs[0].Account.ID, Environment: adcamp.Sandbox})
	if err != nil {
		t.Fatal(err)
	}
	held, err := svc.HoldSecret(u, k, false)
	if err != nil {
		t.Fatal(err)
	}
	keep(k.Secret, held)
	db.Close()

	files, _ := os.ReadDir(dir)
	for _, f := range files {
		b, err := os.ReadFile(dir + "/" + f.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range clear {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds %q in the clear", f.Name(), s)
			}
		}
	}
	if len(files) == 0 || len(clear) < 20 {
		t.Fatalf("checked %d files for %d secrets: the test checked nothing", len(files), len(clear))
	}
}
