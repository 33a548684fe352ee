package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pquerna/otp/totp"

	"github.com/adcamp/adcamp"
)

// Handler tests of what a hostile user tries: links that are not theirs
// to have, redirects to other sites, malformed forms.

// TestNoLinkForAnotherAccountsInvitee: the owner of account A who adds a
// user that account B invited, who has no password yet, is shown no
// set-password link for them, on adding or from "new link"; B's link
// keeps working.
func TestNoLinkForAnotherAccountsInvitee(t *testing.T) {
	t.Parallel()
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
// next only if it is a path of its own (the whole table of hostile values
// is in TestSignInRedirect, without the cost of a password each); the
// sign-in form carries no other.
func TestSignInRedirectStaysLocal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.owner()
	for _, c := range []struct{ next, want string }{
		{"/settings", "/settings"},
		{"/\t/evil.example/", "/"},
		{"/\\evil.example/", "/"},
		{"/%09/evil.example/", "/"},
		{"https://evil.example/", "/"},
	} {
		form := url.Values{"email": {ownerEmail}, "password": {ownerPassword}, "next": {c.next}}
		req, _ := http.NewRequest("POST", e.console.URL+"/sign-in", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		// The transport alone: a client would refuse to read some of
		// these Locations, where a browser follows them.
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || got != c.want {
			t.Errorf("sign-in with next=%q = %d, Location %q; want 303, %q", c.next, resp.StatusCode, got, c.want)
		}
	}
	c := e.client()
	for _, next := range []string{"/\t/evil.example/", "/\\evil.example", "https://evil.example/"} {
		p := c.get("/sign-in?next=" + url.QueryEscape(next)).wantStatus(200)
		if v, _ := p.doc.Find(`input[name="next"]`).Attr("value"); v != "" {
			t.Errorf("the sign-in form for next=%q carries next=%q", next, v)
		}
	}
}

// TestSignOutClearsSiteData: the answers to Sign out and Sign out
// everywhere ask the browser to clear the console's cookies and cache,
// and the sign-in page they lead to loads a stylesheet whose answer asks
// again for the cache (which then holds the page signed out from: see
// the browser test TestBrowserBackAfterSignOut).
func TestSignOutClearsSiteData(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.owner()
	for _, path := range []string{"/sign-out", "/settings/sign-out-everywhere"} {
		c.post("/sign-in", url.Values{"email": {ownerEmail}, "password": {ownerPassword}}).wantStatus(200)
		base, _ := url.Parse(e.console.URL)
		req, _ := http.NewRequest("POST", e.console.URL+path, strings.NewReader(""))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for _, k := range c.http.Jar.Cookies(base) {
			req.AddCookie(k)
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Clear-Site-Data"); resp.StatusCode != http.StatusSeeOther || got != `"cache", "cookies"` {
			t.Errorf("POST %s = %d with Clear-Site-Data %q, want 303 with \"cache\", \"cookies\"", path, resp.StatusCode, got)
		}
		p := c.get(resp.Header.Get("Location")).wantStatus(200).wantText("h1", "Sign in")
		css, ok := p.doc.Find(`link[rel="stylesheet"][href="/signed-out.css"]`).Attr("href")
		if !ok {
			t.Fatalf("the sign-in page after %s loads no stylesheet that clears the cache", path)
		}
		if s := c.get(css).wantStatus(200); s.header.Get("Clear-Site-Data") != `"cache"` || !strings.HasPrefix(s.header.Get("Content-Type"), "text/css") {
			t.Errorf("GET %s: Clear-Site-Data %q, Content-Type %q; want \"cache\", text/css", css, s.header.Get("Clear-Site-Data"), s.header.Get("Content-Type"))
		}
	}
	if e.client().get("/sign-in").has(`link[href="/signed-out.css"]`) {
		t.Error("the sign-in page clears the cache when no one signed out")
	}
}

// TestTwoStepNeedsPassword: turning on two-step sign-in asks for the
// password, as turning it off does: a borrowed session is not enough to
// bind an authenticator.
func TestTwoStepNeedsPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.owner()
	p := c.post("/settings/two-step", nil).wantStatus(200)
	if !p.has(`form[action="/settings/two-step/enable"] #f-password[type="password"]`) {
		t.Error("the form that turns on two-step sign-in asks for no password")
	}
	secret := p.text("#v-totp")
	token, _ := p.doc.Find(`input[name="token"]`).Attr("value")
	code, _ := totp.GenerateCode(secret, e.clock.Now())
	for _, pw := range []string{"", "not the password"} {
		p = c.post("/settings/two-step/enable", url.Values{"token": {token}, "code": {code}, "password": {pw}})
		p.wantStatus(http.StatusUnprocessableEntity).wantFieldError("password", "password")
		if p.text("#v-totp") != secret {
			t.Errorf("after a refusal the page shows key %q, want the same key %q", p.text("#v-totp"), secret)
		}
	}
	c.get("/settings").wantText("#h-two-step + p", "Off")
	p = c.post("/settings/two-step/enable", url.Values{"token": {token}, "code": {code}, "password": {ownerPassword}}).wantStatus(200)
	if n := p.doc.Find("#v-codes li").Length(); n != 10 {
		t.Errorf("%d recovery codes shown, want 10", n)
	}
	c.get("/settings").wantText("#h-two-step + p", "On")
}
