package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/adcamp/adcamp"
)

// Handler tests of what a hostile user tries: links that are not theirs
// to have, redirects to other sites, malformed forms.

// TestNoLinkForAnotherAccountsInvitee: the owner of account A who adds a
// user that account B invited, who has no password yet, is shown no
// set-password link for them, on adding or from "new link"; B's link
// keeps working.
func TestNoLinkForAnotherAccountsInvitee(t *testing.T) {
	e := newEnv(t)
	ownerA, a := e.owner()
	b, err := e.svc.CreateAccount(admin, "B", "")
	if err != nil {
		t.Fatal(err)
	}
	ownerB, _ := e.member(b.ID, "owner@b.example", adcamp.RoleOwner)
	p := ownerB.post("/accounts/"+b.ID+"/members/new", url.Values{"email": {"cfo@b.example"}, "role": {"owner"}}).wantStatus(200)
	linkB, _ := url.Parse(p.text("#v-link"))
	if !strings.Contains(linkB.RequestURI(), "/set-password?token=") {
		t.Fatalf("B's owner is shown %q, want a set-password link", p.text("#v-link"))
	}

	members := "/accounts/" + a + "/members"
	p = ownerA.post(members+"/new", url.Values{"email": {"cfo@b.example"}, "role": {"viewer"}}).wantStatus(200)
	p.wantText(".notice", "They see the account the next time they sign in")
	if p.has("#v-link") || strings.Contains(p.body, "set-password?token=") {
		t.Errorf("A's owner, adding B's invitee, is shown a link at %s", p.url)
	}
	cfo := e.userID(a, "cfo@b.example")
	p = ownerA.post(members+"/"+cfo+"/link", nil).wantStatus(http.StatusForbidden).wantText(".alert", "Only an operator")
	if p.has("#v-link") || strings.Contains(p.body, "set-password?token=") {
		t.Error("A's owner is shown a new link for B's invitee")
	}
	invited := e.client()
	invited.get(linkB.RequestURI()).wantStatus(200).wantText("main", "cfo@b.example")
	const pw = "the finance chief's passphrase"
	invited.post(linkB.RequestURI(), url.Values{"password": {pw}, "password_again": {pw}}).wantStatus(200)
	invited.get(members).wantStatus(200).wantText("tbody", "cfo@b.example")
}
