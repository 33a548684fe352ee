package service_test

import (
	"strings"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// Set-password links: a link signs in as its user in every account they
// belong to, so it is made only for someone entitled to all of them.

// invitee is a user whom the owner of account B invited, who has no
// password yet, beside account A of the setup.
type invitee struct {
	a, b           string // the accounts
	ownerA, ownerB string // their owners' user ids
	id             string // the invitee's user id
	email          string
	link           string // B's invitation
}

func (f *fixture) invitee() invitee {
	f.t.Helper()
	a, oa := f.setup()
	acc, err := f.svc.CreateAccount(admin, "B", "")
	if err != nil {
		f.t.Fatal(err)
	}
	ob := f.member(acc.ID, "owner@b.example", adcamp.RoleOwner)
	inv, err := f.svc.AddMember(as(ob.User.ID), acc.ID, "cfo@b.example", adcamp.RoleOwner)
	if err != nil || inv.Token == "" {
		f.t.Fatalf("B's owner invites cfo@b.example = %+v, %v; want a link", inv, err)
	}
	return invitee{a: a, b: acc.ID, ownerA: oa.User.ID, ownerB: ob.User.ID, id: inv.Member.User.ID,
		email: "cfo@b.example", link: inv.Token}
}

// wantLinkValid checks that the set-password link token is still for
// user id.
func (f *fixture) wantLinkValid(call, token, id string) {
	f.t.Helper()
	if u, err := f.svc.PasswordLinkUser(ctx, token); err != nil || u.ID != id {
		f.t.Errorf("%s: the invitation link = %+v, %v; want it still valid", call, u, err)
	}
}

// TestNoLinkForAnotherAccountsInvitee: the owner of account A who adds a
// user that account B invited, who has no password yet, gets no link for
// them (on adding, nor later from "new link"), and B's invitation keeps
// working; once the user sets their password through it, they see both
// accounts.
func TestNoLinkForAnotherAccountsInvitee(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.invitee()

	inv, err := f.svc.AddMember(as(in.ownerA), in.a, "CFO@b.example", adcamp.RoleViewer)
	if err != nil || inv.Token != "" || !inv.PendingElsewhere || inv.Member.User.ID != in.id {
		t.Fatalf("A's owner adds B's invitee = %+v, %v; want the member, no link, pending elsewhere", inv, err)
	}
	f.wantLinkValid("after A's owner added B's invitee", in.link, in.id)
	_, err = f.svc.NewInvitation(as(in.ownerA), in.a, in.id)
	wantCode(t, "A's owner asks for a new link for B's invitee", err, adcamp.CodeForbidden, "operator")
	// Nor may B's owner now: their link would open account A too.
	_, err = f.svc.NewInvitation(as(in.ownerB), in.b, in.id)
	wantCode(t, "B's owner asks for a new link once A added them", err, adcamp.CodeForbidden, "operator")
	f.wantLinkValid("after refused new links", in.link, in.id)

	signIn, err := f.svc.SetPassword(ctx, in.link, "the finance chief's passphrase")
	if err != nil || signIn.User.ID != in.id {
		t.Fatalf("SetPassword(B's link) = %+v, %v", signIn, err)
	}
	if accs, err := f.svc.Accounts(as(in.id)); err != nil || len(accs) != 2 {
		t.Errorf("the invitee's accounts = %+v, %v; want A and B", accs, err)
	}
}

// TestLinkPaths: every call that makes a set-password link, and when it
// may.
func TestLinkPaths(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		// do makes the call, as who, on the invitee of f.invitee; it
		// returns the invitation.
		do       func(f *fixture, in invitee) (*service.Invitation, error)
		wantLink bool
		wantCode adcamp.Code // of a refusal
	}{
		{"console: a new user", func(f *fixture, in invitee) (*service.Invitation, error) {
			return f.svc.AddMember(as(in.ownerA), in.a, "new@a.example", adcamp.RoleDeveloper)
		}, true, ""},
		{"console: another account's invitee", func(f *fixture, in invitee) (*service.Invitation, error) {
			return f.svc.AddMember(as(in.ownerA), in.a, in.email, adcamp.RoleDeveloper)
		}, false, ""},
		{"console: an invitee of an account the owner owns too", func(f *fixture, in invitee) (*service.Invitation, error) {
			if _, err := f.svc.AddMember(admin, in.b, "owner@example.com", adcamp.RoleOwner); err != nil {
				return nil, err
			}
			return f.svc.AddMember(as(in.ownerA), in.a, in.email, adcamp.RoleDeveloper)
		}, true, ""},
		{"console: an invitee removed from the account that invited them", func(f *fixture, in invitee) (*service.Invitation, error) {
			if _, err := f.svc.RemoveMember(as(in.ownerB), in.b, in.id); err != nil {
				return nil, err
			}
			return f.svc.AddMember(as(in.ownerA), in.a, in.email, adcamp.RoleDeveloper)
		}, true, ""},
		{"console: new link, invited here only", func(f *fixture, in invitee) (*service.Invitation, error) {
			return f.svc.NewInvitation(as(in.ownerB), in.b, in.id)
		}, true, ""},
		{"console: new link, invited elsewhere too", func(f *fixture, in invitee) (*service.Invitation, error) {
			if _, err := f.svc.AddMember(admin, in.a, in.email, adcamp.RoleViewer); err != nil {
				return nil, err
			}
			return f.svc.NewInvitation(as(in.ownerB), in.b, in.id)
		}, false, adcamp.CodeForbidden},
		{"console: new link, invited elsewhere, by an owner of both", func(f *fixture, in invitee) (*service.Invitation, error) {
			if _, err := f.svc.AddMember(admin, in.a, "owner@b.example", adcamp.RoleOwner); err != nil {
				return nil, err
			}
			if _, err := f.svc.AddMember(admin, in.a, in.email, adcamp.RoleViewer); err != nil {
				return nil, err
			}
			return f.svc.NewInvitation(as(in.ownerB), in.b, in.id)
		}, true, ""},
		{"operator: users create, a new user", func(f *fixture, in invitee) (*service.Invitation, error) {
			return f.svc.AddMember(admin, in.a, "new@a.example", adcamp.RoleViewer)
		}, true, ""},
		{"operator: users create, another account's invitee", func(f *fixture, in invitee) (*service.Invitation, error) {
			return f.svc.AddMember(admin, in.a, in.email, adcamp.RoleViewer)
		}, false, ""},
		{"operator: users reset-password", func(f *fixture, in invitee) (*service.Invitation, error) {
			return f.svc.PasswordLink(admin, in.email)
		}, true, ""},
		{"console: reset-password", func(f *fixture, in invitee) (*service.Invitation, error) {
			return f.svc.PasswordLink(as(in.ownerB), in.email)
		}, false, adcamp.CodeForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			in := f.invitee()
			inv, err := c.do(f, in)
			if c.wantCode != "" {
				wantCode(t, c.name, err, c.wantCode)
				f.wantLinkValid(c.name, in.link, in.id)
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if got := inv.Token != ""; got != c.wantLink {
				t.Fatalf("%s made a link: %v, want %v (%+v)", c.name, got, c.wantLink, inv)
			}
			if !c.wantLink {
				f.wantLinkValid(c.name, in.link, in.id)
				return
			}
			// The link works, once, for the user it names.
			u, err := f.svc.PasswordLinkUser(ctx, inv.Token)
			if err != nil || u.ID != inv.Member.User.ID {
				t.Fatalf("%s: its link is for %+v (%v), want %s", c.name, u, err, inv.Member.User.Email)
			}
		})
	}
}

// TestConsoleURL: the console's address serve records, read back for the
// links of the command line.
func TestConsoleURL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if u, err := f.svc.ConsoleURL(ctx); u != "" || err != nil {
		t.Errorf("ConsoleURL before any = %q, %v; want none", u, err)
	}
	for _, bad := range []string{"", "console.example.com", "ftp://console.example.com", "https://"} {
		wantIssue(t, "SetConsoleURL("+bad+")", f.svc.SetConsoleURL(ctx, bad), "console-url")
	}
	for _, u := range []string{"http://127.0.0.1:39123", "https://console.example.com/"} {
		if err := f.svc.SetConsoleURL(ctx, u); err != nil {
			t.Fatal(err)
		}
		if got, err := f.svc.ConsoleURL(ctx); got != strings.TrimSuffix(u, "/") || err != nil {
			t.Errorf("ConsoleURL after SetConsoleURL(%s) = %q, %v", u, got, err)
		}
	}
}
