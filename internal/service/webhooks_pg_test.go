package service_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/webhook"
)

// TestWebhooksTwoDispatchersOnPostgres: two processes' dispatchers over
// one PostgreSQL database share the deliveries of several endpoints, and
// never send one event to one endpoint twice at once: the receiver counts
// the requests of each (endpoint, event) in flight. Every event arrives,
// and, no attempt failing, exactly once.
func TestWebhooksTwoDispatchersOnPostgres(t *testing.T) {
	t.Parallel()
	if os.Getenv(pgtest.EnvURL) == "" {
		t.Skipf("needs %s", pgtest.EnvURL)
	}
	url := pgtest.NewSchema(t).URL
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, _ := secrets.New(key)
	var svcs []*service.Service
	for range 2 {
		db, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		svcs = append(svcs, service.New(service.Config{Store: db, Box: box}))
	}
	acc, err := svcs[0].CreateAccount(ctx, "Shared", "")
	if err != nil {
		t.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: acc.ID, Environment: adcamp.Sandbox}

	var mu sync.Mutex
	inFlight, seen := map[string]int{}, map[string]int{}
	secrets := map[string]string{} // path → secret
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		k := r.URL.Path + " " + r.Header.Get("webhook-id")
		mu.Lock()
		wh, _ := webhookVerifier(secrets[r.URL.Path])
		inFlight[k]++
		if inFlight[k] > 1 {
			t.Errorf("%s: sent twice at once", k)
		}
		mu.Unlock()
		if err := wh.Verify(body, r.Header); err != nil {
			t.Errorf("%s does not verify: %v", k, err)
		}
		time.Sleep(5 * time.Millisecond) // long enough for another sender to overlap
		mu.Lock()
		inFlight[k]--
		seen[k]++
		mu.Unlock()
	}))
	defer recv.Close()
	key0 := apiKey("ak_test_x", "", "")
	const endpoints, changes = 4, 30
	for i := range endpoints {
		path := fmt.Sprintf("/e%d", i)
		e, err := svcs[0].CreateWebhookEndpoint(key0, tn, service.EndpointInput{URL: ptr(recv.URL + path)})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		secrets[path] = e.Secret
		mu.Unlock()
	}
	runCtx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var sent [2]int
	for i, s := range svcs {
		wg.Go(func() {
			s.RunWebhooks(runCtx, service.DispatchConfig{Sender: webhook.NewSender(true), Owner: fmt.Sprint("p", i),
				Poll: 10 * time.Millisecond, Workers: 2, Outcome: func(string) { mu.Lock(); sent[i]++; mu.Unlock() }})
		})
	}
	defer func() { cancel(); wg.Wait() }()
	for i := range changes {
		if _, err := svcs[i%2].CreateCampaign(key0, tn, adcamp.CampaignInput{Name: adcamp.Some(fmt.Sprint("C", i)),
			BudgetDaily: adcamp.Some("10"), Marketplace: adcamp.Some("US")}, false); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n == endpoints*changes {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d deliveries arrived", n, endpoints*changes)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("attempts by process: %v", sent)
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s arrived %d times, want once", k, n)
		}
	}
}
