package postgres

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store"
)

// TestMigrationsDescribeTheirLocks: every migration the binary carries,
// in a file or in Go, says what it locks, so that migrate --dry-run has
// something true to print for each; and Migrations lists exactly the
// versions goose applies.
func TestMigrationsDescribeTheirLocks(t *testing.T) {
	t.Parallel()
	all, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if len(m.Locks) < 20 {
			t.Errorf("migration %05d (%s) has no \"-- Locks:\" header saying what it locks: %q", m.Version, m.Source, m.Locks)
		} else if !strings.HasSuffix(m.Locks, ".") || strings.Count(m.Locks, "(") != strings.Count(m.Locks, ")") {
			// A continuation line not indented "--   " ends the header
			// mid-sentence (store.LocksHeader).
			t.Errorf("migration %05d (%s) says what it locks cut short: %q", m.Version, m.Source, m.Locks)
		}
	}
	db, err := sql.Open("pgx", "postgres://nobody@127.0.0.1:1/none") // never connected
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := newProvider(db, new([]string))
	if err != nil {
		t.Fatal(err)
	}
	var want, got []int64
	for _, s := range p.ListSources() {
		want = append(want, s.Version)
	}
	for _, m := range all {
		got = append(got, m.Version)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Migrations() versions = %v, want goose's %v", got, want)
	}
}

// TestPlanAndNewerDatabase: Plan lists what Open would apply and changes
// nothing; a database that a newer adcamp migrated is refused at Open.
func TestPlanAndNewerDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := pgtest.NewSchema(t)
	all, _ := Migrations()
	plan, err := Plan(ctx, s.URL)
	if err != nil || plan.Current != 0 || len(plan.Pending) != len(all) {
		t.Fatalf("Plan(fresh schema) = %+v, %v; want all %d migrations pending", plan, err, len(all))
	}
	if again, _ := Plan(ctx, s.URL); again.Current != 0 || len(again.Pending) != len(all) {
		t.Errorf("Plan changed the schema: %+v", again)
	}

	db, err := Open(ctx, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := db.Schema(ctx)
	if err != nil || schema.Current != schema.Latest || len(schema.Pending) != 0 {
		t.Errorf("Schema() after Open = %+v, %v; want the latest, nothing pending", schema, err)
	}
	// What a newer binary leaves: a version this one does not carry.
	if _, err := db.pool.Exec(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES ($1, true)`, schema.Latest+7); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, s.URL)
	var tooNew *store.SchemaTooNewError
	if !errors.As(err, &tooNew) || tooNew.Current != schema.Latest+7 || !strings.Contains(err.Error(), "newer adcamp") {
		t.Errorf("Open(a newer database) = %v, want a SchemaTooNewError naming a newer adcamp", err)
	}
}
