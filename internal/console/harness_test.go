package console_test

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/console"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

var ctx = context.Background()

// admin is ctx for an operator at the command line.
var admin = service.WithOrigin(ctx, service.Origin{Actor: adcamp.Actor{Type: adcamp.ActorAdmin, ID: "test"}})

// clock is the real time plus an offset a test may move forward.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

// testEnv is a running console, with the JSON API of both environments
// over the same service and store.
type testEnv struct {
	t       *testing.T
	svc     *service.Service
	clock   *clock
	console *httptest.Server
	api     map[adcamp.Environment]*httptest.Server
}

type envOption func(*console.Config)

// secure serves the console as if over HTTPS (cookies Secure, __Host-).
func secure(c *console.Config) { c.Secure = true }

func openStore(t *testing.T) store.Store {
	t.Helper()
	var db store.Store
	var err error
	switch os.Getenv("ADCAMP_TEST_STORE") {
	case "postgres":
		if os.Getenv(pgtest.EnvURL) == "" {
			t.Fatalf("ADCAMP_TEST_STORE=postgres needs %s", pgtest.EnvURL)
		}
		db, err = postgres.Open(ctx, pgtest.NewSchema(t).URL)
	default:
		db, err = sqlite.Open(ctx, t.TempDir())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newEnv(t *testing.T, opts ...envOption) *testEnv {
	t.Helper()
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{}
	log := slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc := service.New(service.Config{Store: openStore(t), Box: box, Now: clk.Now, Logger: log})
	cfg := console.Config{Ads: svc.Ads, Access: svc.Access, Keys: svc.Keys, Logger: log}
	for _, o := range opts {
		o(&cfg)
	}
	h, err := console.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{t: t, svc: svc, clock: clk, console: httptest.NewServer(h), api: map[adcamp.Environment]*httptest.Server{}}
	t.Cleanup(e.console.Close)
	for _, env := range []adcamp.Environment{adcamp.Production, adcamp.Sandbox} {
		h, err := httpapi.New(svc.Ads, svc.Keys, env, log)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		e.api[env] = srv
	}
	return e
}

// tWriter sends log lines to the test's log.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

const ownerEmail, ownerPassword = "owner@example.com", "a calm and long passphrase"

// setupLink returns a setup link's path.
func (e *testEnv) setupLink() string {
	e.t.Helper()
	token, err := e.svc.NewSetupLink(ctx)
	if err != nil || token == "" {
		e.t.Fatalf("NewSetupLink = %q, %v", token, err)
	}
	return "/setup?token=" + url.QueryEscape(token)
}

// owner sets the console up through its setup page and returns the
// owner's client and the account's id.
func (e *testEnv) owner() (*client, string) {
	e.t.Helper()
	c := e.client()
	p := c.post(e.setupLink(), url.Values{"account_name": {"Acme"}, "email": {ownerEmail},
		"password": {ownerPassword}, "password_again": {ownerPassword}})
	p.wantStatus(200)
	if !strings.HasSuffix(p.url, "/api-keys") {
		e.t.Fatalf("setup ended at %s, want the account's API keys", p.url)
	}
	return c, strings.Split(p.url, "/")[2]
}

// member adds a member with role and returns their signed-in client.
func (e *testEnv) member(accountID, email string, role adcamp.Role) (*client, *service.Invitation) {
	e.t.Helper()
	inv, err := e.svc.AddMember(admin, accountID, email, role)
	if err != nil {
		e.t.Fatalf("AddMember(%s): %v", email, err)
	}
	c := e.client()
	pw := "the passphrase of " + email
	c.post("/set-password?token="+url.QueryEscape(inv.Token), url.Values{"password": {pw}, "password_again": {pw}}).wantStatus(200)
	return c, inv
}

// client is a browser without JavaScript: a cookie jar and forms.
type client struct {
	t    *testing.T
	e    *testEnv
	http *http.Client
	// header is added to every request (Origin, Sec-Fetch-Site...).
	header http.Header
}

func (e *testEnv) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: e.t, e: e, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}, header: http.Header{}}
}

// page is an answer, parsed.
type page struct {
	t      *testing.T
	status int
	url    string // after redirects
	header http.Header
	body   string
	doc    *goquery.Document
}

func (c *client) do(method, path string, form url.Values) *page {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.e.console.URL+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(b)))
	if err != nil {
		c.t.Fatal(err)
	}
	return &page{t: c.t, status: resp.StatusCode, url: strings.TrimPrefix(resp.Request.URL.String(), c.e.console.URL),
		header: resp.Header, body: string(b), doc: doc}
}

func (c *client) get(path string) *page { c.t.Helper(); return c.do("GET", path, nil) }

func (c *client) post(path string, form url.Values) *page {
	c.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	return c.do("POST", path, form)
}

func (p *page) wantStatus(status int) *page {
	p.t.Helper()
	if p.status != status {
		p.t.Fatalf("status %d at %s, want %d; page:\n%s", p.status, p.url, status, p.text("main"))
	}
	return p
}

// text is the text of what selector finds, with its spaces folded.
func (p *page) text(selector string) string {
	return strings.Join(strings.Fields(p.doc.Find(selector).Text()), " ")
}

// has reports whether selector finds anything.
func (p *page) has(selector string) bool { return p.doc.Find(selector).Length() > 0 }

// wantText checks that what selector finds says part.
func (p *page) wantText(selector, part string) *page {
	p.t.Helper()
	if got := p.text(selector); !strings.Contains(got, part) {
		p.t.Errorf("%s at %s says %q, want %q", selector, p.url, got, part)
	}
	return p
}

// wantFieldError checks that field's message is shown next to it, tied
// to it for assistive technology.
func (p *page) wantFieldError(field, part string) *page {
	p.t.Helper()
	in := p.doc.Find("#f-" + field)
	if in.Length() == 0 {
		p.t.Errorf("no field %s at %s", field, p.url)
		return p
	}
	if v, _ := in.Attr("aria-invalid"); v != "true" {
		p.t.Errorf("field %s is not marked invalid", field)
	}
	if d, _ := in.Attr("aria-describedby"); !strings.Contains(d, "f-"+field+"-error") {
		p.t.Errorf("field %s is not described by its error (%q)", field, d)
	}
	return p.wantText("#f-"+field+"-error", part)
}

// signedRequest sends GET /campaigns to env's API signed with key and
// secret, and returns the status.
func (e *testEnv) signedRequest(env adcamp.Environment, key, secret string) int {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.api[env].URL+"/api/v1/open/campaigns", nil)
	signing.SignRequest(req, signing.SchemeA, key, secret, nil, e.clock.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// keys lists an account's credentials, as an operator sees them.
func (e *testEnv) keys(accountID string) []adcamp.APIKey {
	e.t.Helper()
	keys, err := e.svc.ListKeys(admin, accountID)
	if err != nil {
		e.t.Fatal(err)
	}
	return keys
}
