package sdktest_test

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
)

// sandbox is the real API (sandbox environment) over real SQLite,
// in-process, with one account.
type sandbox struct {
	t         *testing.T
	svc       *service.Service
	srv       *httptest.Server
	accountID string
	requests  atomic.Int64 // requests the server received
}

// newSandbox starts the sandbox API. serverNow, if not nil, is the
// server's clock.
func newSandbox(t *testing.T, serverNow func() time.Time) *sandbox {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	s := &sandbox{t: t, svc: service.New(service.Config{Store: db, Box: box, Now: serverNow, Logger: testLogger(t, slog.LevelWarn)})}
	h, err := httpapi.New(s.svc.Ads, s.svc.Keys, adcamp.Sandbox, testLogger(t, slog.LevelWarn))
	if err != nil {
		t.Fatal(err)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	acc, err := s.svc.CreateAccount(ctx, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	s.accountID = acc.ID
	return s
}

// client issues a sandbox key and returns a client that signs with it.
func (s *sandbox) client(opts ...client.Option) *client.Client {
	s.t.Helper()
	k, err := s.svc.CreateKey(context.Background(), s.accountID, adcamp.Sandbox)
	if err != nil {
		s.t.Fatal(err)
	}
	base := []client.Option{client.WithBaseURL(s.srv.URL + "/api/v1/open"), client.WithLogger(testLogger(s.t, slog.LevelDebug))}
	c, err := client.New(k.ID, k.Secret, append(base, opts...)...)
	if err != nil {
		s.t.Fatal(err)
	}
	return c
}

// tWriter sends log lines to t.Log.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func testLogger(t *testing.T, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: level}))
}

func asError(t *testing.T, err error) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want a *client.Error", err, err)
	}
	return e
}
