package httpapi_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// otherProcess is a second service over the same database, as another
// adcamp process (the admin CLI, another server) would be: it shares no
// memory with the one serving e.
func (e *testEnv) otherProcess() *service.Service {
	return service.New(service.Config{Store: e.db, Box: e.box, Now: e.clock.Now, Logger: testLogger(e.t)})
}

// TestGrantsTakeEffectAtOnce: a key rolled or re-enabled by another
// process works on the very next request, although the serving process
// holds the key in its cache (CONTRACT §8).
func TestGrantsTakeEffectAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other := e.otherProcess()
	ctx := context.Background()
	prod, _ := e.account("Acme")
	want(t, prod.do("GET", "/campaigns", ""), 200, "") // cached now

	k, err := other.RollKey(ctx, prod.key, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	prod.secret = k.Secret
	want(t, prod.do("GET", "/campaigns", ""), 200, "")

	if _, err := other.SetKeyDisabled(ctx, prod.key, true); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(service.KeyCacheTTL) // the revocation is seen...
	want(t, prod.do("GET", "/campaigns", ""), 401, "UNAUTHORIZED")
	if _, err := other.SetKeyDisabled(ctx, prod.key, false); err != nil {
		t.Fatal(err)
	}
	want(t, prod.do("GET", "/campaigns", ""), 200, "") // ...and the grant at once
}

// TestRevocationWithinASecond: what another process revokes is refused
// once the cache's second has passed, and not before a request asks.
func TestRevocationWithinASecond(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other := e.otherProcess()
	prod, _ := e.account("Acme")
	want(t, prod.do("GET", "/campaigns", ""), 200, "")
	old := *prod
	if _, err := other.RollKey(context.Background(), prod.key, 0); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(service.KeyCacheTTL)
	want(t, old.do("GET", "/campaigns", ""), 401, "INVALID_SIGNATURE")
}

// countingStore counts the credential reads made through it.
type countingStore struct {
	store.Store
	reads *atomic.Int64
}

type countingTx struct {
	store.Tx
	reads *atomic.Int64
}

func (c countingTx) GetCredential(ctx context.Context, id string) (*store.Credential, error) {
	c.reads.Add(1)
	return c.Tx.GetCredential(ctx, id)
}

func (c countingStore) wrap(fn func(store.Tx) error) func(store.Tx) error {
	return func(tx store.Tx) error { return fn(countingTx{tx, c.reads}) }
}

func (c countingStore) Read(ctx context.Context, fn func(store.Tx) error) error {
	return c.Store.Read(ctx, c.wrap(fn))
}

func (c countingStore) ReadOne(ctx context.Context, fn func(store.Tx) error) error {
	return c.Store.ReadOne(ctx, c.wrap(fn))
}

func (c countingStore) Write(ctx context.Context, fn func(store.Tx) error) error {
	return c.Store.Write(ctx, c.wrap(fn))
}

// TestUnknownKeysAreRemembered: a client repeating an API key that does
// not exist costs a database read once a second, not once a request; and
// a key created meanwhile by another process works at once.
func TestUnknownKeysAreRemembered(t *testing.T) {
	t.Parallel()
	var reads atomic.Int64
	db := openStore(t)
	e := newEnv(t, func(c *service.Config) { c.Store = countingStore{db, &reads} })
	e.db = db
	prod, _ := e.account("Acme")
	stranger := *prod
	stranger.key = "ak_live_" + strings.Repeat("a", 24)
	before := reads.Load()
	for range 50 {
		want(t, stranger.do("GET", "/campaigns", ""), 401, "UNAUTHORIZED")
	}
	if n := reads.Load() - before; n != 1 {
		t.Errorf("50 requests with one unknown key read the credential %d times, want 1", n)
	}
	e.clock.Advance(service.KeyCacheTTL)
	want(t, stranger.do("GET", "/campaigns", ""), 401, "UNAUTHORIZED")
	if n := reads.Load() - before; n != 2 {
		t.Errorf("after a second, %d reads in all, want 2", n)
	}

	k, err := e.otherProcess().CreateKey(context.Background(), prod.accountID, "production")
	if err != nil {
		t.Fatal(err)
	}
	prod.key, prod.secret = k.ID, k.Secret
	want(t, prod.do("GET", "/campaigns", ""), 200, "")
}
