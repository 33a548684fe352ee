package service_test

import (
	"testing"

	"github.com/adcamp/adcamp"
)

// TestPasswordLinkInvites: a set-password link tells its holder which
// account they are invited to, with which role, and by whom; a link that
// does not work tells nothing.
func TestPasswordLinkInvites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	acc, owner := f.setup()
	inv, err := f.svc.AddMember(as(owner.User.ID), acc, "dev@example.com", adcamp.RoleDeveloper)
	if err != nil {
		t.Fatal(err)
	}
	u, invites, err := f.svc.PasswordLinkInvites(ctx, inv.Token)
	if err != nil || u.Email != "dev@example.com" || len(invites) != 1 {
		t.Fatalf("PasswordLinkInvites = %+v, %+v, %v", u, invites, err)
	}
	if got := invites[0]; got.Account.ID != acc || got.Account.Name != "Acme" || got.Role != adcamp.RoleDeveloper || got.By != "owner@example.com" {
		t.Errorf("the invitation says %+v, want Acme, developer, by owner@example.com", got)
	}
	// A role changed since: the role now, the one who added them still.
	if _, err := f.svc.SetMemberRole(as(owner.User.ID), acc, u.ID, adcamp.RoleViewer); err != nil {
		t.Fatal(err)
	}
	if _, invites, _ := f.svc.PasswordLinkInvites(ctx, inv.Token); len(invites) != 1 || invites[0].Role != adcamp.RoleViewer || invites[0].By != "owner@example.com" {
		t.Errorf("after a change of role the invitation says %+v", invites)
	}
	// An operator's invitation.
	op, err := f.svc.AddMember(admin, acc, "ops@example.com", adcamp.RoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	_, invites, err = f.svc.PasswordLinkInvites(ctx, op.Token)
	if err != nil || len(invites) != 1 || invites[0].Account.ID != acc || invites[0].Role != adcamp.RoleOwner || invites[0].By != "an operator" {
		t.Errorf("an operator's invitation says %+v, %v", invites, err)
	}
	_, _, err = f.svc.PasswordLinkInvites(ctx, "not a token")
	wantCode(t, "PasswordLinkInvites(a wrong token)", err, adcamp.CodeNotFound)
}
