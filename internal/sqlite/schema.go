package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"

	"github.com/pressly/goose/v3"

	"github.com/adcamp/adcamp/internal/store"
)

// goMigrationLocks describes the migrations written in Go (see
// newProvider), which have no file to carry a "-- Locks:" header.
// TestMigrationsDescribeTheirLocks checks that it names each of them.
var goMigrationLocks = map[int64]string{
	10: "the database's write lock while every keyword's uniqueness key is computed again " +
		"(writes wait; reads go on).",
}

// LockRule is what every migration on SQLite has in common, said once
// above the list of what each one locks.
const LockRule = "On SQLite a migration holds the database's one write lock while it runs: " +
	"other processes' writes wait for it (up to the busy timeout), reads go on."

// Migrations lists the migrations this binary carries, in order, with
// what each one locks while it runs.
func Migrations() ([]store.Migration, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(sub, "*.sql")
	if err != nil {
		return nil, err
	}
	var all []store.Migration
	for _, name := range names {
		v, err := goose.NumericComponent(name)
		if err != nil {
			return nil, err
		}
		text, err := fs.ReadFile(sub, name)
		if err != nil {
			return nil, err
		}
		all = append(all, store.Migration{Version: v, Source: name, Locks: store.LocksHeader(text)})
	}
	for v, locks := range goMigrationLocks {
		all = append(all, store.Migration{Version: v, Locks: locks})
	}
	slices.SortFunc(all, func(a, b store.Migration) int { return cmp.Compare(a.Version, b.Version) })
	return all, nil
}

// schemaOf says where the schema of the database behind q stands.
func schemaOf(ctx context.Context, q *sql.DB) (store.Schema, error) {
	all, err := Migrations()
	if err != nil {
		return store.Schema{}, err
	}
	applied, err := appliedVersions(ctx, q)
	if err != nil {
		return store.Schema{}, fmt.Errorf("read the schema's version: %w", err)
	}
	return store.NewSchema(all, applied), nil
}

// appliedVersions reads the versions goose has recorded as applied: the
// last record of each version says whether it is (a version migrated
// down is recorded again, not applied, by older goose).
func appliedVersions(ctx context.Context, q *sql.DB) ([]int64, error) {
	var tables int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'goose_db_version'`).Scan(&tables)
	if err != nil || tables == 0 {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT version_id, is_applied FROM goose_db_version ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	state := map[int64]bool{}
	for rows.Next() {
		var v int64
		var applied bool
		if err := rows.Scan(&v, &applied); err != nil {
			return nil, err
		}
		state[v] = applied
	}
	var out []int64
	for v, applied := range state {
		if applied && v > 0 {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out, rows.Err()
}

// Schema says where the database's schema stands against this binary's
// migrations.
func (db *DB) Schema(ctx context.Context) (store.Schema, error) {
	return schemaOf(ctx, db.read)
}

// Plan says where the schema of the database in dir stands, and which
// migrations Open would apply, without changing anything: a directory
// without a database has every migration pending.
func Plan(ctx context.Context, dir string) (store.Schema, error) {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		all, err := Migrations()
		return store.NewSchema(all, nil), err
	}
	q, err := OpenFile(path)
	if err != nil {
		return store.Schema{}, err
	}
	defer q.Close()
	return schemaOf(ctx, q)
}

// SchemaOf says where the schema of the SQLite database behind q stands
// (a database opened with OpenFile).
func SchemaOf(ctx context.Context, q *sql.DB) (store.Schema, error) { return schemaOf(ctx, q) }

// OpenFile opens the SQLite database file at path for reading, as it is:
// no migration, no change of its journal mode. It is for the tools that
// look at a database without serving it (backup, restore, migrate
// --dry-run).
func OpenFile(path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(10000)&_pragma=query_only(1)"
	return sql.Open("sqlite", dsn)
}
