package httpapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/jsonlog"
	"github.com/adcamp/adcamp/internal/metrics"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// benchEnv is the production handler wired as `adcamp serve` wires it
// (JSON access log at info level, metrics, replay protection; the master
// key's check and the settings it reads at start, so that, as on a new
// data directory, no request is looked up under the names earlier
// versions gave replay records), except for the rate limit, which is off, over SQLite in a temporary directory; and
// a production key to sign requests with. Its clock stands still, so every
// timestamp is valid; mutating requests differ by their bodies.
type benchEnv struct {
	h           http.Handler
	svc         *service.Service
	clock       *clock
	tenant      adcamp.Tenant
	key, secret string
}

func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	ctx := context.Background()
	db := openStore(b)
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		b.Fatal(err)
	}
	if err := service.CheckSecrets(ctx, db, box); err != nil {
		b.Fatal(err)
	}
	log := slog.New(jsonlog.New(io.Discard, nil))
	clk := &clock{now: time.Now().UTC().Truncate(time.Second)}
	svc := service.New(service.Config{Store: db, Box: box, Now: clk.Now, Logger: log})
	if err := svc.LoadSettings(ctx); err != nil {
		b.Fatal(err)
	}
	env := adcamp.Production
	h, err := httpapi.New(svc.Ads, svc.Keys, env, log.With("env", string(env)), httpapi.WithMetrics(metrics.New(nil)), httpapi.WithRateLimit(0))
	if err != nil {
		b.Fatal(err)
	}
	a, err := svc.CreateAccount(ctx, "Acme", "")
	if err != nil {
		b.Fatal(err)
	}
	k, err := svc.CreateKey(ctx, a.ID, env)
	if err != nil {
		b.Fatal(err)
	}
	return &benchEnv{h: h, svc: svc, clock: clk, tenant: adcamp.Tenant{AccountID: a.ID, Environment: env}, key: k.ID, secret: k.Secret}
}

// campaigns stores n campaigns through the service and returns the last.
func (e *benchEnv) campaigns(b *testing.B, n int) *adcamp.Campaign {
	b.Helper()
	var c *adcamp.Campaign
	for i := range n {
		in := adcamp.CampaignInput{Name: adcamp.Some(fmt.Sprintf("Seed %d", i)),
			BudgetDaily: adcamp.Some("25.00"), Marketplace: adcamp.Some("US")}
		var err error
		if c, err = e.svc.CreateCampaign(context.Background(), e.tenant, in, false); err != nil {
			b.Fatal(err)
		}
	}
	return c
}

// benchRequest is what one iteration sends: path is relative to the
// canonical prefix and may carry a query; body is nil for none.
type benchRequest struct {
	method, path string
	body         []byte
}

// discardWriter is a ResponseWriter that keeps the status and drops the
// body, as cheap as net/http's own, so that the figures are the handler's.
type discardWriter struct {
	header http.Header
	status int
	body   []byte // the first bytes, for failure messages
}

func (w *discardWriter) Header() http.Header { return w.header }

func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *discardWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if len(w.body) < cap(w.body) {
		w.body = append(w.body, p[:min(len(p), cap(w.body)-len(w.body))]...)
	}
	return len(p), nil
}

// serve benchmarks the handler on the requests next makes (the i-th
// iteration's from next(i)), checking that each is answered with want.
// Requests are built and signed outside the timer, a hundred at a time.
func (e *benchEnv) serve(b *testing.B, want int, next func(i int) benchRequest) {
	type prepared struct {
		r *http.Request
		w *discardWriter
	}
	var batch []prepared
	i := 0
	if os.Getenv("ADCAMP_BENCH_LOCK_THREAD") != "" {
		// For bench/instructions.sh: callgrind counts by thread, and a
		// goroutine that yields may come back on another one.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(batch) == 0 {
			b.StopTimer()
			for range 100 {
				br := next(i + len(batch))
				batch = append(batch, prepared{e.request(br), &discardWriter{header: http.Header{}, body: make([]byte, 0, 512)}})
			}
			b.StartTimer()
		}
		p := batch[0]
		batch = batch[1:]
		e.h.ServeHTTP(p.w, p.r)
		if p.w.status != want {
			b.Fatalf("%s %s = %d, want %d\n%s", p.r.Method, p.r.URL, p.w.status, want, p.w.body)
		}
		i++
	}
}

// request builds a request signed with Scheme A over the full path.
func (e *benchEnv) request(br benchRequest) *http.Request {
	var body io.Reader
	if br.body != nil {
		body = bytes.NewReader(br.body)
	}
	r := httptest.NewRequest(br.method, signing.PrefixCanonical+br.path, body)
	if br.body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	signing.SignRequest(r, signing.SchemeA, e.key, e.secret, br.body, e.clock.Now())
	return r
}

// BenchmarkRequest serves signed requests through the real handler over
// SQLite, or PostgreSQL with ADCAMP_TEST_STORE=postgres: authentication,
// replay protection for changes, the service, the store, response
// encoding and the access log.
func BenchmarkRequest(b *testing.B) {
	b.Run("CreateCampaign", func(b *testing.B) {
		e := newBenchEnv(b)
		e.serve(b, http.StatusCreated, func(i int) benchRequest {
			body := fmt.Sprintf(`{"name":"Spring sale %d","budget_daily":25.00,"marketplace":"US"}`, i)
			return benchRequest{"POST", "/campaigns", []byte(body)}
		})
	})
	b.Run("GetCampaign", func(b *testing.B) {
		e := newBenchEnv(b)
		c := e.campaigns(b, 1)
		e.serve(b, http.StatusOK, func(int) benchRequest { return benchRequest{"GET", "/campaigns/" + c.ID, nil} })
	})
	b.Run("ListCampaigns", func(b *testing.B) {
		e := newBenchEnv(b)
		e.campaigns(b, 100)
		e.serve(b, http.StatusOK, func(int) benchRequest {
			return benchRequest{"GET", "/campaigns?page=1&page_size=20", nil}
		})
	})
	b.Run("UpdateCampaign", func(b *testing.B) {
		e := newBenchEnv(b)
		c := e.campaigns(b, 1)
		e.serve(b, http.StatusOK, func(i int) benchRequest {
			return benchRequest{"PUT", "/campaigns/" + c.ID, []byte(fmt.Sprintf(`{"name":"Renamed %d"}`, i))}
		})
	})
	// As the sitting's updates: a new budget each time, which the update
	// reads the campaign's spend for (its budget events).
	b.Run("UpdateCampaignBudget", func(b *testing.B) {
		e := newBenchEnv(b)
		c := e.campaigns(b, 1)
		e.serve(b, http.StatusOK, func(i int) benchRequest {
			return benchRequest{"PUT", "/campaigns/" + c.ID, []byte(fmt.Sprintf(`{"name":"Renamed %d","budget_daily":%d.%02d}`, i, 1+i%1000, i%100))}
		})
	})
}

// noStore runs every transaction with no database behind it: enough for
// the validation of a campaign without a channel account, which never
// reaches the store.
type noStore struct{}

func (noStore) Write(_ context.Context, fn func(store.Tx) error) error   { return fn(nil) }
func (noStore) Read(_ context.Context, fn func(store.Tx) error) error    { return fn(nil) }
func (noStore) ReadOne(_ context.Context, fn func(store.Tx) error) error { return fn(nil) }
func (noStore) Ping(context.Context) error                               { return nil }
func (noStore) Close() error                                             { return nil }

// BenchmarkValidateCampaign is the service's validation of a decoded
// create body with every field set (a dry run, with no database).
func BenchmarkValidateCampaign(b *testing.B) {
	clk := &clock{now: time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)}
	svc := service.New(service.Config{Store: noStore{}, Now: clk.Now})
	tn := adcamp.Tenant{AccountID: "acc_01jd0000000000000000000000", Environment: adcamp.Production}
	in := adcamp.CampaignInput{
		Name: adcamp.Some("Spring Sale 2026"), BudgetDaily: adcamp.Some("150.00"), Marketplace: adcamp.Some("US"),
		StartDate: adcamp.Some("2026-12-01"), EndDate: adcamp.Some("2026-12-31"),
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.CreateCampaign(context.Background(), tn, in, true); err != nil {
			b.Fatalf("CreateCampaign(dry run) = %v, want nil", err)
		}
	}
}
