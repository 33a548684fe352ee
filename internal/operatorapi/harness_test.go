package operatorapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/operatorapi"
	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

var ctx = context.Background()

var admin = service.WithOrigin(ctx, service.Origin{Actor: adcamp.Actor{Type: adcamp.ActorAdmin, ID: "root"}})

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// eachStore runs fn on SQLite, and on PostgreSQL when a database is given.
func eachStore(t *testing.T, fn func(t *testing.T, open func(t *testing.T) store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		fn(t, func(t *testing.T) store.Store {
			db, err := sqlite.Open(ctx, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		})
	})
	t.Run("postgres", func(t *testing.T) {
		if os.Getenv(pgtest.EnvURL) == "" {
			t.Skipf("%s is not set", pgtest.EnvURL)
		}
		fn(t, func(t *testing.T) store.Store {
			db, err := postgres.Open(ctx, pgtest.NewSchema(t).URL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		})
	})
}

// env is a running service: the two account listeners and the operator
// listener, over one store.
type env struct {
	t        testing.TB
	svc      *service.Service
	db       store.Store
	clock    *clock
	operator *httptest.Server
	accounts map[adcamp.Environment]*httptest.Server
}

var testNow = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

func newEnv(t testing.TB, db store.Store) *env {
	t.Helper()
	return newEnvWith(t, db, &clock{now: testNow})
}

// newEnvWith is newEnv on clock clk (shared by two services).
func newEnvWith(t testing.TB, db store.Store, clk *clock) *env {
	t.Helper()
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelError}))
	e := &env{t: t, db: db, clock: clk, accounts: map[adcamp.Environment]*httptest.Server{}}
	e.svc = service.New(service.Config{Store: db, Box: box, Now: clk.Now, Logger: log})
	h, err := operatorapi.New(operatorapi.Config{Operator: e.svc.Operator, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	e.operator = httptest.NewServer(h)
	t.Cleanup(e.operator.Close)
	for _, v := range []adcamp.Environment{adcamp.Production, adcamp.Sandbox} {
		h, err := httpapi.New(e.svc.Ads, e.svc.Keys, v, log)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		e.accounts[v] = srv
	}
	return e
}

// operatorKey makes an operator key.
func (e *env) operatorKey() (id, secret string) {
	e.t.Helper()
	k, err := e.svc.CreateOperatorKey(admin, "ad server")
	if err != nil {
		e.t.Fatal(err)
	}
	return k.ID, k.Secret
}

// answer is a decoded answer.
type answer struct {
	Status int
	Raw    []byte
	Body   map[string]any
}

func (a *answer) code() string {
	e, _ := a.Body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func (a *answer) data() map[string]any {
	d, _ := a.Body["data"].(map[string]any)
	return d
}

// do sends a request signed with key and secret (Scheme B) to base.
func (e *env) do(base, key, secret, method, path string, body any) *answer {
	e.t.Helper()
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			e.t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, base+path, bytes.NewReader(b))
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	signing.SignRequest(req, signing.SchemeB, key, secret, b, e.clock.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := &answer{Status: resp.StatusCode, Raw: raw}
	json.Unmarshal(raw, &a.Body)
	return a
}

// tree is an account with a campaign, an ad group and keywords in one
// environment.
type tree struct {
	tenant   adcamp.Tenant
	campaign *adcamp.Campaign
	group    *adcamp.AdGroup
	keywords []*adcamp.Keyword
}

func (e *env) tree(accountID string, v adcamp.Environment, budget string, keywords int) *tree {
	e.t.Helper()
	if accountID == "" {
		a, err := e.svc.CreateAccount(ctx, "Acme", "")
		if err != nil {
			e.t.Fatal(err)
		}
		accountID = a.ID
	}
	tn := adcamp.Tenant{AccountID: accountID, Environment: v}
	c, err := e.svc.CreateCampaign(admin, tn, adcamp.CampaignInput{Name: adcamp.Some("C"), BudgetDaily: adcamp.Some(budget),
		Marketplace: adcamp.Some("US")}, false)
	if err != nil {
		e.t.Fatal(err)
	}
	g, err := e.svc.CreateAdGroup(admin, tn, c.ID, adcamp.AdGroupInput{Name: adcamp.Some("G"), DefaultBid: adcamp.Some("0.50")}, false)
	if err != nil {
		e.t.Fatal(err)
	}
	tr := &tree{tenant: tn, campaign: c, group: g}
	if keywords > 0 {
		items := make([]adcamp.KeywordInput, keywords)
		for i := range items {
			items[i] = adcamp.KeywordInput{Text: adcamp.Some("shoe " + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26))),
				MatchType: adcamp.Some(adcamp.MatchExact)}
		}
		res, err := e.svc.CreateKeywords(admin, tn, g.ID, items, service.BatchOptions{Batch: true})
		if err != nil {
			e.t.Fatal(err)
		}
		for _, r := range res {
			tr.keywords = append(tr.keywords, r.Keyword)
		}
	}
	return tr
}

// servingIfMatch is no precondition.
var servingIfMatch = service.IfMatch{}

// testWriter logs to the test.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(string(b))
	return len(b), nil
}
