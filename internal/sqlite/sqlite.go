// Package sqlite implements store.Store over an embedded SQLite database
// (modernc.org/sqlite, pure Go, no cgo).
//
// The database runs in WAL mode with foreign keys on and a busy timeout.
// Writes go through one connection (SQLite allows one writer at a time, and
// queueing in Go is cheaper than spinning on SQLITE_BUSY); reads use a pool
// of read-only connections that never block the writer. Several processes
// may open the same file (the admin CLI while serve runs): write
// transactions start with BEGIN IMMEDIATE and wait up to the busy timeout.
//
// What it cannot do: serve several machines. For that, use PostgreSQL.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/adcamp/adcamp/internal/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// FileName is the database file inside the data directory.
const FileName = "adcamp.db"

// DB is a store.Store over one SQLite file.
type DB struct {
	write *sql.DB // one connection
	read  *sql.DB // a pool of read-only connections
}

var _ store.Store = (*DB)(nil)

// Open opens (creating if needed) the database in dir and brings its schema
// up to date.
func Open(ctx context.Context, dir string) (*DB, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(dir, FileName)
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas
	w, err := sql.Open("sqlite", dsn+"&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	db := &DB{write: w}
	if err := db.migrate(ctx, dir); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, err
	}
	n := max(4, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	db.read = r
	return db, nil
}

// migrate applies the embedded migrations under an exclusive file lock, so
// that processes starting together on one data directory take turns.
func (db *DB) migrate(ctx context.Context, dir string) error {
	lock, err := os.OpenFile(filepath.Join(dir, "migrate.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db.write, sub)
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate database: %w", err)
	}
	return nil
}

// Close closes both pools.
func (db *DB) Close() error {
	return errors.Join(db.read.Close(), db.write.Close())
}

// Ping checks both pools.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.read.PingContext(ctx); err != nil {
		return err
	}
	return db.write.PingContext(ctx)
}

// Write runs fn in a write transaction on the writer connection.
func (db *DB) Write(ctx context.Context, fn func(store.Tx) error) error {
	return transact(ctx, db.write, fn)
}

// Read runs fn in a read transaction on a reader connection.
func (db *DB) Read(ctx context.Context, fn func(store.Tx) error) error {
	return transact(ctx, db.read, fn)
}

func transact(ctx context.Context, db *sql.DB, fn func(store.Tx) error) (err error) {
	sqlTx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			sqlTx.Rollback()
			panic(p)
		}
		if err != nil {
			sqlTx.Rollback()
			return
		}
		err = sqlTx.Commit()
	}()
	return fn(&tx{tx: sqlTx})
}

// tx implements store.Tx.
type tx struct{ tx *sql.Tx }

func itoa(n int) string { return strconv.Itoa(n) }

// PoolStats describes the writer connection and the reader pool.
func (db *DB) PoolStats() []store.PoolStats {
	return []store.PoolStats{poolStats("write", db.write.Stats()), poolStats("read", db.read.Stats())}
}

func poolStats(name string, s sql.DBStats) store.PoolStats {
	return store.PoolStats{Name: name, MaxOpen: s.MaxOpenConnections, Open: s.OpenConnections, InUse: s.InUse,
		Idle: s.Idle, WaitCount: s.WaitCount, WaitDuration: s.WaitDuration}
}
