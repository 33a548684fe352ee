package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// Browser tests: Debian's chromium, driven by chromedp, through the
// journeys of a new user. They skip when chromium is absent, unless
// ADCAMP_REQUIRE_BROWSER=1 (CI), where that is a failure. Screenshots of
// the main pages go to $ADCAMP_SCREENSHOTS, or a new temporary directory;
// the tests log where.

// chromiumPath finds the browser: $ADCAMP_CHROMIUM, /usr/bin/chromium, or
// chromium on the PATH.
func chromiumPath() string {
	if p := os.Getenv("ADCAMP_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	p, _ := exec.LookPath("chromium")
	return p
}

// browserSlot lets one chromium run at a time: a browser test waits for
// it, beside the tests that need no browser.
var browserSlot = make(chan struct{}, 1)

// newBrowser starts a headless chromium for t, with a profile of its own.
// A top-level test goes on in parallel with the package's other tests from
// here (its setup before the call is done), one chromium at a time.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		msg := "chromium is not installed (apt-get install -y chromium): browser tests skipped"
		if os.Getenv("ADCAMP_REQUIRE_BROWSER") == "1" {
			t.Fatal(msg + ", but ADCAMP_REQUIRE_BROWSER=1 requires them")
		}
		t.Skip(msg)
	}
	if !strings.Contains(t.Name(), "/") {
		t.Parallel()
	}
	browserSlot <- struct{}{}
	t.Cleanup(func() { <-browserSlot })
	// Not t.TempDir: chromium's helper processes may still be writing in
	// the profile (its cache, cleared by Clear-Site-Data) when the browser
	// has exited, and the test would fail for a directory not empty yet.
	profile, err := os.MkdirTemp("", "adcamp-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 900),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("hide-scrollbars", true))
	bctx, cancelBrowser := chromedp.NewContext(actx)
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	t.Cleanup(func() {
		cancel()
		cancelBrowser()
		cancelAlloc()
		for i := 0; os.RemoveAll(profile) != nil && i < 50; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	return ctx
}

var (
	shotsOnce sync.Once
	shotsDir  string
)

// shot saves a screenshot of the whole page as name.png.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shotsOnce.Do(func() {
		shotsDir = os.Getenv("ADCAMP_SCREENSHOTS")
		if shotsDir == "" {
			shotsDir, _ = os.MkdirTemp("", "adcamp-console-screenshots-")
		}
		os.MkdirAll(shotsDir, 0o755)
	})
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(shotsDir, name+".png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// do runs steps, failing t on an error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// textOf is the text of the first element of a CSS selector.
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.Join(strings.Fields(s), " ")
}

// count counts the elements of a CSS selector.
func count(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// submit clicks the submit button of form, waits for the next page to
// load, and for its element next.
func submit(t *testing.T, ctx context.Context, form, next string) {
	t.Helper()
	click(t, ctx, form+" button[type=submit]")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(next)))
}

// click clicks what sel finds and waits for the page it leads to.
func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(cdppage.LoadEventFired, nil, chromedp.Click(chromedp.CSS(sel)))); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

// signInBrowser signs in through the sign-in page.
func signInBrowser(t *testing.T, ctx context.Context, e *testEnv, email, password string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(e.console.URL+"/sign-in"), chromedp.WaitVisible(chromedp.CSS("#f-email")),
		chromedp.SendKeys(chromedp.CSS("#f-email"), email), chromedp.SendKeys(chromedp.CSS("#f-password"), password))
	submit(t, ctx, "main form", "main h1")
}

// TestBrowserJourney is the first run of a new user: the setup link, the
// first owner, sign-in, a sandbox key whose secret shows once and signs
// a real API request; disabled in the console, refused by the API within
// a second; rolled, the old secret working until its grace ends.
func TestBrowserJourney(t *testing.T) {
	ctx := newBrowser(t)
	e := newEnv(t)

	do(t, ctx, chromedp.Navigate(e.console.URL+e.setupLink()), chromedp.WaitVisible(chromedp.CSS("#f-account_name")))
	shot(t, ctx, "01-setup")
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS("#f-account_name"), "Acme Outdoor"),
		chromedp.SendKeys(chromedp.CSS("#f-email"), ownerEmail),
		chromedp.SendKeys(chromedp.CSS("#f-password"), ownerPassword),
		chromedp.SendKeys(chromedp.CSS("#f-password_again"), ownerPassword))
	submit(t, ctx, "main form", ".columns")
	shot(t, ctx, "02-api-keys-empty")

	// Sign out, and in again.
	click(t, ctx, ".who button")
	if got := textOf(t, ctx, ".notice"); !strings.Contains(got, "signed out") {
		t.Errorf("after sign-out the page says %q", got)
	}
	shot(t, ctx, "03-sign-in")
	signInBrowser(t, ctx, e, ownerEmail, ownerPassword)
	if got := textOf(t, ctx, "main h1"); got != "API keys" {
		t.Fatalf("after sign-in the page is %q, want API keys", got)
	}

	// A sandbox key: its secret, once.
	click(t, ctx, `a[href$="/api-keys/new?environment=sandbox"]`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS("#f-name"), "Reporting job"))
	shot(t, ctx, "04-new-key")
	submit(t, ctx, "main form", "#v-secret")
	key, secret := textOf(t, ctx, "#v-key"), textOf(t, ctx, "#v-secret")
	if !strings.HasPrefix(key, "ak_test_") || !strings.HasPrefix(secret, "sk_test_") {
		t.Fatalf("the secret page shows key %q and secret %q", key, secret)
	}
	if count(t, ctx, "button.copy:not([hidden])") != 2 {
		t.Error("the secret page has no visible copy buttons (they need the script)")
	}
	shot(t, ctx, "05-secret-once")
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(cdppage.LoadEventFired, nil, chromedp.Reload())); err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, ctx, "main h1"); !strings.Contains(got, "shown already") || count(t, ctx, "#v-secret") != 0 {
		t.Errorf("after a reload the page is %q, with %d secrets; want it gone", got, count(t, ctx, "#v-secret"))
	}
	shot(t, ctx, "06-secret-gone")

	// A real signed request with it, and a few more for the chart.
	for i := range 5 {
		if got := e.signedRequest(adcamp.Sandbox, key, secret); got != 200 {
			t.Fatalf("signed request %d with the new key = %d, want 200", i, got)
		}
	}
	e.svc.FlushUsage(ctx)
	keysURL := e.console.URL + strings.TrimSuffix(mustLocation(t, ctx), "/secrets/"+lastSegment(mustLocation(t, ctx))) + "/api-keys"
	do(t, ctx, chromedp.Navigate(keysURL), chromedp.WaitVisible(chromedp.CSS(".key")))
	if got := textOf(t, ctx, ".key figcaption strong"); got != "5" {
		t.Errorf("the chart counts %q requests, want 5", got)
	}
	shot(t, ctx, "07-api-keys")
	do(t, ctx, chromedp.EmulateViewport(360, 780))
	shot(t, ctx, "08-api-keys-360px")
	if w := pageWidth(t, ctx); w > 360 {
		t.Errorf("at 360 px the page is %d px wide: it scrolls sideways", w)
	}
	do(t, ctx, chromedp.EmulateViewport(1280, 900))

	// Disable: the API refuses the key at once. The console and the API
	// share one service, which forgets its cached copy of a key it
	// changes (service.KeyCacheTTL bounds only other processes' changes).
	click(t, ctx, `a[href$="/`+key+`/disable"]`)
	shot(t, ctx, "09-confirm-disable")
	submit(t, ctx, "main form", ".notice")
	if status := e.signedRequest(adcamp.Sandbox, key, secret); status != 401 {
		t.Fatalf("the API answers %d to the key just disabled in the console, want 401", status)
	}

	// Enable, then roll with an hour of grace.
	click(t, ctx, `a[href$="/`+key+`/enable"]`)
	submit(t, ctx, "main form", ".notice")
	click(t, ctx, `a[href$="/`+key+`/roll"]`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`input[name=grace][value="1h"]`)))
	shot(t, ctx, "10-confirm-roll")
	submit(t, ctx, "main form", "#v-secret")
	rolled := textOf(t, ctx, "#v-secret")
	if rolled == secret {
		t.Fatal("the roll showed the old secret")
	}
	if old, cur := e.signedRequest(adcamp.Sandbox, key, secret), e.signedRequest(adcamp.Sandbox, key, rolled); old != 200 || cur != 200 {
		t.Errorf("right after the roll the old secret gets %d and the new %d, want 200 and 200", old, cur)
	}
	e.clock.Advance(time.Hour + time.Second)
	if old, cur := e.signedRequest(adcamp.Sandbox, key, secret), e.signedRequest(adcamp.Sandbox, key, rolled); old != 401 || cur != 200 {
		t.Errorf("after the grace the old secret gets %d and the new %d, want 401 and 200", old, cur)
	}

	// The other main pages.
	acc := strings.Split(strings.TrimPrefix(keysURL, e.console.URL), "/")[2]
	do(t, ctx, chromedp.Navigate(e.console.URL+"/accounts/"+acc+"/members/new"), chromedp.WaitVisible(chromedp.CSS("#f-email")),
		chromedp.SendKeys(chromedp.CSS("#f-email"), "dev@example.com"), chromedp.Click(chromedp.CSS(`input[name=role][value="developer"]`)))
	submit(t, ctx, "main form", "#v-link")
	shot(t, ctx, "11-invitation-link")
	do(t, ctx, chromedp.Navigate(e.console.URL+"/accounts/"+acc+"/members"), chromedp.WaitVisible(chromedp.CSS("table.members")))
	shot(t, ctx, "12-members")
	do(t, ctx, chromedp.Navigate(e.console.URL+"/settings"), chromedp.WaitVisible(chromedp.CSS(".settings")))
	shot(t, ctx, "13-settings")
	submit(t, ctx, `form[action="/settings/two-step"]`, "img.qr")
	if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("img.qr").naturalWidth > 0`)); err != nil || !ok {
		t.Errorf("the QR code of the authenticator key is not shown (%v)", err)
	}
	shot(t, ctx, "14-two-step-setup")
}

func mustLocation(t *testing.T, ctx context.Context) string {
	t.Helper()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(loc)
	return u.Path
}

func lastSegment(path string) string { return path[strings.LastIndex(path, "/")+1:] }

// pageWidth is how wide the page's content is, in CSS pixels.
func pageWidth(t *testing.T, ctx context.Context) int {
	t.Helper()
	w, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestBrowserThrottle: wrong passwords get throttled, with a clear wait.
func TestBrowserThrottle(t *testing.T) {
	ctx := newBrowser(t)
	e := newEnv(t)
	e.owner()
	for i := range service.SignInLimitPerEmail {
		signInBrowser(t, ctx, e, ownerEmail, fmt.Sprintf("wrong guess %d", i))
		if got := textOf(t, ctx, ".alert"); !strings.Contains(got, "not right") {
			t.Fatalf("wrong password %d: the page says %q", i+1, got)
		}
	}
	signInBrowser(t, ctx, e, ownerEmail, ownerPassword)
	if got := textOf(t, ctx, ".alert"); !strings.Contains(got, "Too many failed attempts") || !strings.Contains(got, "Wait") {
		t.Errorf("after %d wrong passwords the right one is answered %q, want a wait", service.SignInLimitPerEmail, got)
	}
	shot(t, ctx, "15-sign-in-throttled")
}

// TestBrowserFocusOnProblem: a form refused puts the focus on the field
// to correct, not on the form's first: the password of a refused
// sign-in, the end date of a campaign that would end before it starts,
// the password that confirms a new production key.
func TestBrowserFocusOnProblem(t *testing.T) {
	ctx := newBrowser(t)
	e := newEnv(t)
	_, acc := e.owner()
	focus := func(want string) {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`))
		if err != nil || got != want {
			t.Errorf("%s refused: the focus is on %q (%v), want %s", mustLocation(t, ctx), got, err, want)
		}
	}
	signInBrowser(t, ctx, e, ownerEmail, "not the password")
	focus("f-password")

	signInBrowser(t, ctx, e, ownerEmail, ownerPassword)
	do(t, ctx, chromedp.Navigate(e.console.URL+at(acc, adcamp.Sandbox, "/campaigns/new")), chromedp.WaitVisible(chromedp.CSS("#f-name")),
		chromedp.SendKeys(chromedp.CSS("#f-name"), "Spring sale"), chromedp.SendKeys(chromedp.CSS("#f-budget_daily"), "25"),
		chromedp.SetValue(chromedp.CSS("#f-marketplace"), "US"),
		chromedp.SendKeys(chromedp.CSS("#f-start_date"), "2099-05-02"), chromedp.SendKeys(chromedp.CSS("#f-end_date"), "2099-05-01"))
	submit(t, ctx, "main form", "#f-end_date-error")
	focus("f-end_date")

	do(t, ctx, chromedp.Navigate(e.console.URL+"/accounts/"+acc+"/api-keys/new?environment=production"), chromedp.WaitVisible(chromedp.CSS("#f-name")),
		chromedp.SendKeys(chromedp.CSS("#f-name"), "Live"), chromedp.SendKeys(chromedp.CSS("#f-confirm"), "not the password"))
	submit(t, ctx, "main form", "#f-confirm-error")
	focus("f-confirm")
}

// TestBrowserCrossOrigin: a page of another origin that posts a form to
// the console, in a browser signed in to it, is refused.
func TestBrowserCrossOrigin(t *testing.T) {
	ctx := newBrowser(t)
	e := newEnv(t)
	_, acc := e.owner()
	signInBrowser(t, ctx, e, ownerEmail, ownerPassword)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><form id="f" method="post" action="%s/accounts/%s/api-keys/new">
			<input name="environment" value="sandbox"><input name="name" value="planted"></form>
			<script>document.getElementById("f").submit()</script>`, e.console.URL, acc)
	}))
	t.Cleanup(evil.Close)
	do(t, ctx, chromedp.Navigate(evil.URL), chromedp.WaitVisible(chromedp.CSS("main h1")))
	if got := textOf(t, ctx, "main"); !strings.Contains(got, "sent from another site") {
		t.Errorf("the cross-origin post was answered %q", got)
	}
	if n := len(e.keys(acc)); n != 0 {
		t.Errorf("%d keys after a cross-origin post, want 0", n)
	}
	shot(t, ctx, "16-cross-origin-refused")
}

// TestBrowserViewer: a viewer is shown no way to create a key, is told
// why at the form's address, and a hand-made POST with their session is
// refused too.
func TestBrowserViewer(t *testing.T) {
	ctx := newBrowser(t)
	e := newEnv(t)
	_, acc := e.owner()
	inv, err := e.svc.AddMember(admin, acc, "viewer@example.com", adcamp.RoleViewer)
	if err != nil {
		t.Fatal(err)
	}
	const pw = "a viewer's own passphrase"
	do(t, ctx, chromedp.Navigate(e.console.URL+"/set-password?token="+url.QueryEscape(inv.Token)), chromedp.WaitVisible(chromedp.CSS("#f-password")),
		chromedp.SendKeys(chromedp.CSS("#f-password"), pw), chromedp.SendKeys(chromedp.CSS("#f-password_again"), pw))
	submit(t, ctx, "main form", ".columns")
	if n := count(t, ctx, `a[href*="/api-keys/new"]`) + count(t, ctx, `a[href$="/disable"]`); n != 0 {
		t.Errorf("a viewer sees %d links to create or change keys", n)
	}
	do(t, ctx, chromedp.Navigate(e.console.URL+"/accounts/"+acc+"/api-keys/new?environment=sandbox"), chromedp.WaitVisible(chromedp.CSS(".alert")))
	if got := textOf(t, ctx, ".alert"); !strings.Contains(got, "As a viewer") || count(t, ctx, "#f-name") != 0 {
		t.Errorf("the new key page tells a viewer %q, with %d name fields", got, count(t, ctx, "#f-name"))
	}
	shot(t, ctx, "17-viewer-refused")

	// The same session, by hand.
	cookies, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{e.console.URL}})
	if err != nil {
		t.Fatal(err)
	}
	c := e.client()
	u, _ := url.Parse(e.console.URL)
	for _, k := range cookies.Cookies {
		c.http.Jar.SetCookies(u, []*http.Cookie{{Name: k.Name, Value: k.Value, Path: "/"}})
	}
	c.post("/accounts/"+acc+"/api-keys/new", url.Values{"environment": {"sandbox"}, "name": {"by hand"}}).
		wantStatus(http.StatusForbidden).wantText(".alert", "As a viewer")
	if n := len(e.keys(acc)); n != 0 {
		t.Errorf("%d keys after a viewer's hand-made POST, want 0", n)
	}
}
