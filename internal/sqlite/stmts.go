package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// maxCachedStatements bounds a pool's statement cache. Queries are written
// with placeholders for every value, so the set of texts is small and fixed
// (a few dozen, with the forms of a campaign update); the bound only guards
// against a query built per request.
const maxCachedStatements = 256

// stmtCache keeps the statements of one pool prepared. SQLite compiles a
// statement's text into a program before it runs; without a cache that
// compilation costs more than running most of our statements.
//
// A statement is prepared on the pool, never inside a transaction: the
// writer pool has one connection, and preparing through the pool while a
// transaction holds it would wait forever. So a query first met inside a
// transaction runs unprepared that once and is noted; the next transaction
// prepares it before it begins (see prepareNoted). database/sql then
// prepares it on each connection of the pool as that connection first
// runs it, and Tx.StmtContext reuses those per-connection programs.
type stmtCache struct {
	db      *sql.DB
	files   *reportFiles // the report jobs' files, which every transaction reaches through its cache
	stmts   sync.Map     // query text → *sql.Stmt
	size    atomic.Int32
	pending atomic.Bool
	mu      sync.Mutex
	noted   map[string]bool
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, noted: make(map[string]bool)}
}

// get returns the prepared statement of q, or nil after noting q to be
// prepared before the next transaction.
func (c *stmtCache) get(q string) *sql.Stmt {
	if s, ok := c.stmts.Load(q); ok {
		return s.(*sql.Stmt)
	}
	if c.size.Load() >= maxCachedStatements {
		return nil
	}
	c.mu.Lock()
	c.noted[q] = true
	c.mu.Unlock()
	c.pending.Store(true)
	return nil
}

// prepareNoted prepares the queries noted since the last call. It must be
// called without a connection of the pool held. A statement that fails to
// prepare is dropped: the query runs unprepared and reports its error.
func (c *stmtCache) prepareNoted(ctx context.Context) {
	if !c.pending.Load() {
		return
	}
	c.mu.Lock()
	qs := make([]string, 0, len(c.noted))
	for q := range c.noted {
		qs = append(qs, q)
	}
	clear(c.noted)
	c.pending.Store(false)
	c.mu.Unlock()
	for _, q := range qs {
		if _, ok := c.stmts.Load(q); ok || c.size.Load() >= maxCachedStatements {
			continue
		}
		s, err := c.db.PrepareContext(ctx, q)
		if err != nil {
			continue
		}
		if _, loaded := c.stmts.LoadOrStore(q, s); loaded {
			s.Close()
			continue
		}
		c.size.Add(1)
	}
}

// close closes every cached statement.
func (c *stmtCache) close() {
	c.stmts.Range(func(_, s any) bool {
		s.(*sql.Stmt).Close()
		return true
	})
}

// exec runs a statement that returns no rows, prepared if it can be, in
// the transaction or (ReadOne) straight on the pool.
func (t *tx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	ctx = t.ctx(ctx)
	s := t.stmts.get(q)
	switch {
	case t.tx == nil && s != nil:
		return s.ExecContext(ctx, args...)
	case t.tx == nil:
		return t.pool.ExecContext(ctx, q, args...)
	case s != nil:
		return t.tx.StmtContext(ctx, s).ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, q, args...)
}

// query runs a statement that returns rows, prepared if it can be.
func (t *tx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	ctx = t.ctx(ctx)
	s := t.stmts.get(q)
	switch {
	case t.tx == nil && s != nil:
		return s.QueryContext(ctx, args...)
	case t.tx == nil:
		return t.pool.QueryContext(ctx, q, args...)
	case s != nil:
		return t.tx.StmtContext(ctx, s).QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, q, args...)
}

// queryRow runs a statement that returns at most one row, prepared if it
// can be.
func (t *tx) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	ctx = t.ctx(ctx)
	s := t.stmts.get(q)
	switch {
	case t.tx == nil && s != nil:
		return s.QueryRowContext(ctx, args...)
	case t.tx == nil:
		return t.pool.QueryRowContext(ctx, q, args...)
	case s != nil:
		return t.tx.StmtContext(ctx, s).QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, q, args...)
}
