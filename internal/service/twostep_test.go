package service_test

import (
	"testing"

	"github.com/pquerna/otp/totp"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// turnOnTwoStep adds an authenticator for the user of u, confirmed with
// password, and returns its key.
func (f *fixture) turnOnTwoStep(userID, password string) string {
	f.t.Helper()
	u := as(userID)
	setup, err := f.svc.BeginTwoStep(u)
	if err != nil {
		f.t.Fatal(err)
	}
	code, _ := totp.GenerateCode(setup.Secret, f.clock.Now())
	if _, err := f.svc.EnableTwoStep(u, setup.Token, code, password); err != nil {
		f.t.Fatalf("EnableTwoStep: %v", err)
	}
	return setup.Secret
}

// TestEnableTwoStepNeedsPassword: someone holding a borrowed session
// cannot bind their own authenticator (and lock the user out) without
// the user's password, as for turning it off.
func TestEnableTwoStepNeedsPassword(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, owner := f.setup()
	u := as(owner.User.ID)
	setup, err := f.svc.BeginTwoStep(u)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := totp.GenerateCode(setup.Secret, f.clock.Now())
	for _, pw := range []string{"", "not my password at all"} {
		_, err := f.svc.EnableTwoStep(u, setup.Token, code, pw)
		wantIssue(t, "EnableTwoStep(password "+pw+")", err, "password")
	}
	if in, err := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword}); err != nil || in.Session == "" {
		t.Fatalf("SignIn after refused EnableTwoStep = %+v, %v; want a session, no second step", in, err)
	}
	codes, err := f.svc.EnableTwoStep(u, setup.Token, code, ownerPassword)
	if err != nil || len(codes) != 10 {
		t.Fatalf("EnableTwoStep with the password = %v, %v", codes, err)
	}
}

// TestResetTwoStep: an operator turns off two-step sign-in for a user who
// lost their authenticator (the last owner of an account cannot ask
// anyone else): their recovery codes and sessions end too, and each
// account they belong to records it, by the operator.
func TestResetTwoStep(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, owner := f.setup()
	other, err := f.svc.CreateAccount(admin, "Other", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.AddMember(admin, other.ID, "owner@example.com", adcamp.RoleViewer); err != nil {
		t.Fatal(err)
	}
	f.turnOnTwoStep(owner.User.ID, ownerPassword)
	step, err := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword})
	if err != nil || step.SecondStep == "" {
		t.Fatalf("SignIn with two steps = %+v, %v", step, err)
	}

	_, err = f.svc.ResetTwoStep(as(owner.User.ID), "owner@example.com")
	wantCode(t, "ResetTwoStep by a console user", err, adcamp.CodeForbidden)
	_, err = f.svc.ResetTwoStep(admin, "nobody@example.com")
	wantCode(t, "ResetTwoStep of no one", err, adcamp.CodeNotFound)
	r, err := f.svc.ResetTwoStep(admin, " Owner@Example.com")
	if err != nil || r.User.ID != owner.User.ID || r.SessionsEnded != 1 || len(r.Accounts) != 2 {
		t.Fatalf("ResetTwoStep = %+v, %v; want the owner, 1 session ended, 2 accounts", r, err)
	}
	_, err = f.svc.Session(ctx, owner.Session)
	wantCode(t, "the owner's session after ResetTwoStep", err, adcamp.CodeUnauthorized)
	_, err = f.svc.SignInCode(ctx, step.SecondStep, "123456", "")
	wantCode(t, "a second step begun before ResetTwoStep", err, adcamp.CodeNotFound)
	in, err := f.svc.SignIn(ctx, service.SignInRequest{Email: "owner@example.com", Password: ownerPassword})
	if err != nil || in.Session == "" || in.SecondStep != "" {
		t.Fatalf("SignIn after ResetTwoStep = %+v, %v; want a session at once", in, err)
	}
	if n, _ := f.svc.RecoveryCodesLeft(as(owner.User.ID)); n != 0 {
		t.Errorf("%d recovery codes left after ResetTwoStep, want 0", n)
	}
	_, err = f.svc.ResetTwoStep(admin, "owner@example.com")
	wantCode(t, "ResetTwoStep when it is off", err, adcamp.CodeConflict, "off")

	for _, a := range []string{acc, other.ID} {
		recs, _, err := f.svc.ListChanges(admin, adcamp.Tenant{AccountID: a}, adcamp.ChangeFilter{EntityType: adcamp.EntityMember})
		if err != nil || len(recs) == 0 {
			t.Fatalf("member changes of %s = %v, %v", a, recs, err)
		}
		c := recs[0]
		if c.Operation != adcamp.OpUpdate || c.EntityID != owner.User.ID || c.Actor != (adcamp.Actor{Type: adcamp.ActorAdmin, ID: "root"}) ||
			len(c.Changes) != 1 || c.Changes[0].Field != "two_step" || *c.Changes[0].Old != "true" || *c.Changes[0].New != "false" {
			t.Errorf("the latest member change of %s = %+v, want two_step true → false by the operator", a, c)
		}
	}
}
