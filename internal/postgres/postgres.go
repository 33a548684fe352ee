// Package postgres implements store.Store over PostgreSQL (pgx v5, a
// native connection pool), so that several adcamp processes can serve one
// database.
//
// Write transactions run at SERIALIZABLE, the isolation SQLite gives by
// having one writer, except those whose context the service marked with
// store.WithRowLocks (the changes of campaigns, ad groups and keywords,
// with their replay records): those run at READ COMMITTED, and their
// reads of the rows they change lock them (FOR NO KEY UPDATE), which is
// all their rules need (the argument is in docs/postgresql.md,
// "Isolation"). A transaction that PostgreSQL aborts as a
// serialization failure (40001) or a deadlock (40P01) is run again from
// the start, fn included, at most five times with a short jittered pause;
// after the fifth it fails with CONFLICT. So fn must be safe to run again:
// it may not keep state from a previous run. A write transaction sends its
// statements through a pipe (pipe.go): BEGIN with the first statement, and
// the writes whose results matter only at the commit with the next
// statement or with COMMIT. Reads run at REPEATABLE READ,
// read only, so that their statements see one snapshot; a ReadOne call
// runs on a pooled connection without BEGIN and COMMIT, each of its
// calls being one statement, its own snapshot (a list's page carries its
// total; only an empty page reads its total after it).
//
// When the database cannot be reached (it is down, restarting, or the
// connection broke), Write, Read and Ping fail with an error whose
// adcamp.ErrorCode is SERVICE_UNAVAILABLE; the cause stays in its chain.
// A transaction whose connection broke before COMMIT is retried like a
// serialization failure; one that broke during COMMIT is not, because
// PostgreSQL may or may not have committed it, and the caller is told the
// database is unavailable. The pool drops broken connections and dials
// again on demand, so service resumes by itself when the database is back.
//
// Nothing is cached between transactions: every process sees every
// other's commits at once. The totals of lists of campaigns, ad groups
// and keywords are not counted but kept (counts.go): triggers append
// changes, and each process folds them into the counters every quarter
// second, and vacuums the tables of those changes every 2 s, in a
// goroutine that Close stops.
//
// Limits: times are stored as Unix microseconds (finer parts are cut, as
// in SQLite). One pool per process, of 4 connections a core and at least
// 8 unless the URL sets pool_max_conns (and the other pgxpool parameters);
// a connect timeout of 5 s unless the URL sets connect_timeout.
// Statements are prepared and cached per connection, which PgBouncer in
// transaction mode does not allow: add default_query_exec_mode=exec (or
// simple_protocol) to the URL there. A write transaction keeps its
// connection from BEGIN to COMMIT, as PgBouncer's transaction mode needs.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// maxAttempts bounds how often a transaction is tried.
const maxAttempts = 5

// DB is a store.Store over a PostgreSQL connection pool.
type DB struct {
	pool *pgxpool.Pool

	stop, stopped chan struct{} // of foldLoop
	closeOnce     sync.Once

	notices []string // see Notices

	campaigns *campaignCache   // see campaignCache
	places    store.PlaceCache // where keywords lie (DeliveryKeywords)
	hours     store.HourCache  // what this process stored of delivery_hours (PutDelivery)
}

var (
	_ store.Store         = (*DB)(nil)
	_ store.StatsReporter = (*DB)(nil)
)

// Open connects to the database at url (postgres://user@host/db?...) and
// brings its schema up to date. The tables live in the connection's
// current schema: add search_path=NAME to the URL to choose another one.
// Processes that start together take turns at the migration (an advisory
// lock per database and schema).
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = defaultMaxConns()
	}
	return openConfig(ctx, cfg)
}

// defaultMaxConns is the pool's size unless the URL sets pool_max_conns:
// 4 per core the process may use, at least 8. A change holds its
// connection while its COMMIT waits for the WAL to reach the disk, and
// commits that wait together share one flush, so a pool much smaller
// than the clients queues reads behind commits; but every connection
// more is a backend more for PostgreSQL to schedule and to contend on
// the same index pages. In sittings that took turns (one core for
// adcamp, PostgreSQL on the same two cores, 16 and 64 clients), 8
// connections served 5-14 % more than 16, as much as 12, and 4 served
// less (pgxpool's own default; figures in
// bench/notes/2026-11-26-postgresql-second-pass.md).
func defaultMaxConns() int32 {
	return int32(max(8, 4*runtime.GOMAXPROCS(0)))
}

// openConfig is Open with the pool's configuration parsed (tests add to it).
func openConfig(ctx context.Context, cfg *pgxpool.Config) (*DB, error) {
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	db := &DB{pool: pool, stop: make(chan struct{}), stopped: make(chan struct{}),
		campaigns: newCampaignCache(maxCachedCampaigns)}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	go db.foldLoop(foldEvery)
	return db, nil
}

// migrate applies the embedded migrations through database/sql, which
// goose needs, borrowing connections from the pool. It refuses a database
// that a newer adcamp has migrated, before and after (another process may
// have migrated it meanwhile, under the lock that goose takes).
func (db *DB) migrate(ctx context.Context) error {
	if err := db.checkSchema(ctx); err != nil {
		return err
	}
	var where string
	err := db.pool.QueryRow(ctx, `SELECT current_database() || '.' || coalesce(current_schema(), '')`).Scan(&where)
	if err != nil {
		return err
	}
	if strings.HasSuffix(where, ".") {
		return errors.New("the connection has no current schema: check search_path")
	}
	h := fnv.New64a()
	io.WriteString(h, "adcamp migrations "+where)
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(int64(h.Sum64())), lock.WithLockTimeout(1, 300))
	if err != nil {
		return err
	}
	sqlDB := stdlib.OpenDBFromPool(db.pool)
	defer sqlDB.Close()
	p, err := newProvider(sqlDB, &db.notices, goose.WithSessionLocker(locker))
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate database: %w", err)
	}
	return db.checkSchema(ctx)
}

// checkSchema refuses a database whose schema is newer than this binary's.
func (db *DB) checkSchema(ctx context.Context) error {
	s, err := schemaOf(ctx, db.pool)
	if err != nil {
		return err
	}
	return s.Check()
}

// newProvider returns the migrations: the embedded SQL files, and the
// ones written in Go, which add what they find for the operator to
// notices.
func newProvider(db *sql.DB, notices *[]string, opts ...goose.ProviderOption) (*goose.Provider, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	rekey := goose.NewGoMigration(10, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
		collisions, err := store.RekeyKeywords(ctx, tx)
		for _, c := range collisions {
			*notices = append(*notices, "migration 00010: "+c.String())
		}
		return err
	}}, nil)
	return goose.NewProvider(goose.DialectPostgres, db, sub, append(opts, goose.WithGoMigrations(rekey))...)
}

// Notices returns what the migrations run by Open found for the operator
// to resolve (keywords whose texts came to read alike).
func (db *DB) Notices() []string { return db.notices }

// Close stops folding counts and closes the pool, waiting for connections
// in use to come back.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		close(db.stop)
		<-db.stopped
		db.pool.Close()
	})
	return nil
}

// Ping checks that the database answers on a connection of the pool.
func (db *DB) Ping(ctx context.Context) error {
	err := db.pool.Ping(ctx)
	db.resetIfBroken(ctx, err)
	return classify(ctx, err)
}

// resetIfBroken closes every connection of the pool after err broke one:
// the others, idle beside it, are likely broken too (a restart of the
// database, a network cut), and new ones are dialled on demand. An error
// that the caller's cancellation caused says nothing about them.
func (db *DB) resetIfBroken(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil && isConnError(err) {
		db.pool.Reset()
	}
}

// PoolStats describes the connection pool.
func (db *DB) PoolStats() []store.PoolStats {
	s := db.pool.Stat()
	return []store.PoolStats{{
		Name: "postgres", MaxOpen: int(s.MaxConns()), Open: int(s.TotalConns()), InUse: int(s.AcquiredConns()),
		Idle: int(s.IdleConns()), WaitCount: s.EmptyAcquireCount(), WaitDuration: s.EmptyAcquireWaitTime(),
	}}
}

var readTx = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// The BEGIN of a write transaction: SERIALIZABLE, or READ COMMITTED for a
// transaction whose context says that row locks make it correct
// (store.WithRowLocks); its reads of the rows it changes then lock them
// (tx.lock).
const (
	beginSerializable = "BEGIN ISOLATION LEVEL SERIALIZABLE"
	beginRowLocks     = "BEGIN ISOLATION LEVEL READ COMMITTED"
)

// Write runs fn in a write transaction (a pipe), again if PostgreSQL asks.
func (db *DB) Write(ctx context.Context, fn func(store.Tx) error) error {
	begin := beginSerializable
	if store.RowLocks(ctx) {
		begin = beginRowLocks
		if store.VersionGuards(ctx) {
			// First without locks (see pipe.unlocked): two statements less
			// and no lock to write. An attempt that could not run so, or
			// that found the row changed, or failed in a way worth another
			// attempt, runs again below, with row locks.
			again, err := db.attemptWrite(ctx, begin, true, fn)
			if err == nil || !again && !errors.Is(err, errNeedsLocks) && !errors.Is(err, errVersionMoved) &&
				!errors.Is(err, errCachedRead) {
				return err
			}
			db.resetIfBroken(ctx, err)
		}
	}
	return db.retry(ctx, func() (bool, error) { return db.attemptWrite(ctx, begin, false, fn) })
}

// attemptWrite is attempt for a write transaction, sent through a pipe;
// unlocked, as pipe.unlocked says.
func (db *DB) attemptWrite(ctx context.Context, begin string, unlocked bool, fn func(store.Tx) error) (again bool, err error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		var dial *pgconn.ConnectError
		return isConnError(err) && !errors.As(err, &dial), err
	}
	defer conn.Release()
	p := &pipe{conn: conn, begin: begin, unlocked: unlocked}
	defer func() {
		if v := recover(); v != nil {
			p.rollback(context.WithoutCancel(ctx))
			panic(v)
		}
	}()
	stage := &store.HourStage{Cache: &db.hours}
	if err := fn(&tx{tx: p, pipe: p, cache: db.campaigns, places: &db.places, hours: stage}); err != nil {
		rollbackPipe(ctx, p)
		return isSerializationFailure(err) || isConnError(err), p.failed(err)
	}
	if !p.checked() {
		// An answer from a cached copy that nothing checked: not one.
		rollbackPipe(ctx, p)
		return false, errCachedRead
	}
	if err := p.commit(ctx); err != nil {
		rollbackPipe(ctx, p)
		// A failure of a statement sent with COMMIT (it was skipped) may
		// be retried like one sent before it; a connection broken while
		// COMMIT was on its way may have committed.
		return isSerializationFailure(err), p.failed(err)
	}
	for _, c := range p.stored {
		db.campaigns.put(c)
	}
	stage.Commit()
	return false, nil
}

// rollbackPipe is rollback for a pipe.
func rollbackPipe(ctx context.Context, p *pipe) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	p.rollback(ctx)
}

// Read runs fn in a REPEATABLE READ, read-only transaction.
func (db *DB) Read(ctx context.Context, fn func(store.Tx) error) error {
	return db.transact(ctx, readTx, fn)
}

// ReadOne runs fn, which makes one call on its Tx, on a connection of the
// pool, without BEGIN and COMMIT: one round trip instead of three. Every
// call is one statement, which sees one snapshot (a list's page carries
// its total, see pageWithTotal).
func (db *DB) ReadOne(ctx context.Context, fn func(store.Tx) error) error {
	return db.retry(ctx, func() (bool, error) { return db.attemptOne(ctx, fn) })
}

// attemptOne runs fn once on a pooled connection, like attempt.
func (db *DB) attemptOne(ctx context.Context, fn func(store.Tx) error) (again bool, err error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		var dial *pgconn.ConnectError
		return isConnError(err) && !errors.As(err, &dial), err
	}
	defer conn.Release()
	if err := fn(&tx{tx: conn, cache: db.campaigns, places: &db.places}); err != nil {
		return isSerializationFailure(err) || isConnError(err), err
	}
	return false, nil
}

func (db *DB) transact(ctx context.Context, opts pgx.TxOptions, fn func(store.Tx) error) error {
	return db.retry(ctx, func() (bool, error) { return db.attempt(ctx, opts, fn) })
}

// retry runs try until it succeeds, fails in a way it says is not worth
// another attempt, or has tried maxAttempts times, pausing in between.
func (db *DB) retry(ctx context.Context, try func() (again bool, err error)) error {
	for attempt := 1; ; attempt++ {
		again, err := try()
		if err == nil {
			return nil
		}
		db.resetIfBroken(ctx, err)
		if !again || attempt == maxAttempts || ctx.Err() != nil {
			return classify(ctx, err)
		}
		pause := time.Duration(1<<attempt) * time.Millisecond * 2 // 4, 8, 16, 32 ms
		select {
		case <-ctx.Done():
			return classify(ctx, err)
		case <-time.After(pause/2 + rand.N(pause/2)):
		}
	}
}

// attempt runs fn once in a transaction, and says whether a failure may
// be retried: a serialization failure or deadlock anywhere, or a pooled
// connection found broken before COMMIT was sent. A failure to dial is
// not retried: the pool has just tried, and the database is down.
func (db *DB) attempt(ctx context.Context, opts pgx.TxOptions, fn func(store.Tx) error) (again bool, err error) {
	pgTx, err := db.pool.BeginTx(ctx, opts)
	if err != nil {
		var dial *pgconn.ConnectError
		return isConnError(err) && !errors.As(err, &dial), err
	}
	defer func() {
		if p := recover(); p != nil {
			rollback(ctx, pgTx)
			panic(p)
		}
	}()
	if err := fn(&tx{tx: pgTx, cache: db.campaigns, places: &db.places}); err != nil {
		rollback(ctx, pgTx)
		return isSerializationFailure(err) || isConnError(err), err
	}
	if err := pgTx.Commit(ctx); err != nil {
		return isSerializationFailure(err), err
	}
	return false, nil
}

// rollback ends a failed transaction, even for a caller that has gone,
// without waiting long on a connection that no longer answers (the pool
// then closes it).
func rollback(ctx context.Context, pgTx pgx.Tx) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	pgTx.Rollback(ctx)
}

// classify gives a database failure the code the API answers with: a
// database that cannot be reached is SERVICE_UNAVAILABLE, and a
// transaction that kept losing to concurrent ones is CONFLICT. A canceled
// caller, or an error with a code already, is left as it is.
func classify(ctx context.Context, err error) error {
	var coded *adcamp.Error
	switch {
	case err == nil || ctx.Err() != nil || errors.As(err, &coded):
		return err
	case isConnError(err):
		return fmt.Errorf("%w: %w", &adcamp.Error{Code: adcamp.CodeUnavailable, Message: "the database is unavailable; retry later"}, err)
	case isSerializationFailure(err):
		return fmt.Errorf("%w: %w", &adcamp.Error{Code: adcamp.CodeConflict,
			Message: "the request kept conflicting with concurrent requests; retry it"}, err)
	}
	return err
}

// isSerializationFailure recognises the errors after which PostgreSQL
// expects a transaction to be run again, by SQLSTATE.
func isSerializationFailure(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && (e.Code == "40001" || e.Code == "40P01")
}

// isConnError recognises a database that cannot be reached or a
// connection that broke, as opposed to an error in a statement.
func isConnError(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08, connection exception; 57P01-57P03, the server is
		// shutting down, crashed or is starting (pg_terminate_backend
		// sends 57P01).
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || pgconn.SafeToRetry(err) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// tx implements store.Tx.
type tx struct {
	tx     querier           // the transaction, or for ReadOne the connection
	pipe   *pipe             // of a write transaction, else nil
	cache  *campaignCache    // the DB's
	places *store.PlaceCache // the DB's
	hours  *store.HourStage  // of a write transaction, for the DB's HourCache; else nil
}

// later runs a statement whose result matters only at the commit: in a
// write transaction it waits for the next round trip (see pipe), and
// check, which turns its result into the error to fail with, sees the
// result then; elsewhere it runs at once. Only a statement that cannot
// fail for what the service decides on (it writes a row the transaction
// has locked, or a new one) may wait: its failure surfaces from Write,
// not from the call.
func (t *tx) later(ctx context.Context, check func(pgconn.CommandTag, error) error, sql string, args ...any) error {
	if t.pipe != nil {
		t.pipe.queue(sql, args, check)
		return nil
	}
	return check(t.tx.Exec(ctx, sql, args...))
}

// laterFolded is later for an INSERT whose only failure is an error and
// that reads nothing another statement of the transaction writes: in a
// pipe it may go as a WITH query of the replay record's statement (see
// pipe.take), one statement less to bind and run.
func (t *tx) laterFolded(ctx context.Context, sql string, args ...any) error {
	if t.pipe != nil {
		t.pipe.later = append(t.pipe.later, queued{sql: sql, args: args, check: execErr, fold: true})
		return nil
	}
	return t.later(ctx, execErr, sql, args...)
}

// execErr is the check of a statement whose only failure is an error.
func execErr(_ pgconn.CommandTag, err error) error { return err }

// lock is the row lock clause of a read of a row that the transaction
// may change: in a write transaction, FOR NO KEY UPDATE, so that the
// row's version and status stay as read until the commit (at READ
// COMMITTED this is what keeps two changes of one row apart); none in a
// read.
func (t *tx) lock() string {
	if t.pipe != nil && !t.pipe.unlocked {
		return " FOR NO KEY UPDATE"
	}
	return ""
}

// querier runs statements: pgx.Tx and *pgxpool.Conn both do.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}
