package httpapi_test

import (
	"context"
	"net/http"
	"os"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// openStore opens the database the HTTP tests run on, closed when t ends:
// SQLite in a temporary directory, or, with ADCAMP_TEST_STORE=postgres,
// PostgreSQL (ADCAMP_TEST_POSTGRES_URL) in a fresh schema.
func openStore(t testing.TB) store.Store {
	t.Helper()
	ctx := context.Background()
	var db store.Store
	var err error
	switch kind := os.Getenv("ADCAMP_TEST_STORE"); kind {
	case "", "sqlite":
		db, err = sqlite.Open(ctx, t.TempDir())
	case "postgres":
		if os.Getenv(pgtest.EnvURL) == "" {
			t.Fatalf("ADCAMP_TEST_STORE=postgres needs %s", pgtest.EnvURL)
		}
		db, err = postgres.Open(ctx, pgtest.NewSchema(t).URL)
	default:
		t.Fatalf("ADCAMP_TEST_STORE=%q: want sqlite or postgres", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestDatabaseDown cuts PostgreSQL off under a running API (through a
// proxy) and brings it back: API requests and /readyz answer 503
// SERVICE_UNAVAILABLE meanwhile, and the next request after it is back
// succeeds, with nothing restarted.
func TestDatabaseDown(t *testing.T) {
	t.Parallel()
	p := pgtest.NewProxy(t, pgtest.NewSchema(t))
	db, err := postgres.Open(context.Background(), p.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := newEnv(t, func(c *service.Config) { c.Store = db })
	prod, _ := e.account("Acme")
	prod.createCampaign(validCampaign)
	readyz := func() int {
		resp, err := http.Get(e.servers[adcamp.Production].URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	p.Stop()
	for _, req := range []struct{ method, body string }{{"GET", ""}, {"POST", validCampaign}} {
		r := prod.do(req.method, "/campaigns", req.body)
		if r.Status != http.StatusServiceUnavailable || r.Code() != string(adcamp.CodeUnavailable) {
			t.Errorf("%s /campaigns with the database down = %d %s, want 503 %s", req.method, r.Status, r.Code(), adcamp.CodeUnavailable)
		}
	}
	if got := readyz(); got != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz with the database down = %d, want 503", got)
	}

	p.Start()
	r := prod.do("GET", "/campaigns", "")
	want(t, r, http.StatusOK, "")
	if n := r.Data()["total_items"]; n != 1.0 {
		t.Errorf("total_items once the database is back = %v, want 1 (the create refused with 503 stored nothing)", n)
	}
	if got := readyz(); got != http.StatusOK {
		t.Errorf("GET /readyz once the database is back = %d, want 200", got)
	}
}
