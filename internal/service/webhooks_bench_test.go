package service_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
	"github.com/adcamp/adcamp/internal/webhook"
)

// TestWebhookLatencySitting measures, at a steady rate of changes, the
// time from a change's acknowledgement (its service call returned: the
// transaction committed) to the first delivery attempt of its event at a
// receiver on 127.0.0.1, with a slow endpoint (every answer after 5 s)
// and a dead one (connection refused) subscribed beside it, which must
// delay nothing. A sitting, not a unit test: it runs only with
// ADCAMP_BENCH_WEBHOOKS=SECONDS, on SQLite and, with
// ADCAMP_TEST_POSTGRES_URL, on PostgreSQL with two dispatchers (two
// services over one database, as two serve processes). The rate is
// ADCAMP_BENCH_RATE changes a second (200). bench/notes/ keeps figures.
func TestWebhookLatencySitting(t *testing.T) {
	t.Parallel()
	secs, _ := strconv.Atoi(os.Getenv("ADCAMP_BENCH_WEBHOOKS"))
	if secs <= 0 {
		t.Skip("a sitting: set ADCAMP_BENCH_WEBHOOKS=SECONDS")
	}
	rate := 200
	if r, _ := strconv.Atoi(os.Getenv("ADCAMP_BENCH_RATE")); r > 0 {
		rate = r
	}
	t.Run("sqlite", func(t *testing.T) {
		db, err := sqlite.Open(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		sitting(t, []store.Store{db}, secs, rate)
	})
	t.Run("postgres-two-dispatchers", func(t *testing.T) {
		if os.Getenv(pgtest.EnvURL) == "" {
			t.Skip("needs " + pgtest.EnvURL)
		}
		url := pgtest.NewSchema(t).URL
		var dbs []store.Store
		for range 2 {
			db, err := postgres.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			dbs = append(dbs, db)
		}
		sitting(t, dbs, secs, rate)
	})
}

func sitting(t *testing.T, dbs []store.Store, secs, rate int) {
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, _ := secrets.New(key)
	var svcs []*service.Service
	for _, db := range dbs {
		svcs = append(svcs, service.New(service.Config{Store: db, Box: box}))
	}
	acc, err := svcs[0].CreateAccount(ctx, "Bench", "")
	if err != nil {
		t.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: acc.ID, Environment: adcamp.Sandbox}

	var mu sync.Mutex
	acked := map[string]time.Time{}   // campaign → acknowledged
	arrived := map[string]time.Time{} // campaign → first attempt arrived
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		body, _ := io.ReadAll(r.Body)
		var ev struct {
			Data struct {
				EntityID string `json:"entity_id"`
			}
		}
		_ = json.Unmarshal(body, &ev)
		mu.Lock()
		if _, ok := arrived[ev.Data.EntityID]; !ok {
			arrived[ev.Data.EntityID] = now
		}
		mu.Unlock()
	}))
	defer fast.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close() // connection refused from now on
	k := apiKey("ak_test_bench", "", "")
	for _, u := range []string{fast.URL, slow.URL, deadURL} {
		if _, err := svcs[0].CreateWebhookEndpoint(k, tn, service.EndpointInput{URL: ptr(u),
			EventTypes: &[]string{adcamp.EventCampaignCreated}}); err != nil {
			t.Fatal(err)
		}
	}
	runCtx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i, s := range svcs {
		wg.Go(func() {
			s.RunWebhooks(runCtx, service.DispatchConfig{Sender: webhook.NewSender(true), Owner: fmt.Sprint("p", i),
				Sole: len(svcs) == 1})
		})
	}
	// The load: rate creates a second, spread over the services, from a
	// few goroutines (each change its own transaction).
	n := secs * rate
	interval := time.Second / time.Duration(rate)
	var load sync.WaitGroup
	sem := make(chan struct{}, 64)
	start := time.Now()
	for i := range n {
		// On an absolute schedule, so that a slow moment is caught up.
		time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		sem <- struct{}{}
		load.Go(func() {
			defer func() { <-sem }()
			c, err := svcs[i%len(svcs)].CreateCampaign(k, tn, adcamp.CampaignInput{Name: adcamp.Some(fmt.Sprint("C", i)),
				BudgetDaily: adcamp.Some("10"), Marketplace: adcamp.Some("US")}, false)
			if err != nil {
				t.Error(err)
				return
			}
			now := time.Now()
			mu.Lock()
			acked[c.ID] = now
			mu.Unlock()
		})
	}
	load.Wait()
	elapsed := time.Since(start)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		done := len(arrived) >= n
		mu.Unlock()
		if done || time.Now().After(deadline) {
			break
		}
	}
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	var lat []time.Duration
	for id, a := range acked {
		if got, ok := arrived[id]; ok {
			lat = append(lat, max(got.Sub(a), 0))
		}
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	t.Logf("%d changes in %.1fs (%.0f/s) on %d dispatcher(s); %d delivered to the fast endpoint; "+
		"commit→first attempt p50 %v, p90 %v, p99 %v, max %v (a slow and a dead endpoint subscribed too)",
		n, elapsed.Seconds(), float64(n)/elapsed.Seconds(), len(svcs), len(lat),
		pct(0.50).Round(time.Millisecond), pct(0.90).Round(time.Millisecond), pct(0.99).Round(time.Millisecond),
		lat[len(lat)-1].Round(time.Millisecond))
	if len(lat) < n {
		t.Errorf("%d of %d events reached the fast endpoint", len(lat), n)
	}
}
