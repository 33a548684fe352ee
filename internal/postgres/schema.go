package postgres

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/pressly/goose/v3"

	"github.com/adcamp/adcamp/internal/store"
)

// goMigrationLocks describes the migrations written in Go (see
// newProvider), which have no file to carry a "-- Locks:" header.
// TestMigrationsDescribeTheirLocks checks that it names each of them.
var goMigrationLocks = map[int64]string{
	10: "keywords: the rows of keywords whose uniqueness key changes, as each is updated " +
		"(every keyword is read; writes of the others go on).",
}

// LockRule is what every migration on PostgreSQL has in common, said once
// above the list of what each one locks.
const LockRule = "On PostgreSQL each migration runs in a transaction of its own, under an advisory lock " +
	"that lets one process migrate at a time; the locks it takes on tables last until it commits."

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

// queryer is what schemaOf reads with: a pool or a connection.
type queryer interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// schemaOf says where the schema in the connection's current schema
// stands.
func schemaOf(ctx context.Context, q queryer) (store.Schema, error) {
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
// last record of each version says whether it is.
func appliedVersions(ctx context.Context, q queryer) ([]int64, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return nil, err
	}
	rows, err := q.Query(ctx, `SELECT version_id, is_applied FROM goose_db_version ORDER BY id`)
	if err != nil {
		return nil, err
	}
	state := map[int64]bool{}
	var v int64
	var applied bool
	_, err = pgx.ForEachRow(rows, []any{&v, &applied}, func() error {
		state[v] = applied
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []int64
	for v, applied := range state {
		if applied && v > 0 {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Schema says where the database's schema stands against this binary's
// migrations.
func (db *DB) Schema(ctx context.Context) (store.Schema, error) {
	s, err := schemaOf(ctx, db.pool)
	return s, classify(ctx, err)
}

// Plan says where the schema of the database at url stands, and which
// migrations Open would apply, without changing anything.
func Plan(ctx context.Context, url string) (store.Schema, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return store.Schema{}, fmt.Errorf("database URL: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return store.Schema{}, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return schemaOf(ctx, conn)
}
