package postgres

import (
	"context"
	"database/sql"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

// TestMigration10Rekeys: migration 00010 gives every keyword the key of
// adcamp.KeywordKey, and reports the keywords that came to read alike.
func TestMigration10Rekeys(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("pgx", pgtest.NewSchema(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var notices []string
	p, err := newProvider(db, &notices)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 9); err != nil {
		t.Fatalf("migrate up to 9: %v", err)
	}
	storetest.Rekey(t, db, func(v int64) error { _, err := p.UpTo(ctx, v); return err }, func() []string { return notices })
}
