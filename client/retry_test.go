package client_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/client/signing"
)

func TestRetryAfterIsHonoured(t *testing.T) {
	clk := newFakeClock()
	tests := []struct {
		name       string
		retryAfter func() string
		want       time.Duration
	}{
		{"seconds", func() string { return "7" }, 7 * time.Second},
		{"HTTP date", func() string { return clk.Now().Add(10 * time.Second).Format(http.TimeFormat) }, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk.slept = nil
			srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) bool {
				return reply(429, apiError(client.CodeRateLimited, "slow down"), "Retry-After", tt.retryAfter())(w, r)
			}, reply(200, campaignJSON))
			c := fakeClient(t, srv.Server, clk)
			cmp, err := c.GetCampaign(context.Background(), "cmp_01m7q5cqg06b8994h5jr7na6t9")
			if err != nil || cmp.BudgetDaily != client.USD("12.50") {
				t.Fatalf("GetCampaign = %+v, %v; want the campaign after one retry", cmp, err)
			}
			slept := clk.Slept()
			if len(srv.Requests()) != 2 || len(slept) != 1 || slept[0] < tt.want {
				t.Errorf("%d requests, waits %v; want 2 requests and one wait ≥ %v", len(srv.Requests()), slept, tt.want)
			}
		})
	}
}

func TestRetryAfterBeyondBudgetIsNotWaited(t *testing.T) {
	clk := newFakeClock()
	srv := newFakeServer(t, reply(429, apiError(client.CodeRateLimited, "slow down"), "Retry-After", "3600"))
	c := fakeClient(t, srv.Server, clk)
	_, err := c.GetCampaign(context.Background(), "cmp_x")
	e := asError(t, err)
	if !client.IsRateLimited(err) || e.RetryAfter != time.Hour || len(srv.Requests()) != 1 || len(clk.Slept()) != 0 {
		t.Errorf("err = %v (Retry-After %v) after %d requests and waits %v; want RATE_LIMITED at once, Retry-After 1h",
			err, e.RetryAfter, len(srv.Requests()), clk.Slept())
	}
}

func TestGiveUpAfterMaxAttempts(t *testing.T) {
	clk := newFakeClock()
	srv := newFakeServer(t, reply(503, apiError(client.CodeUnavailable, "the database is not reachable")))
	c := fakeClient(t, srv.Server, clk)
	_, err := c.ListCampaigns(context.Background(), nil)
	e := asError(t, err)
	if e.StatusCode != 503 || e.Code != client.CodeUnavailable || e.RequestID != "req_fake" {
		t.Errorf("err = %#v, want 503 SERVICE_UNAVAILABLE", e)
	}
	policy := client.DefaultRetryPolicy()
	slept := clk.Slept()
	if len(srv.Requests()) != policy.MaxAttempts || len(slept) != policy.MaxAttempts-1 {
		t.Fatalf("%d requests and %d waits, want %d and %d", len(srv.Requests()), len(slept), policy.MaxAttempts, policy.MaxAttempts-1)
	}
	for i, d := range slept {
		if d < 0 || d > policy.MaxBackoff(i+1) {
			t.Errorf("wait %d = %v, want within [0, %v]", i+1, d, policy.MaxBackoff(i+1))
		}
	}
}

func TestStatusesNotRetried(t *testing.T) {
	for _, status := range []int{400, 404, 409, 412, 500} {
		srv := newFakeServer(t, reply(status, apiError("SOMETHING", "no")))
		c := fakeClient(t, srv.Server, newFakeClock())
		if _, err := c.DeleteCampaign(context.Background(), "cmp_x", nil); asError(t, err).StatusCode != status {
			t.Errorf("status %d: err = %v", status, err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("status %d: %d requests, want 1", status, n)
		}
	}
}

func TestMaxElapsedBoundsRetries(t *testing.T) {
	clk := newFakeClock()
	srv := newFakeServer(t, reply(502, "<html>bad gateway</html>"))
	policy := client.RetryPolicy{MaxAttempts: 10, BaseDelay: 400 * time.Millisecond, MaxDelay: 10 * time.Second, MaxElapsed: time.Second}
	c := fakeClient(t, srv.Server, clk, client.WithRetryPolicy(policy), client.WithJitter(func(n int64) int64 { return n - 1 }))
	_, err := c.ListCampaigns(context.Background(), nil)
	// Waits of 400 ms then 800 ms: the second would end after 1 s.
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (waits %v)", n, clk.Slept())
	}
	if e := asError(t, err); e.StatusCode != 502 || e.Code != "" || e.Message != "Bad Gateway: <html>bad gateway</html>" {
		t.Errorf("err = %#v, want a 502 that is not the API's envelope", e)
	}
}

// TestRealSleep retries with the client's own clock and sleep.
func TestRealSleep(t *testing.T) {
	srv := newFakeServer(t, reply(503, apiError(client.CodeUnavailable, "busy")), reply(200, campaignJSON))
	policy := client.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	c, err := client.New(fakeKey, fakeSecret, client.WithBaseURL(srv.URL), client.WithRetryPolicy(policy))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetCampaign(context.Background(), "cmp_x"); err != nil || len(srv.Requests()) != 2 {
		t.Errorf("GetCampaign = %v after %d requests, want success after 2", err, len(srv.Requests()))
	}
}

func TestConnectionDropRetried(t *testing.T) {
	clk := newFakeClock()
	srv := newFakeServer(t, hangUp, reply(200, campaignJSON))
	c := fakeClient(t, srv.Server, clk)
	if _, err := c.GetCampaign(context.Background(), "cmp_x"); err != nil {
		t.Fatalf("GetCampaign after a dropped connection: %v", err)
	}
	if n := len(srv.Requests()); n != 2 || len(clk.Slept()) != 1 {
		t.Errorf("%d requests and waits %v, want 2 requests and one wait", n, clk.Slept())
	}
}

// TestPostRetriedWithOneIdempotencyKey: a POST carries an Idempotency-Key,
// the same on each retry, and each retry is signed afresh.
func TestPostRetriedWithOneIdempotencyKey(t *testing.T) {
	clk := newFakeClock()
	srv := newFakeServer(t, hangUp, reply(503, apiError(client.CodeUnavailable, "busy")), reply(201, campaignJSON))
	policy := client.RetryPolicy{MaxAttempts: 4, BaseDelay: 2 * time.Second, MaxDelay: 10 * time.Second}
	c := fakeClient(t, srv.Server, clk, client.WithRetryPolicy(policy), client.WithJitter(func(n int64) int64 { return n - 1 }))
	in := client.CampaignCreate{Name: "Spring sale", BudgetDaily: client.USD("12.5"), Marketplace: "US"}
	if _, err := c.CreateCampaign(context.Background(), in, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	key := reqs[0].Header.Get(client.HeaderIdempotencyKey)
	for i, r := range reqs {
		if got := r.Header.Get(client.HeaderIdempotencyKey); key == "" || got != key || r.Body != reqs[0].Body {
			t.Errorf("attempt %d: Idempotency-Key %q and body %q, want %q and the first body", i+1, got, r.Body, key)
		}
		checkSignature(t, r)
		if i > 0 && r.Header.Get(signing.HeaderTimestamp) <= reqs[i-1].Header.Get(signing.HeaderTimestamp) {
			t.Errorf("attempt %d has timestamp %s, not after the previous one", i+1, r.Header.Get(signing.HeaderTimestamp))
		}
	}
	if _, err := c.CreateCampaign(context.Background(), in, nil); err != nil {
		t.Fatal(err)
	}
	if next := srv.Requests()[3].Header.Get(client.HeaderIdempotencyKey); next == key || next == "" {
		t.Errorf("a second call has Idempotency-Key %q, want a new one", next)
	}
}

// checkSignature verifies a fake server's request with Scheme A.
func checkSignature(t *testing.T, r *recorded) {
	t.Helper()
	path, _, _ := strings.Cut(r.Path, "?")
	msg := signing.StringToSign(signing.SchemeA, r.Header.Get(signing.HeaderTimestamp), r.Method, path, []byte(r.Body))
	if want := signing.Sign(fakeSecret, msg); r.Header.Get(signing.HeaderSignature) != want {
		t.Errorf("%s %s: X-Signature %s, want %s", r.Method, r.Path, r.Header.Get(signing.HeaderSignature), want)
	}
}

func TestCallersIdempotencyKeyKept(t *testing.T) {
	srv := newFakeServer(t, reply(201, campaignJSON))
	c := fakeClient(t, srv.Server, newFakeClock())
	req, err := c.NewRequest(http.MethodPost, "campaigns", map[string]any{"name": "x"})
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(client.HeaderIdempotencyKey, "order-42")
	var cmp client.Campaign
	resp, err := c.Do(context.Background(), req, &cmp)
	if err != nil || resp.StatusCode != 201 || resp.RequestID != "req_fake" || resp.Attempts != 1 || cmp.Name != "Spring sale" {
		t.Fatalf("Do = %+v, %v", resp, err)
	}
	if got := srv.Requests()[0].Header.Get(client.HeaderIdempotencyKey); got != "order-42" {
		t.Errorf("Idempotency-Key = %q, want the caller's order-42", got)
	}
}

func TestBackoffBounds(t *testing.T) {
	p := client.DefaultRetryPolicy()
	wantMax := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
		4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second, 10 * time.Second}
	for i, want := range wantMax {
		n := i + 1
		if got := p.MaxBackoff(n); got != want {
			t.Errorf("MaxBackoff(%d) = %v, want %v", n, got, want)
		}
		low, high := false, false
		for range 2000 {
			d := p.Backoff(n)
			if d < 0 || d > want {
				t.Fatalf("Backoff(%d) = %v, want within [0, %v]", n, d, want)
			}
			low, high = low || d < want/2, high || d >= want/2
		}
		if !low || !high {
			t.Errorf("Backoff(%d): 2000 waits all in one half of [0, %v]: no jitter?", n, want)
		}
	}
	huge := client.RetryPolicy{MaxAttempts: 100, BaseDelay: time.Second, MaxDelay: time.Duration(1<<63 - 1)}
	if got := huge.MaxBackoff(90); got != huge.MaxDelay {
		t.Errorf("MaxBackoff(90) = %v, want it capped without overflow", got)
	}
}

func TestCanceledContextStops(t *testing.T) {
	srv := newFakeServer(t, reply(503, apiError(client.CodeUnavailable, "busy")))
	c := fakeClient(t, srv.Server, newFakeClock())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.ListCampaigns(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	// Canceled during the wait between attempts: both errors are kept.
	ctx, cancel = context.WithCancel(context.Background())
	sleep := func(context.Context, time.Duration) error { cancel(); return ctx.Err() }
	c = fakeClient(t, srv.Server, newFakeClock(), client.WithSleep(sleep))
	_, err := c.ListCampaigns(ctx, nil)
	if !errors.Is(err, context.Canceled) || asError(t, err).StatusCode != 503 {
		t.Errorf("err = %v, want context.Canceled wrapping the 503", err)
	}
}

func TestAttemptTimeoutRetried(t *testing.T) {
	srv := newFakeServer(t, func(w http.ResponseWriter, r *http.Request) bool {
		<-r.Context().Done() // answer only when the client gives up
		return true
	})
	c := fakeClient(t, srv.Server, newFakeClock(), client.WithTimeout(20*time.Millisecond), client.WithMaxAttempts(2))
	_, err := c.GetCampaign(context.Background(), "cmp_x")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want a deadline exceeded", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestOwnTransportVerifiesTLS: the client's own *http.Client requires
// TLS 1.2+ and a verified certificate, and a refused certificate is not
// retried.
func TestOwnTransportVerifiesTLS(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the handler was reached over an unverified certificate")
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c, err := client.New(fakeKey, fakeSecret, client.WithBaseURL(srv.URL), client.WithSleep(newFakeClock().Sleep))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListCampaigns(context.Background(), nil)
	var certErr *tls.CertificateVerificationError
	if !errors.As(err, &certErr) {
		t.Errorf("err = %v, want a certificate verification error", err)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections, want 1 (no retry)", n)
	}
	cfg, timeout := client.TransportOf(c)
	if cfg == nil || cfg.MinVersion < tls.VersionTLS12 || cfg.InsecureSkipVerify || timeout != client.DefaultTimeout {
		t.Errorf("own transport: TLS config %+v, timeout %v; want TLS 1.2+, verified, 30s", cfg, timeout)
	}
}

func TestUserAgent(t *testing.T) {
	srv := newFakeServer(t, reply(200, `{"success":true,"data":{"unix":1795000000,"iso":"2026-11-18T11:06:40Z"}}`))
	c := fakeClient(t, srv.Server, newFakeClock(), client.WithUserAgent("myapp/1.2"))
	st, err := c.ServerTime(context.Background())
	if err != nil || st.Unix() != 1795000000 {
		t.Fatalf("ServerTime = %v, %v", st, err)
	}
	r := srv.Requests()[0]
	if ua := r.Header.Get("User-Agent"); ua != "myapp/1.2 adcamp-go/"+client.Version {
		t.Errorf("User-Agent = %q", ua)
	}
	if r.Header.Get(signing.HeaderSignature) != "" || r.Path != "/api/v1/open/time" {
		t.Errorf("ServerTime sent %s with X-Signature %q, want /api/v1/open/time unsigned", r.Path, r.Header.Get(signing.HeaderSignature))
	}
}
