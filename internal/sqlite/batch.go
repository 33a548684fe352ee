package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/adcamp/adcamp/internal/store"
)

// maxBatch bounds how many writes share one commit, and so how long the
// last of them waits for the first.
const maxBatch = 64

// batcher commits concurrent writes together ("group commit").
//
// SQLite has one writer, so concurrent writes queue anyway; what costs is
// the commit of each (its WAL frames and locks), and several writes queued
// behind one another mostly touch the same pages. So the writes that are
// waiting when the writer gets free run in one transaction, each inside a
// savepoint of its own: a write that fails is rolled back to its savepoint
// without touching the others, and each is answered only after the commit
// that made it durable. If that commit fails, every write of the batch
// fails and none is stored.
//
// There is no writer goroutine: the first caller to find the writer free
// leads. It runs the queued batch, which holds its own write, then hands
// the lead to the first write queued meanwhile, and returns.
type batcher struct {
	stmts  *stmtCache
	caches *writerCaches

	mu      sync.Mutex
	queue   []*writeJob
	leading bool

	// catchUp is set after a checkpoint beside the writer: the next
	// leader copies what it left (see checkpointLoop).
	catchUp atomic.Bool

	// forming is set while a leader yields for its batch to fill (see
	// stepAside).
	forming atomic.Bool
}

type writeJob struct {
	fn         func(store.Tx) error
	repeatable bool // fn may run again (store.WithRepeatable)
	err        error
	panic      any       // what fn panicked with, re-raised in the caller
	answered   bool      // err and panic are final: fn does not run again
	wake       chan bool // true: lead the next batch; false: done
}

var jobPool = sync.Pool{New: func() any { return &writeJob{wake: make(chan bool, 1)} }}

// write runs fn in a write transaction, possibly shared with other writes.
// A repeatable fn (store.WithRepeatable) may run more than once.
func (b *batcher) write(fn func(store.Tx) error, repeatable bool) error {
	j := jobPool.Get().(*writeJob)
	j.fn, j.repeatable = fn, repeatable
	b.mu.Lock()
	b.queue = append(b.queue, j)
	if b.leading {
		b.mu.Unlock()
		if lead := <-j.wake; lead {
			b.mu.Lock()
			b.lead()
		}
	} else {
		b.leading = true
		// Let the requests that are ready to run reach the queue before
		// the batch is taken: on few cores they would otherwise only run
		// once this write is done, and every write would commit alone.
		// Reads meanwhile step aside (see stepAside).
		b.mu.Unlock()
		b.forming.Store(true)
		runtime.Gosched()
		b.forming.Store(false)
		b.mu.Lock()
		b.lead()
	}
	err, p := j.err, j.panic
	*j = writeJob{wake: j.wake}
	jobPool.Put(j)
	if p != nil {
		panic(p)
	}
	return err
}

// lead runs the queued writes (the caller's among them) and passes the
// lead on. It is called with b.mu held and returns with it released.
func (b *batcher) lead() {
	n := min(len(b.queue), maxBatch)
	batch := make([]*writeJob, n)
	copy(batch, b.queue)
	b.queue = append(b.queue[:0], b.queue[n:]...)
	b.mu.Unlock()

	// Whatever happens in run, the lead passes on and every caller of the
	// batch is answered: a leader that vanished would hold every write.
	defer func() {
		p := recover()
		if p != nil {
			for _, j := range batch {
				if j.err == nil && j.panic == nil {
					j.err = fmt.Errorf("write batch: %v", p)
				}
			}
		}
		// The caller's own write was in this batch: its result is set,
		// and the others' are told. A checkpoint to catch up runs once
		// they are answered, before the next batch.
		if b.catchUp.CompareAndSwap(true, false) {
			b.answer(batch)
			b.checkpoint()
			b.passLead()
		} else {
			b.passLead()
			b.answer(batch)
		}
		if p != nil {
			panic(p)
		}
	}()
	b.run(batch)
}

// answer tells the callers of a batch, but the leader, that their writes
// are done.
func (b *batcher) answer(batch []*writeJob) {
	for _, j := range batch[1:] {
		j.wake <- false
	}
}

// passLead wakes the first queued write to lead the next batch, or leaves
// the writer free.
func (b *batcher) passLead() {
	b.mu.Lock()
	if len(b.queue) > 0 {
		b.queue[0].wake <- true
	} else {
		b.leading = false
	}
	b.mu.Unlock()
}

// checkpoint copies the pages of the WAL that a checkpoint beside the
// writer could not (those written while it ran): on the writer's
// connection no write is appended meanwhile, so it copies them all, and
// the next write starts the WAL over. An error leaves the WAL to the next
// checkpoint.
func (b *batcher) checkpoint() {
	_, _ = b.stmts.db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
}

// stepAside is called by reads: while a leader yields for its batch to
// fill, a read yields once too, and runs after the batch's commit. On one
// core the requests ready to run take turns, and the leader's turn comes
// after theirs: every read that ran first pushed the commit, and so every
// change of the batch, further back. Reads now wait a little longer and
// changes less: at 64 connections on one core the p99 of changes went from
// 27-29 ms to 22-27, reads' from 17-19 to 20-24
// (bench/notes/2026-11-23-sqlite-sitting.md).
func (b *batcher) stepAside() {
	if b.forming.Load() {
		runtime.Gosched()
	}
}

// run executes a batch in one transaction. Statements run without the
// callers' contexts: a change is never cut short because its client hung
// up, and an interrupted statement would roll back the whole transaction,
// the other callers' writes with it.
//
// Each write runs in a savepoint of its own, so that one that fails is
// undone alone; but a savepoint copies every page its write changes
// before changing it (SQLite's sub-journal), and costs two statements.
// A batch of repeatable writes (store.WithRepeatable: the API's changes)
// first runs without them (runBare); should one fail, the transaction is
// rolled back, that write keeps its answer, and the others run again as
// below. Writes seldom fail, and a campaign's create cost 14 % less this
// way (bench/notes/39-sqlite.md).
func (b *batcher) run(batch []*writeJob) {
	ctx := context.Background()
	if len(batch) == 1 {
		j := batch[0]
		j.panic, j.err = transactOne(ctx, b.stmts, b.caches, j.fn)
		return
	}
	if repeatable(batch) && b.runBare(ctx, batch) {
		return
	}
	sqlTx, err := b.beginBatch(ctx)
	if err != nil {
		for _, j := range batch {
			if !j.answered {
				j.err = err
			}
		}
		return
	}
	t := b.caches.newTx(sqlTx, b.stmts)
	for _, j := range batch {
		if j.answered {
			continue // failed in runBare
		}
		mark := t.markStages()
		err := b.runOne(ctx, t, j)
		if j.err != nil || j.panic != nil {
			t.undoStages(mark) // rolled back to its savepoint
		}
		if err != nil {
			// The transaction itself is broken: nothing of it can commit.
			sqlTx.Rollback()
			for _, j := range batch {
				if j.err == nil && j.panic == nil {
					j.err = err
				}
			}
			return
		}
	}
	if err := sqlTx.Commit(); err != nil {
		for _, j := range batch {
			if j.err == nil && j.panic == nil {
				j.err = err
			}
		}
		return
	}
	t.commitStages()
}

func (b *batcher) beginBatch(ctx context.Context) (*sql.Tx, error) {
	b.stmts.prepareNoted(ctx)
	return b.stmts.db.BeginTx(ctx, nil)
}

// repeatable reports whether every write of batch may run again.
func repeatable(batch []*writeJob) bool {
	for _, j := range batch {
		if !j.repeatable {
			return false
		}
	}
	return true
}

// runBare runs a batch's writes in one transaction without savepoints,
// and commits it if every one succeeds. If one fails, it rolls the
// transaction back, leaves that write answered (its error or panic is
// what it would have been among savepoints: it ran after the same writes)
// and the others' results unset, and returns false for run to run them
// again. It returns true once every write of the batch is answered.
func (b *batcher) runBare(ctx context.Context, batch []*writeJob) bool {
	sqlTx, err := b.beginBatch(ctx)
	if err != nil {
		for _, j := range batch {
			j.err = err
		}
		return true
	}
	t := b.caches.newTx(sqlTx, b.stmts)
	for _, j := range batch {
		if j.runIn(t) {
			sqlTx.Rollback()
			j.answered = true
			for _, o := range batch {
				if o != j {
					o.err, o.panic = nil, nil
				}
			}
			return false
		}
	}
	if err := sqlTx.Commit(); err != nil {
		for _, j := range batch {
			j.err = err
		}
		return true
	}
	t.commitStages()
	return true
}

// runIn runs j's fn in t, setting j's error or the panic it raised, and
// reports whether it failed.
func (j *writeJob) runIn(t *tx) (failed bool) {
	defer func() {
		if p := recover(); p != nil {
			j.panic, failed = p, true
		}
	}()
	j.err = j.fn(t)
	return j.err != nil
}

// runOne runs one write of a batch inside a savepoint. It sets j's
// result, and returns an error only if the transaction cannot go on.
func (b *batcher) runOne(ctx context.Context, t *tx, j *writeJob) (broken error) {
	if _, err := t.exec(ctx, `SAVEPOINT w`); err != nil {
		j.err = err
		return err
	}
	if j.runIn(t) {
		if _, err := t.exec(ctx, `ROLLBACK TO w`); err != nil {
			return fmt.Errorf("roll back a failed write of a batch: %w", err)
		}
		t.endpointsChanged() // it may have changed them, and found them so
	}
	if _, err := t.exec(ctx, `RELEASE w`); err != nil {
		if j.err == nil && j.panic == nil {
			j.err = err
		}
		return err
	}
	return nil
}

// transactOne runs fn alone in a transaction, committed if fn returns nil.
func transactOne(ctx context.Context, stmts *stmtCache, caches *writerCaches, fn func(store.Tx) error) (panicked any, err error) {
	defer func() {
		if p := recover(); p != nil {
			panicked, err = p, errors.New("write panicked")
		}
	}()
	return nil, transact(ctx, stmts, caches, fn)
}
