package postgres

import (
	"context"
	"database/sql"
	"testing"

	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

// TestMigrationsFrom28KeepData: a database in use (the store suite's
// dataset) taken down to 00028, before webhooks, negative keywords and
// reports, loses only what those migrations hold, and migrated up again
// by Open reads back every row as it was written.
func TestMigrationsFrom28KeepData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.NewSchema(t).URL
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	d := storetest.Fill(t, s)
	s.Close()

	raw, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	p, err := newProvider(raw, new([]string))
	if err != nil {
		t.Fatal(err)
	}
	tables := func(want int) {
		t.Helper()
		for _, table := range []string{"webhook_endpoints", "webhook_events", "negative_keywords", "delivery_days", "report_jobs"} {
			var n int
			if err := raw.QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = $1`, table).Scan(&n); err != nil || n != want {
				t.Errorf("the table %s: %d, %v; want %d", table, n, err, want)
			}
		}
	}
	tables(1)
	if _, err := p.DownTo(ctx, 28); err != nil {
		t.Fatalf("migrate down to 28: %v", err)
	}
	tables(0)
	raw.Close()

	s, err = Open(ctx, url)
	if err != nil {
		t.Fatalf("Open after going down to 28: %v", err)
	}
	defer s.Close()
	d.Check(t, s)
}
