package client_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp/client"
)

// tWriter sends log lines to t.Log.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func testLogger(t *testing.T, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: level}))
}

// fakeClock is a client's clock and sleep: sleeping advances the clock at
// once and records the wait.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.slept = append(f.slept, d)
	f.now = f.now.Add(d)
	f.mu.Unlock()
	return ctx.Err()
}

func (f *fakeClock) Slept() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.slept...)
}

// Credentials of the fake servers' clients.
const (
	fakeKey    = "ak_test_fakefakefakefakefake"
	fakeSecret = "sk_test_TOPSECRETvalue0123456789abcdefghij"
)

// fakeClient returns a client of a fake server, on clk's time.
func fakeClient(t *testing.T, srv *httptest.Server, clk *fakeClock, opts ...client.Option) *client.Client {
	t.Helper()
	base := []client.Option{
		client.WithBaseURL(srv.URL + "/api/v1/open"), client.WithLogger(testLogger(t, slog.LevelDebug)),
		client.WithClock(clk.Now), client.WithSleep(clk.Sleep),
	}
	c, err := client.New(fakeKey, fakeSecret, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fakeServer answers each request with the next of answers (the last one
// repeats) and records the requests.
type fakeServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*recorded
}

// recorded is what a fake server saw of a request.
type recorded struct {
	Method, Path string
	Header       http.Header
	Body         string
}

// answer writes one response; returning false hijacks the connection
// and closes it without a response.
type answer func(w http.ResponseWriter, r *http.Request) bool

func newFakeServer(t *testing.T, answers ...answer) *fakeServer {
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := f.record(r)
		a := answers[min(n, len(answers)-1)]
		if !a(w, r) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}
	}))
	t.Cleanup(f.Close)
	return f
}

// record notes r and returns how many requests came before it.
func (f *fakeServer) record(r *http.Request) int {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, &recorded{Method: r.Method, Path: r.RequestURI, Header: r.Header.Clone(), Body: string(body)})
	return len(f.reqs) - 1
}

func (f *fakeServer) Requests() []*recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*recorded(nil), f.reqs...)
}

// reply answers with status and a JSON body, with a request id.
func reply(status int, body string, headers ...string) answer {
	return func(w http.ResponseWriter, r *http.Request) bool {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_fake")
		w.WriteHeader(status)
		w.Write([]byte(body))
		return true
	}
}

// hangUp closes the connection without answering.
func hangUp(w http.ResponseWriter, r *http.Request) bool { return false }

// apiError is an error envelope.
func apiError(code, message string) string {
	return `{"success":false,"error":{"code":"` + code + `","message":"` + message + `","request_id":"req_fake"}}`
}

const campaignJSON = `{"success":true,"data":{"id":"cmp_01m7q5cqg06b8994h5jr7na6t9","name":"Spring sale",` +
	`"budget_daily":12.50,"marketplace":"US","channel_account_id":null,"start_date":null,"end_date":"2027-03-31",` +
	`"status":"active","version":1,"created_at":"2026-11-18T11:06:40Z","updated_at":"2026-11-18T11:06:40Z"}}`

func asError(t *testing.T, err error) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want a *client.Error", err, err)
	}
	return e
}
