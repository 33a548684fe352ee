package sqlite

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// TestBatchedWritesStayApart holds the writer with one write while others
// queue, so that they run as one batch, and checks that each is all or
// nothing on its own: the failed and the panicking write leave nothing,
// the others are stored, and every caller gets its own result. Writes
// marked repeatable run first without savepoints: then those before the
// first failure run twice, and no write that failed runs again.
func TestBatchedWritesStayApart(t *testing.T) {
	t.Parallel()
	t.Run("savepoints", func(t *testing.T) {
		t.Parallel()
		testBatchedWritesStayApart(t, context.Background(), map[string]int{
			"cmp_ok1": 1, "cmp_failed": 1, "cmp_panicked": 1, "cmp_dup": 1, "cmp_ok2": 1})
	})
	t.Run("repeatable", func(t *testing.T) {
		t.Parallel()
		// Bare, cmp_ok1 then cmp_failed; again among savepoints, cmp_ok1
		// and every write after cmp_failed.
		testBatchedWritesStayApart(t, store.WithRepeatable(context.Background()), map[string]int{
			"cmp_ok1": 2, "cmp_failed": 1, "cmp_panicked": 1, "cmp_dup": 1, "cmp_ok2": 1})
	})
}

func testBatchedWritesStayApart(t *testing.T, ctx context.Context, wantRuns map[string]int) {
	db, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UTC().Truncate(time.Microsecond)
	acc := &adcamp.Account{ID: "acc_batch", Name: "batch", CreatedAt: now}
	if err := db.Write(ctx, func(tx store.Tx) error { return tx.CreateAccount(ctx, acc) }); err != nil {
		t.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: acc.ID, Environment: adcamp.Production}
	create := func(tx store.Tx, id string) error {
		return tx.CreateCampaign(ctx, &adcamp.Campaign{ID: id, AccountID: acc.ID, Environment: adcamp.Production,
			Name: id, BudgetDaily: 100, Marketplace: "US", Status: adcamp.StatusActive, Version: 1,
			CreatedAt: now, UpdatedAt: now})
	}

	errFailed := errors.New("failed on purpose")
	writes := []struct {
		id string
		fn func(tx store.Tx) error
	}{
		{"cmp_ok1", func(tx store.Tx) error { return create(tx, "cmp_ok1") }},
		{"cmp_failed", func(tx store.Tx) error {
			if err := create(tx, "cmp_failed"); err != nil {
				return err
			}
			return errFailed
		}},
		{"cmp_panicked", func(tx store.Tx) error {
			if err := create(tx, "cmp_panicked"); err != nil {
				return err
			}
			panic("on purpose")
		}},
		{"cmp_dup", func(tx store.Tx) error { return create(tx, "cmp_ok1") }}, // unique violation
		{"cmp_ok2", func(tx store.Tx) error { return create(tx, "cmp_ok2") }},
	}
	var fns []func(store.Tx) error
	runs := make(map[string]int) // the batch's writes run one at a time
	for _, w := range writes {
		fns = append(fns, func(tx store.Tx) error {
			runs[w.id]++
			return w.fn(tx)
		})
	}
	results := inOneBatch(t, ctx, db, func(tx store.Tx) error { return create(tx, "cmp_first") }, fns...)
	for id, n := range wantRuns {
		if runs[id] != n {
			t.Errorf("write %s ran %d times, want %d", id, runs[id], n)
		}
	}

	want := map[string]func(r batchResult) bool{
		"cmp_ok1":      func(r batchResult) bool { return r.err == nil && r.panicked == nil },
		"cmp_failed":   func(r batchResult) bool { return errors.Is(r.err, errFailed) },
		"cmp_panicked": func(r batchResult) bool { return r.panicked == "on purpose" },
		"cmp_dup":      func(r batchResult) bool { return r.err != nil && r.panicked == nil },
		"cmp_ok2":      func(r batchResult) bool { return r.err == nil && r.panicked == nil },
	}
	for i, w := range writes {
		if !want[w.id](results[i]) {
			t.Errorf("write %s: err %v, panic %v", w.id, results[i].err, results[i].panicked)
		}
	}
	var ids []string
	err = db.Read(ctx, func(tx store.Tx) error {
		cs, total, err := tx.ListCampaigns(ctx, tn, store.ListQuery{Limit: 10})
		if total != int64(len(cs)) {
			t.Errorf("total %d, but %d campaigns listed", total, len(cs))
		}
		for _, c := range cs {
			ids = append(ids, c.ID)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, id := range ids {
		stored[id] = true
	}
	for _, id := range []string{"cmp_first", "cmp_ok1", "cmp_ok2"} {
		if !stored[id] {
			t.Errorf("%s not stored; stored: %v", id, ids)
		}
	}
	if len(ids) != 3 {
		t.Errorf("stored %v, want only cmp_first, cmp_ok1 and cmp_ok2", ids)
	}
}

// batchResult is what one write of inOneBatch returned, or its panic.
type batchResult struct {
	err      error
	panicked any
}

// inOneBatch runs fns as one batch of writes of db, with ctx: a write of its own
// holds the writer (and runs hold, if not nil, once released) until every
// fn is queued behind it, in order; then they run together. It returns
// each fn's result.
func inOneBatch(t *testing.T, ctx context.Context, db *DB, hold func(store.Tx) error, fns ...func(store.Tx) error) []batchResult {
	t.Helper()
	release, held := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- db.Write(ctx, func(tx store.Tx) error {
			close(held)
			<-release
			if hold != nil {
				return hold(tx)
			}
			return nil
		})
	}()
	<-held
	results := make([]batchResult, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() {
			defer func() { results[i].panicked = recover() }()
			results[i].err = db.Write(ctx, fn)
		})
		waitFor(t, func() bool {
			db.writes.mu.Lock()
			defer db.writes.mu.Unlock()
			return len(db.writes.queue) == i+1
		})
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("the write that held the writer: %v", err)
	}
	wg.Wait()
	return results
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
	}
}
