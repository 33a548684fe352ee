package httpapi_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// clock is a settable time source shared by the service and the clients.
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

// testEnv is a running service: both environments over one SQLite file.
type testEnv struct {
	t       *testing.T
	svc     *service.Service
	db      store.Store
	box     *secrets.Box
	clock   *clock
	servers map[adcamp.Environment]*httptest.Server
}

type envOption func(*service.Config)

func withSigning(m service.SigningMode) envOption {
	return func(c *service.Config) { c.Signing = m }
}

func newEnv(t *testing.T, opts ...envOption) *testEnv {
	t.Helper()
	db := openStore(t)
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{now: time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)}
	cfg := service.Config{Store: db, Box: box, Now: clk.Now, Logger: testLogger(t)}
	for _, o := range opts {
		o(&cfg)
	}
	e := &testEnv{t: t, svc: service.New(cfg), db: db, box: box, clock: clk, servers: map[adcamp.Environment]*httptest.Server{}}
	for _, env := range []adcamp.Environment{adcamp.Production, adcamp.Sandbox} {
		h, err := httpapi.New(e.svc.Ads, e.svc.Keys, env, testLogger(t))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		e.servers[env] = srv
	}
	return e
}

// account creates an account with one key per environment and returns
// clients for it (Scheme A, full path, canonical prefix).
func (e *testEnv) account(name string) (prod, sandbox *apiClient) {
	e.t.Helper()
	ctx := context.Background()
	a, err := e.svc.CreateAccount(ctx, name, "")
	if err != nil {
		e.t.Fatal(err)
	}
	return e.client(a.ID, adcamp.Production), e.client(a.ID, adcamp.Sandbox)
}

// client issues a new key for accountID in env.
func (e *testEnv) client(accountID string, env adcamp.Environment) *apiClient {
	e.t.Helper()
	k, err := e.svc.CreateKey(context.Background(), accountID, env)
	if err != nil {
		e.t.Fatal(err)
	}
	return &apiClient{t: e.t, env: e, base: e.servers[env].URL, accountID: accountID,
		key: k.ID, secret: k.Secret, scheme: signing.SchemeA, prefix: signing.PrefixCanonical}
}

// apiClient signs requests the way a client written from the spec would.
type apiClient struct {
	t         *testing.T
	env       *testEnv
	base      string
	accountID string
	key       string
	secret    string
	scheme    signing.Scheme
	prefix    string
	relative  bool // Scheme A over the prefix-relative path
	// exactTime signs mutating requests with the clock's time. Otherwise
	// each gets a timestamp of its own, a few seconds in the past, so that
	// sending the same request twice is not a replay of the first (the
	// test clock stands still).
	exactTime bool
	sent      int
}

// response is a decoded API answer.
type response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// Data returns the success envelope's data object.
func (r *response) Data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

// Code returns the error envelope's code.
func (r *response) Code() string {
	e, _ := r.Body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// Error returns the error envelope's error object.
func (r *response) Error() map[string]any {
	e, _ := r.Body["error"].(map[string]any)
	return e
}

// do sends a signed request; path is relative to the prefix and may carry
// a query. Extra headers are "Name: value" strings.
func (c *apiClient) do(method, path, body string, headers ...string) *response {
	c.t.Helper()
	req := c.newRequest(method, path, body)
	c.sign(req, []byte(body))
	setHeaders(req, headers)
	return c.send(req)
}

func (c *apiClient) newRequest(method, path, body string, headers ...string) *http.Request {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+c.prefix+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	setHeaders(req, headers)
	return req
}

// setHeaders sets "Name: value" headers; an empty value removes the header.
func setHeaders(req *http.Request, headers []string) {
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		if v = strings.TrimSpace(v); v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
}

func (c *apiClient) sign(req *http.Request, body []byte) {
	now := c.env.clock.Now()
	if req.Method != http.MethodGet && !c.exactTime {
		c.sent++
		now = now.Add(-time.Duration(c.sent%250) * time.Second)
	}
	ts := signing.Timestamp(now)
	path := signing.RequestPath(req)
	if c.relative {
		path, _ = signing.RelativePath(path)
	}
	msg := signing.StringToSign(c.scheme, ts, req.Method, path, body)
	req.Header.Set(signing.HeaderAPIKey, c.key)
	req.Header.Set(signing.HeaderTimestamp, ts)
	req.Header.Set(signing.HeaderSignature, signing.Sign(c.secret, msg))
}

func (c *apiClient) send(req *http.Request) *response {
	c.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	r := &response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if len(raw) > 0 && req.Method != http.MethodHead {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			c.t.Fatalf("%s %s: response is not JSON: %v\n%s", req.Method, req.URL, err, raw)
		}
	}
	checkEnvelope(c.t, req, r)
	checkAgainstSpec(c.t, req, r)
	return r
}

// checkEnvelope asserts what every response must carry.
func checkEnvelope(t *testing.T, req *http.Request, r *response) {
	t.Helper()
	if r.Header.Get("X-Request-Id") == "" {
		t.Errorf("%s %s: no X-Request-Id header", req.Method, req.URL.Path)
	}
	if r.Header.Get("Date") == "" {
		t.Errorf("%s %s: no Date header", req.Method, req.URL.Path)
	}
	if req.Method == http.MethodHead {
		return
	}
	ok, isBool := r.Body["success"].(bool)
	if !isBool || ok != (r.Status < 400) {
		t.Errorf("%s %s: status %d with success = %v", req.Method, req.URL.Path, r.Status, r.Body["success"])
	}
	if r.Status >= 400 {
		e := r.Error()
		replayed := r.Header.Get("Idempotent-Replayed") == "true" // the body is the first answer's
		if e["code"] == nil || e["message"] == nil || (e["request_id"] != r.Header.Get("X-Request-Id") && !replayed) {
			t.Errorf("%s %s: malformed error envelope: %s", req.Method, req.URL.Path, r.Raw)
		}
	}
}

// want fails the test unless r has the given status (and error code).
func want(t *testing.T, r *response, status int, code string) {
	t.Helper()
	if r.Status != status || r.Code() != code {
		t.Fatalf("got %d %s, want %d %s\n%s", r.Status, r.Code(), status, code, r.Raw)
	}
}

// createCampaign creates a campaign and returns its data.
func (c *apiClient) createCampaign(body string) map[string]any {
	c.t.Helper()
	r := c.do("POST", "/campaigns", body)
	want(c.t, r, http.StatusCreated, "")
	return r.Data()
}

const validCampaign = `{"name":"Spring sale","budget_daily":12.5,"marketplace":"US"}`

// testLogger sends logs to t.Log.
func testLogger(t *testing.T) *slogLogger { return newTestLogger(t) }
