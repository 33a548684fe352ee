package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/pquerna/otp/totp"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// Handler tests: every form, without a browser, by CSS selector.

func TestSetupPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client()
	c.get("/setup?token=wrong").wantStatus(404).wantText("main", "not valid")
	link := e.setupLink()
	p := c.get(link).wantStatus(200)
	for _, f := range []string{"account_name", "email", "password", "password_again"} {
		if !p.has(`label[for="f-`+f+`"]`) || !p.has("#f-"+f) {
			t.Errorf("the setup form has no labelled field %s", f)
		}
	}
	p = c.post(link, url.Values{"account_name": {""}, "email": {"not an email"}, "password": {"short"}, "password_again": {"short"}})
	p.wantStatus(http.StatusUnprocessableEntity).wantText(".alert", "Some fields")
	p.wantFieldError("account_name", "Enter a name for the account.").wantFieldError("email", "Enter an email address, such as ann@example.com.").
		wantFieldError("password", "Use at least 12 characters.")
	if v, _ := p.doc.Find("#f-email").Attr("value"); v != "not an email" {
		t.Errorf("the email typed is not shown again: %q", v)
	}
	if v, ok := p.doc.Find("#f-password").Attr("value"); ok {
		t.Errorf("a password is shown again: %q", v)
	}
	c.post(link, url.Values{"account_name": {"Acme"}, "email": {ownerEmail}, "password": {ownerPassword}, "password_again": {"another"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("password_again", "differ")
	p = c.post(link, url.Values{"account_name": {"Acme"}, "email": {ownerEmail}, "password": {ownerPassword}, "password_again": {ownerPassword}})
	p.wantStatus(200).wantText("h1", "API keys").wantText(".context", "Acme")
	c.get(link).wantStatus(404)
}

// TestSessionCookie: HttpOnly and SameSite=Lax; under TLS, Secure with the
// __Host- prefix. Sign-in gives a new session id, whatever the browser
// sent.
func TestSessionCookie(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		opts   []envOption
		cookie string
		secure bool
	}{{"http", nil, "adcamp_session", false}, {"https", []envOption{secure}, "__Host-adcamp_session", true}} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.opts...)
			e.owner()
			form := url.Values{"email": {ownerEmail}, "password": {ownerPassword}}
			req, _ := http.NewRequest("POST", e.console.URL+"/sign-in", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.AddCookie(&http.Cookie{Name: c.cookie, Value: "chosen-by-an-attacker"})
			resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			var got *http.Cookie
			for _, k := range resp.Cookies() {
				if k.Name == c.cookie {
					got = k
				}
			}
			switch {
			case resp.StatusCode != http.StatusSeeOther || got == nil:
				t.Fatalf("sign-in = %d with cookies %v, want 303 and %s", resp.StatusCode, resp.Cookies(), c.cookie)
			case !got.HttpOnly || got.SameSite != http.SameSiteLaxMode || got.Secure != c.secure || got.Path != "/" || got.Domain != "":
				t.Errorf("cookie %+v: want HttpOnly, SameSite=Lax, Secure=%v, Path=/, no Domain", got, c.secure)
			case got.Value == "chosen-by-an-attacker" || len(got.Value) < 40:
				t.Errorf("the session id after sign-in is %q, want a new random one", got.Value)
			}
		})
	}
}

func TestSignInPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.owner()
	c := e.client()
	c.get("/accounts").wantStatus(200).wantText("h1", "Sign in") // sent to sign in
	p := c.post("/sign-in", url.Values{"email": {ownerEmail}, "password": {"not the password"}})
	p.wantStatus(http.StatusUnauthorized).wantText(".alert", "email or the password is not right")
	if v, _ := p.doc.Find("#f-email").Attr("value"); v != ownerEmail {
		t.Errorf("the email is not kept: %q", v)
	}
	unknown := c.post("/sign-in", url.Values{"email": {"nobody@example.com"}, "password": {"not the password"}})
	if unknown.status != p.status || unknown.text(".alert") != p.text(".alert") {
		t.Errorf("an unknown email is answered %d %q, a wrong password %d %q: they must not differ",
			unknown.status, unknown.text(".alert"), p.status, p.text(".alert"))
	}
	// Back where the user was going, but never to another site.
	c.post("/sign-in", url.Values{"email": {ownerEmail}, "password": {ownerPassword}, "next": {"/settings"}}).
		wantStatus(200).wantText("h1", "Your settings")
	c.post("/sign-out", nil).wantStatus(200).wantText(".notice", "signed out")
	p = c.post("/sign-in", url.Values{"email": {ownerEmail}, "password": {ownerPassword}, "next": {"//evil.example/"}})
	if !strings.HasPrefix(p.url, "/accounts/") {
		t.Errorf("sign-in with next=//evil.example ended at %s, want the console", p.url)
	}
}

// TestSignInThrottled: the eleventh wrong password within 15 minutes is
// refused with a clear wait, even with the right password, and the same
// for an email nobody has.
func TestSignInThrottled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.owner()
	for _, email := range []string{ownerEmail, "nobody@example.com"} {
		c := e.client()
		for range service.SignInLimitPerEmail {
			c.post("/sign-in", url.Values{"email": {email}, "password": {"a wrong guess"}}).wantStatus(http.StatusUnauthorized)
		}
		p := c.post("/sign-in", url.Values{"email": {email}, "password": {ownerPassword}})
		p.wantStatus(http.StatusTooManyRequests).wantText(".alert", "Too many failed attempts").wantText(".alert", "Wait 15 minutes")
	}
}

func TestSignOutEverywhere(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first, acc := e.owner()
	second := e.client()
	second.post("/sign-in", url.Values{"email": {ownerEmail}, "password": {ownerPassword}}).wantStatus(200)
	second.post("/settings/sign-out-everywhere", nil).wantStatus(200).wantText(".notice", "signed out everywhere")
	for _, c := range []*client{first, second} {
		c.get("/accounts/"+acc+"/api-keys").wantStatus(200).wantText("h1", "Sign in")
	}
}

func TestChangePasswordPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	other := e.client()
	other.post("/sign-in", url.Values{"email": {ownerEmail}, "password": {ownerPassword}}).wantStatus(200)
	const next = "another calm passphrase"
	c.post("/settings/password", url.Values{"current_password": {"wrong one here"}, "new_password": {next}, "new_password_again": {next}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("current_password", "That is not your current password.")
	c.post("/settings/password", url.Values{"current_password": {ownerPassword}, "new_password": {next}, "new_password_again": {"typo"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("new_password_again", "differ")
	c.post("/settings/password", url.Values{"current_password": {ownerPassword}, "new_password": {"qwerty123456"}, "new_password_again": {"qwerty123456"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("new_password", "common")
	c.post("/settings/password", url.Values{"current_password": {ownerPassword}, "new_password": {next}, "new_password_again": {next}}).
		wantStatus(200).wantText(".notice", "password was changed")
	c.get("/accounts/"+acc+"/api-keys").wantStatus(200).wantText("h1", "API keys")
	other.get("/accounts/"+acc+"/api-keys").wantText("h1", "Sign in")
}

// TestKeyLifecycle: create a sandbox key, see its secret once, disable,
// enable, roll and delete it, each confirmed.
func TestKeyLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	keys := "/accounts/" + acc + "/api-keys"
	p := c.get(keys).wantStatus(200)
	if !p.has(`a[href="`+keys+`/new?environment=sandbox"]`) || !p.has(`a[href="`+keys+`/new?environment=production"]`) {
		t.Error("an owner sees no link to create a key of each environment")
	}
	c.get(keys + "/new?environment=staging").wantStatus(404)
	c.post(keys+"/new", url.Values{"environment": {"sandbox"}, "name": {strings.Repeat("x", 101)}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("name", "at most 100")
	p = c.post(keys+"/new", url.Values{"environment": {"sandbox"}, "name": {"CI"}}).wantStatus(200)
	secretURL := p.url
	key, secret := p.text("#v-key"), p.text("#v-secret")
	if !strings.HasPrefix(key, "ak_test_") || !strings.HasPrefix(secret, "sk_test_") || !p.has(".warning") {
		t.Fatalf("the new key's page shows key %q, secret %q; want both, and a warning", key, secret)
	}
	if e.signedRequest(adcamp.Sandbox, key, secret) != 200 {
		t.Error("the new key does not sign a request")
	}
	again := c.get(secretURL).wantStatus(http.StatusGone).wantText("h1", "shown already")
	if strings.Contains(again.body, secret) {
		t.Error("the secret is shown a second time")
	}
	p = c.get(keys).wantStatus(200)
	card := p.doc.Find(".key").FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), key) })
	if card.Length() != 1 || !strings.Contains(card.Text(), "CI") || !strings.Contains(card.Text(), "by "+ownerEmail) ||
		card.Find("svg.chart rect").Length() != service.ChartDays || strings.Contains(p.body, secret) {
		t.Errorf("the key's card: %q; want its name, creator and a bar a day, and no secret", strings.Join(strings.Fields(card.Text()), " "))
	}

	c.get(keys+"/"+key+"/disable").wantStatus(200).wantText("h1", "Disable this API key?")
	c.post(keys+"/"+key+"/disable", nil).wantStatus(200).wantText(".notice", "disabled")
	if e.signedRequest(adcamp.Sandbox, key, secret) != 401 {
		t.Error("a disabled key still signs requests")
	}
	c.post(keys+"/"+key+"/enable", nil).wantStatus(200).wantText(".notice", "enabled")
	c.post(keys+"/"+key+"/roll", url.Values{"grace": {"forever"}}).wantStatus(http.StatusUnprocessableEntity)
	p = c.post(keys+"/"+key+"/roll", url.Values{"grace": {"1h"}}).wantStatus(200).wantText("main", "old secret keeps working until")
	rolled := p.text("#v-secret")
	if rolled == secret || e.signedRequest(adcamp.Sandbox, key, rolled) != 200 || e.signedRequest(adcamp.Sandbox, key, secret) != 200 {
		t.Error("after a roll with an hour of grace, the new and the old secret must both work")
	}
	c.get(keys+"/"+key+"/delete").wantStatus(200).wantText("button[type=submit]", "Delete the key")
	c.post(keys+"/"+key+"/delete", nil).wantStatus(200).wantText(".notice", "deleted")
	c.get(keys + "/" + key + "/delete").wantStatus(404)
	c.post(keys+"/ak_test_nosuchkey/disable", nil).wantStatus(404)
}

// TestProductionKeyNeedsPassword: creating or rolling a production key
// asks for the password again.
func TestProductionKeyNeedsPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	keys := "/accounts/" + acc + "/api-keys"
	if !c.get(keys + "/new?environment=production").has("#f-confirm") {
		t.Error("the production key form has no password field")
	}
	c.post(keys+"/new", url.Values{"environment": {"production"}, "name": {"Live"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("confirm", "Enter your password (or a current code of your authenticator app): a production key needs it.")
	// The message is written whole, not made of the field's label.
	c.post(keys+"/new", url.Values{"environment": {"production"}, "name": {"Live"}, "confirm": {"a wrong password"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("confirm", "That is not your password.")
	if n := len(e.keys(acc)); n != 0 {
		t.Fatalf("%d keys after refused creations, want 0", n)
	}
	p := c.post(keys+"/new", url.Values{"environment": {"production"}, "name": {"Live"}, "confirm": {ownerPassword}}).wantStatus(200)
	key := p.text("#v-key")
	if !strings.HasPrefix(key, "ak_live_") {
		t.Fatalf("production key = %q", key)
	}
	c.post(keys+"/"+key+"/roll", url.Values{"grace": {"0"}}).wantStatus(http.StatusUnprocessableEntity).wantFieldError("confirm", "password")
	c.post(keys+"/"+key+"/roll", url.Values{"grace": {"0"}, "confirm": {ownerPassword}}).wantStatus(200).wantText("main", "old secret has stopped working")
}

// TestRoles: a viewer cannot create or change keys, by the page or by a
// hand-made POST; a developer can for the sandbox only; neither manages
// members.
func TestRoles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, acc := e.owner()
	keys := "/accounts/" + acc + "/api-keys"
	owner.post(keys+"/new", url.Values{"environment": {"sandbox"}, "name": {"Shared"}}).wantStatus(200)
	sandboxKey := e.keys(acc)[0].ID
	viewer, _ := e.member(acc, "viewer@example.com", adcamp.RoleViewer)
	dev, _ := e.member(acc, "dev@example.com", adcamp.RoleDeveloper)

	p := viewer.get(keys).wantStatus(200)
	if p.has(`a[href*="/new"]`) || p.has(`a[href$="/disable"]`) || p.has(`a[href$="/delete"]`) {
		t.Error("a viewer sees links to create or change keys")
	}
	p = viewer.get(keys+"/new?environment=sandbox").wantStatus(http.StatusForbidden).wantText(".alert", "As a viewer")
	if p.has("form #f-name") {
		t.Error("a viewer is shown the form to create a key")
	}
	viewer.post(keys+"/new", url.Values{"environment": {"sandbox"}, "name": {"sneaky"}}).wantStatus(http.StatusForbidden)
	viewer.post(keys+"/"+sandboxKey+"/disable", nil).wantStatus(http.StatusForbidden)
	viewer.post(keys+"/"+sandboxKey+"/delete", nil).wantStatus(http.StatusForbidden)

	dev.post(keys+"/new", url.Values{"environment": {"production"}, "name": {"sneaky"}, "confirm": {"the passphrase of dev@example.com"}}).
		wantStatus(http.StatusForbidden).wantText(".alert", "production")
	if !dev.get(keys).has(`a[href="` + keys + `/new?environment=sandbox"]`) {
		t.Error("a developer sees no link to create a sandbox key")
	}
	dev.post(keys+"/new", url.Values{"environment": {"sandbox"}, "name": {"Dev's"}}).wantStatus(200)
	if n := len(e.keys(acc)); n != 2 {
		t.Errorf("%d keys, want 2 (the owner's and the developer's)", n)
	}
	if e.keys(acc)[0].Disabled {
		t.Error("a viewer's POST disabled a key")
	}
	members := "/accounts/" + acc + "/members"
	dev.post(members+"/new", url.Values{"email": {"friend@example.com"}, "role": {"owner"}}).wantStatus(http.StatusForbidden)
	viewer.post(members+"/"+e.userID(acc, "viewer@example.com")+"/role", url.Values{"role": {"owner"}}).wantStatus(http.StatusForbidden)
	if viewer.get(members).has("select") {
		t.Error("a viewer sees the role selectors")
	}
}

// userID finds a member's user id by email.
func (e *testEnv) userID(accountID, email string) string {
	e.t.Helper()
	ms, err := e.svc.Members(admin, accountID)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, m := range ms {
		if m.User.Email == email {
			return m.User.ID
		}
	}
	e.t.Fatalf("no member %s", email)
	return ""
}

// TestAnotherAccount: another account's ids are answered as missing, and
// nothing of theirs changes.
func TestAnotherAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner, acc := e.owner()
	other, err := e.svc.CreateAccount(ctx, "Other", "")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := e.svc.CreateKey(admin, other.ID, adcamp.Sandbox)
	if err != nil {
		t.Fatal(err)
	}
	stranger, _ := e.member(other.ID, "stranger@example.com", adcamp.RoleOwner)
	for _, path := range []string{"/accounts/" + other.ID + "/api-keys", "/accounts/" + other.ID + "/members",
		"/accounts/" + acc + "/api-keys/" + theirs.ID + "/disable", "/accounts/acc_nosuchaccount/api-keys"} {
		owner.get(path).wantStatus(404)
	}
	owner.post("/accounts/"+acc+"/api-keys/"+theirs.ID+"/disable", nil).wantStatus(404)
	owner.post("/accounts/"+acc+"/api-keys/"+theirs.ID+"/delete", nil).wantStatus(404)
	owner.post("/accounts/"+other.ID+"/api-keys/new", url.Values{"environment": {"sandbox"}}).wantStatus(404)
	owner.post("/accounts/"+acc+"/members/"+e.userID(other.ID, "stranger@example.com")+"/remove", nil).wantStatus(404)
	if k := e.keys(other.ID); len(k) != 1 || k[0].Disabled {
		t.Errorf("the other account's keys = %+v, want its one key, enabled", k)
	}
	stranger.get("/accounts/" + acc + "/api-keys").wantStatus(404)
}

// TestCrossOriginRefused: a form posted from another site is refused,
// whether the browser says so (Sec-Fetch-Site) or only sends its Origin.
func TestCrossOriginRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	for _, h := range []map[string]string{{"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}, {"Origin": "http://evil.example"}} {
		c.header = http.Header{}
		for k, v := range h {
			c.header.Set(k, v)
		}
		c.post("/accounts/"+acc+"/api-keys/new", url.Values{"environment": {"sandbox"}, "name": {"csrf"}}).
			wantStatus(http.StatusForbidden).wantText("main", "sent from another site")
	}
	if n := len(e.keys(acc)); n != 0 {
		t.Errorf("%d keys after cross-origin posts, want 0", n)
	}
	c.header = http.Header{"Sec-Fetch-Site": {"same-origin"}}
	c.post("/accounts/"+acc+"/api-keys/new", url.Values{"environment": {"sandbox"}, "name": {"mine"}}).wantStatus(200)
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.client().get("/sign-in").wantStatus(200)
	for k, want := range map[string]string{
		"Content-Security-Policy": "frame-ancestors 'none'", "X-Frame-Options": "DENY",
		"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
	} {
		if got := p.header.Get(k); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if !strings.Contains(p.header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Error("the CSP allows scripts from elsewhere")
	}
	e.client().get("/no/such/page").wantStatus(404).wantText("h1", "Not found")
}

func TestMembersPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	members := "/accounts/" + acc + "/members"
	c.post(members+"/new", url.Values{"email": {"bad"}, "role": {"viewer"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("email", "email address")
	p := c.post(members+"/new", url.Values{"email": {"New@Example.com"}, "role": {"developer"}}).wantStatus(200)
	link := p.text("#v-link")
	if !strings.Contains(link, "/set-password?token=") {
		t.Fatalf("the invitation page shows %q, want a set-password link", link)
	}
	c.post(members+"/new", url.Values{"email": {"new@example.com"}, "role": {"viewer"}}).
		wantStatus(http.StatusConflict).wantText(".alert", "member of the account already")
	newID := e.userID(acc, "new@example.com")
	p = c.get(members).wantStatus(200).wantText("tbody", "Invited")
	if !p.has(`form[action="` + members + `/` + newID + `/link"]`) {
		t.Error("no button for a new link for an invited member")
	}
	// The invitation, used.
	invited := e.client()
	u, _ := url.Parse(link)
	invited.get(u.RequestURI()).wantStatus(200).wantText("main", "new@example.com")
	invited.post(u.RequestURI(), url.Values{"password": {"password1234"}, "password_again": {"password1234"}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("password", "common")
	invited.post(u.RequestURI(), url.Values{"password": {"a developer's phrase"}, "password_again": {"a developer's phrase"}}).
		wantStatus(200).wantText("h1", "API keys")
	invited.get(u.RequestURI()).wantStatus(404)

	c.post(members+"/"+newID+"/role", url.Values{"role": {"viewer"}}).wantStatus(200).wantText(".notice", "role was changed")
	c.post(members+"/"+newID+"/role", url.Values{"role": {"emperor"}}).wantStatus(http.StatusUnprocessableEntity)
	ownerID := e.userID(acc, ownerEmail)
	c.post(members+"/"+ownerID+"/role", url.Values{"role": {"viewer"}}).
		wantStatus(http.StatusConflict).wantText(".alert", "only owner")
	c.post(members+"/"+ownerID+"/remove", nil).wantStatus(http.StatusConflict).wantText(".alert", "only owner")
	c.get(members+"/"+newID+"/remove").wantStatus(200).wantText("h1", "Remove new@example.com?")
	c.post(members+"/"+newID+"/remove", nil).wantStatus(200).wantText(".notice", "removed")
	invited.get("/accounts/" + acc + "/api-keys").wantStatus(404)
	c.post(members+"/usr_nosuchuser/remove", nil).wantStatus(404)
}

// TestTwoStepPages: turning on two-step sign-in, then signing in with a
// code.
func TestTwoStepPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.owner()
	p := c.post("/settings/two-step", nil).wantStatus(200)
	secret := p.text("#v-totp")
	if src, _ := p.doc.Find("img.qr").Attr("src"); !strings.HasPrefix(src, "data:image/png;base64,") || secret == "" {
		t.Fatalf("the setup page shows key %q and QR %.40q", secret, src)
	}
	token, _ := p.doc.Find(`input[name="token"]`).Attr("value")
	c.post("/settings/two-step/enable", url.Values{"token": {token}, "code": {"000000"}, "password": {ownerPassword}}).
		wantStatus(http.StatusUnprocessableEntity).wantFieldError("code", "not the code")
	code, _ := totp.GenerateCode(secret, e.clock.Now())
	p = c.post("/settings/two-step/enable", url.Values{"token": {token}, "code": {code}, "password": {ownerPassword}}).wantStatus(200)
	if n := p.doc.Find("#v-codes li").Length(); n != 10 {
		t.Errorf("%d recovery codes shown, want 10", n)
	}
	recovery := p.text("#v-codes li:first-child")
	c.get("/settings").wantText("#h-two-step + p", "On")

	d := e.client()
	p = d.post("/sign-in", url.Values{"email": {ownerEmail}, "password": {ownerPassword}}).wantStatus(200).wantText("h1", "Enter your code")
	step, _ := p.doc.Find(`input[name="step"]`).Attr("value")
	d.post("/sign-in/code", url.Values{"step": {step}, "code": {"123456"}}).wantStatus(http.StatusUnauthorized).wantText(".alert", "not right")
	d.post("/sign-in/code", url.Values{"step": {step}, "code": {recovery}}).wantStatus(200).wantText("h1", "API keys")
	e.client().post("/sign-in/code", url.Values{"step": {step}, "code": {recovery}}).wantStatus(200).wantText(".notice", "sign in again")
}

// TestSignOutEndsSession: after sign-out, the old cookie's token no
// longer opens anything, even sent again by hand.
func TestSignOutEndsSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	u, _ := url.Parse(e.console.URL)
	var old *http.Cookie
	for _, k := range c.http.Jar.Cookies(u) {
		if k.Name == "adcamp_session" {
			old = k
		}
	}
	if old == nil {
		t.Fatal("no session cookie after setup")
	}
	c.post("/sign-out", nil).wantStatus(200).wantText("h1", "Sign in")
	replay := e.client()
	replay.http.Jar.SetCookies(u, []*http.Cookie{{Name: old.Name, Value: old.Value, Path: "/"}})
	replay.get("/accounts/"+acc+"/api-keys").wantStatus(200).wantText("h1", "Sign in")
	replay.post("/accounts/"+acc+"/api-keys/new", url.Values{"environment": {"sandbox"}, "name": {"after sign-out"}}).wantText("h1", "Sign in")
	if n := len(e.keys(acc)); n != 0 {
		t.Errorf("%d keys made with a signed-out session, want 0", n)
	}
}
