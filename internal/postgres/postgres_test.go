package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

// open opens a store on url, closed when t ends.
func open(t *testing.T, url string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestStore runs the shared store suite, each test in a schema of its own.
func TestStore(t *testing.T) {
	t.Parallel()
	pgtest.BaseURL(t)
	storetest.Run(t, func(t *testing.T) store.Store { return open(t, pgtest.NewSchema(t).URL) })
}

// TestConcurrentOpen starts several stores on one fresh schema at once,
// as several servers starting together would: the migrations run once.
func TestConcurrentOpen(t *testing.T) {
	t.Parallel()
	s := pgtest.NewSchema(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			db, err := postgres.Open(context.Background(), s.URL)
			if err == nil {
				err = db.Write(context.Background(), func(tx store.Tx) error {
					return tx.CreateAccount(context.Background(), &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, time.Now()), Name: "A"})
				})
				db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open and Write #%d = %v, want nil", i, err)
		}
	}
}

// createAccount writes an account and returns Write's error.
func createAccount(db store.Store) error {
	ctx := context.Background()
	return db.Write(ctx, func(tx store.Tx) error {
		return tx.CreateAccount(ctx, &adcamp.Account{ID: adcamp.NewID(adcamp.PrefixAccount, time.Now()), Name: "A"})
	})
}

// readAccount looks an account up through Read (a missing one is no error).
func readAccount(db store.Store) error { return lookUpAccount(db.Read) }

// readOneAccount is readAccount through ReadOne, without a transaction.
func readOneAccount(db store.Store) error { return lookUpAccount(db.ReadOne) }

func lookUpAccount(read func(context.Context, func(store.Tx) error) error) error {
	ctx := context.Background()
	return read(ctx, func(tx store.Tx) error {
		_, err := tx.GetAccount(ctx, "acc_missing")
		if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
			return nil
		}
		return err
	})
}

// TestConnectionsTerminated ends the store's connections from the server
// side, as a restart of PostgreSQL does: the next call succeeds or answers
// SERVICE_UNAVAILABLE, and the pool recovers on its own.
func TestConnectionsTerminated(t *testing.T) {
	t.Parallel()
	s := pgtest.NewSchema(t)
	db := open(t, s.URL)
	for round := range 3 {
		// Fill the pool with idle connections, some idle for under a
		// second (not pinged by the pool before use).
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { readAccount(db) })
		}
		wg.Wait()
		n, err := s.TerminateConnections(context.Background())
		if err != nil || n == 0 {
			t.Fatalf("round %d: TerminateConnections = %d, %v; want some connections ended", round, n, err)
		}
		for i, call := range []func(store.Store) error{createAccount, readAccount, readOneAccount} {
			err := call(db)
			t.Logf("round %d: call %d after terminating %d connections: %v", round, i, n, err)
			if err != nil && adcamp.ErrorCode(err) != adcamp.CodeUnavailable {
				t.Errorf("round %d: call %d after termination = %v (%s), want success or %s",
					round, i, err, adcamp.ErrorCode(err), adcamp.CodeUnavailable)
			}
		}
		if err := createAccount(db); err != nil {
			t.Errorf("round %d: Write once the pool has redialled = %v, want nil", round, err)
		}
		if err := db.Ping(context.Background()); err != nil {
			t.Errorf("round %d: Ping once the pool has redialled = %v, want nil", round, err)
		}
	}
}

// TestDatabaseDown cuts the store off from PostgreSQL (through a proxy
// that stops listening and drops every connection), then restores it.
func TestDatabaseDown(t *testing.T) {
	t.Parallel()
	p := pgtest.NewProxy(t, pgtest.NewSchema(t))
	db := open(t, p.URL)
	if err := createAccount(db); err != nil {
		t.Fatalf("Write through the proxy = %v", err)
	}

	p.Stop()
	ctx := context.Background()
	for name, err := range map[string]error{"Write": createAccount(db), "Read": readAccount(db), "ReadOne": readOneAccount(db),
		"Ping": db.Ping(ctx)} {
		if code := adcamp.ErrorCode(err); code != adcamp.CodeUnavailable {
			t.Errorf("%s with the database down = %v (%s), want %s", name, err, code, adcamp.CodeUnavailable)
		}
	}

	p.Start()
	if err := createAccount(db); err != nil {
		t.Errorf("Write once the database is back = %v, want nil", err)
	}
	if err := readOneAccount(db); err != nil {
		t.Errorf("ReadOne once the database is back = %v, want nil", err)
	}
	if err := db.Ping(ctx); err != nil {
		t.Errorf("Ping once the database is back = %v, want nil", err)
	}
}

func TestOpenBadURL(t *testing.T) {
	t.Parallel()
	for _, u := range []string{
		"postgres://u@127.0.0.1:1/db?sslmode=disable", // nothing listens on port 1
		"postgres://u@127.0.0.1/db?sslmode=nonsense",
	} {
		if db, err := postgres.Open(context.Background(), u); err == nil {
			db.Close()
			t.Errorf("Open(%s) = nil error, want one", u)
		}
	}
}
