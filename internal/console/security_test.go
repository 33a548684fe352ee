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

// TestSignInRedirectStaysLocal: after sign-in the console goes back to
// next only if it is a path of its own; anything a browser could take to
// another host (control characters it strips, backslashes it reads as
// slashes, a scheme, a host, encoded slashes) goes to the home page.
func TestSignInRedirectStaysLocal(t *testing.T) {
	e := newEnv(t)
	e.owner()
	base, _ := url.Parse(e.console.URL)
	signIn := func(next string) string {
		t.Helper()
		form := url.Values{"email": {ownerEmail}, "password": {ownerPassword}, "next": {next}}
		req, _ := http.NewRequest("POST", e.console.URL+"/sign-in", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		// The transport alone: a client would refuse to read some of
		// these Locations, where a browser follows them.
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in with next=%q answered %d, want 303", next, resp.StatusCode)
		}
		return resp.Header.Get("Location")
	}
	for _, c := range []struct{ next, want string }{
		{"/settings", "/settings"},
		{"/accounts/acc_1/sandbox/campaigns?status=paused&page=2", "/accounts/acc_1/sandbox/campaigns?status=paused&page=2"},
		{"/javascript:alert(1)", "/javascript:alert(1)"}, // a path of the console
		{"", "/"},
		{"//evil.example/", "/"},
		{"///evil.example/", "/"},
		{"/\\evil.example/", "/"},
		{"\\\\evil.example/", "/"},
		{"/\t/evil.example/", "/"},
		{"/\t\\evil.example/", "/"},
		{"\t//evil.example/", "/"},
		{"/\n/evil.example/", "/"},
		{"/\r\n/evil.example/", "/"},
		{" //evil.example/", "/"},
		{"/\x00/evil.example/", "/"},
		{"/\x7f/evil.example/", "/"},
		{"/\u0085/evil.example/", "/"}, // a C1 control
		{"/\u200b/evil.example/", "/"}, // zero-width space
		{"/\u202e/evil.example/", "/"}, // right-to-left override
		{"/\ufeff/evil.example/", "/"},
		{"/%09/evil.example/", "/"},
		{"/%0a/evil.example/", "/"},
		{"/%2F%2Fevil.example/", "/"},
		{"/%2f/evil.example/", "/"},
		{"/%5Cevil.example/", "/"},
		{"%2F%2Fevil.example/", "/"},
		{"https://evil.example/", "/"},
		{"http:evil.example", "/"},
		{"https:/evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"JaVaScRiPt:alert(1)", "/"},
		{"data:text/html,<script>alert(1)</script>", "/"},
		{"evil.example", "/"},
		{"／／evil.example/", "/"}, // fullwidth solidi
		{"/@evil.example", "/@evil.example"},
		{"/%zz", "/"},
	} {
		got := signIn(c.next)
		if got != c.want {
			t.Errorf("sign-in with next=%q: Location %q, want %q", c.next, got, c.want)
		}
		// Whatever it is, a browser must read it as the console's.
		read := strings.ReplaceAll(strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, got), "\\", "/")
		if u, err := base.Parse(read); err != nil || u.Host != base.Host {
			t.Errorf("sign-in with next=%q: Location %q leads to %v (%v), off the console", c.next, got, u, err)
		}
	}
	// The sign-in form carries next only if it is local.
	c := e.client()
	for _, next := range []string{"/\t/evil.example/", "/\\evil.example", "https://evil.example/"} {
		p := c.get("/sign-in?next=" + url.QueryEscape(next)).wantStatus(200)
		if v, _ := p.doc.Find(`input[name="next"]`).Attr("value"); v != "" {
			t.Errorf("the sign-in form for next=%q carries next=%q", next, v)
		}
	}
}
