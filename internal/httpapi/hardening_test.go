package httpapi_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/jsonlog"
	"github.com/adcamp/adcamp/internal/metrics"
	"github.com/adcamp/adcamp/internal/store"
)

// serveWith starts another server of env over e's service, with options,
// and points c at it.
func (e *testEnv) serveWith(c *apiClient, log *slog.Logger, opts ...httpapi.Option) *httptest.Server {
	e.t.Helper()
	if log == nil {
		log = testLogger(e.t)
	}
	h, err := httpapi.New(e.svc.Ads, e.svc.Keys, c.envOf(), log, opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	e.t.Cleanup(srv.Close)
	c.base = srv.URL
	return srv
}

func (c *apiClient) envOf() adcamp.Environment {
	if strings.HasPrefix(c.key, "ak_test_") {
		return adcamp.Sandbox
	}
	return adcamp.Production
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	other := e.client(prod.accountID, adcamp.Production)
	srv := e.serveWith(prod, nil, httpapi.WithRateLimit(1), httpapi.WithClock(e.clock.Now)) // burst 2, refilled only as the clock is moved
	other.base = srv.URL

	r := prod.do("GET", "/campaigns", "")
	want(t, r, 200, "")
	if r.Header.Get("RateLimit-Limit") != "2" || r.Header.Get("RateLimit-Remaining") != "1" {
		t.Errorf("first answer: RateLimit-Limit %q, -Remaining %q; want 2 and 1",
			r.Header.Get("RateLimit-Limit"), r.Header.Get("RateLimit-Remaining"))
	}
	if reset, err := strconv.Atoi(r.Header.Get("RateLimit-Reset")); err != nil || reset < 1 {
		t.Errorf("RateLimit-Reset = %q, want a positive number of seconds", r.Header.Get("RateLimit-Reset"))
	}
	want(t, prod.do("GET", "/campaigns", ""), 200, "")
	r = prod.do("POST", "/campaigns", validCampaign)
	want(t, r, 429, "RATE_LIMITED")
	if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After = %q, want a positive number of seconds", r.Header.Get("Retry-After"))
	}
	if r.Header.Get("RateLimit-Remaining") != "0" {
		t.Errorf("RateLimit-Remaining on 429 = %q, want 0", r.Header.Get("RateLimit-Remaining"))
	}
	// Another credential has its own bucket; the refused create stored nothing.
	want(t, other.do("GET", "/campaigns", ""), 200, "")
	if n := other.do("GET", "/campaigns", "").Data()["total_items"]; n != 0.0 {
		t.Errorf("a rate-limited create stored something: %v", n)
	}
	// Unauthenticated requests do not spend anyone's tokens, nor get headers.
	r = prod.do("GET", "/campaigns", "", "X-Signature: "+strings.Repeat("0", 64))
	want(t, r, 401, "INVALID_SIGNATURE")
	if r.Header.Get("RateLimit-Limit") != "" {
		t.Error("an unauthenticated answer carries RateLimit headers")
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	m := metrics.New(e.db.(store.StatsReporter))
	pool := e.db.(store.StatsReporter).PoolStats()[0] // "write" on SQLite, "postgres" on PostgreSQL
	srv := e.serveWith(prod, nil, httpapi.WithMetrics(m))
	id := prod.createCampaign(validCampaign)["id"].(string)
	prod.do("GET", "/campaigns/"+id, "")
	prod.do("GET", "/campaigns/"+id, "")
	prod.do("GET", "/campaigns", "", "X-Signature: "+strings.Repeat("0", 64))
	prod.do("GET", "/nowhere", "")

	metricsSrv := httptest.NewServer(httpapi.MetricsHandler(m))
	t.Cleanup(metricsSrv.Close)
	resp, err := http.Get(metricsSrv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("X-Request-Id") == "" {
		t.Error("the metrics listener's answer has no X-Request-Id")
	}
	text := string(body)
	for _, line := range []string{
		`adcamp_http_requests_total{env="production",method="POST",route="/api/v1/open/campaigns",status="201"} 1`,
		`adcamp_http_requests_total{env="production",method="GET",route="/api/v1/open/campaigns/{campaign_id}",status="200"} 2`,
		`adcamp_http_requests_total{env="production",method="GET",route="unmatched",status="404"} 1`,
		`adcamp_auth_failures_total{code="INVALID_SIGNATURE",env="production"} 1`,
		`adcamp_http_request_duration_seconds_count{env="production",method="GET",route="/api/v1/open/campaigns/{campaign_id}"} 2`,
		fmt.Sprintf(`adcamp_db_pool_max_open_connections{pool=%q} %d`, pool.Name, pool.MaxOpen),
		`go_goroutines `,
	} {
		if !strings.Contains(text, line) {
			t.Errorf("/metrics lacks %s", line)
		}
	}
	if strings.Contains(text, id) || strings.Contains(text, prod.key) {
		t.Error("/metrics names an id or a key")
	}
	// The API listeners do not show them: they describe the whole process,
	// both environments (a sandbox user would read production's figures).
	if resp, err = http.Get(srv.URL + "/metrics"); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /metrics on an API listener = %d, want 404", resp.StatusCode)
	}
}

// TestLogsHoldNoSecrets: the access log names the key id, route and
// status, and never a secret, a signature or a body.
func TestLogsHoldNoSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, sandbox := e.account("Acme")
	var buf syncBuffer
	e.serveWith(sandbox, slog.New(jsonlog.New(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	body := `{"name":"marker-in-body-7361","budget_daily":1,"marketplace":"US"}`
	r := sandbox.do("POST", "/campaigns", body)
	want(t, r, 201, "")
	sandbox.do("POST", "/campaigns", body, "X-Signature: "+strings.Repeat("ab", 32))
	sandbox.do("GET", "/campaigns", "", "X-Timestamp: 1")
	sandbox.do("PUT", "/campaigns/"+r.Data()["id"].(string), `{"name":"marker-in-body-7361","bogus":1}`)

	logs := buf.String()
	if !strings.Contains(logs, sandbox.key) || !strings.Contains(logs, `"route":"POST /api/v1/open/campaigns"`) ||
		!strings.Contains(logs, r.Header.Get("X-Request-Id")) {
		t.Errorf("the access log lacks the key id, route or request id:\n%s", logs)
	}
	for _, secret := range []string{sandbox.secret, strings.TrimPrefix(sandbox.secret, "sk_test_"), "marker-in-body", strings.Repeat("ab", 32)} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds %q:\n%s", secret, logs)
		}
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestAuthFailureLimit: a client address that fails authentication too
// often is refused (429, before any key lookup) until its bucket refills;
// requests that authenticate spend nothing.
func TestAuthFailureLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	e.serveWith(prod, nil, httpapi.WithAuthFailureLimit(1), httpapi.WithClock(e.clock.Now)) // burst 2
	for range 3 {
		want(t, prod.do("GET", "/campaigns", ""), 200, "")
	}
	bad := "X-Signature: " + strings.Repeat("0", 64)
	want(t, prod.do("GET", "/campaigns", "", bad), 401, "INVALID_SIGNATURE")
	want(t, prod.do("GET", "/campaigns", "", "X-API-Key: ak_live_nobody"), 401, "UNAUTHORIZED")
	r := prod.do("GET", "/campaigns", "")
	want(t, r, 429, "RATE_LIMITED")
	if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After = %q, want a positive number of seconds", r.Header.Get("Retry-After"))
	}
	e.clock.Advance(1100 * time.Millisecond) // a token back in the bucket
	want(t, prod.do("GET", "/campaigns", ""), 200, "")
}
