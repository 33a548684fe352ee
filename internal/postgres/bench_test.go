package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

// BenchmarkStore runs the shared store benchmarks, each in a schema of its
// own. It is skipped unless ADCAMP_TEST_POSTGRES_URL is set.
func BenchmarkStore(b *testing.B) {
	pgtest.BaseURL(b)
	storetest.Bench(b, func(b *testing.B) store.Store {
		s := pgtest.NewSchema(b)
		db, err := postgres.Open(context.Background(), s.URL)
		if err != nil {
			b.Fatalf("postgres.Open: %v", err)
		}
		b.Cleanup(func() { db.Close() })
		return analyzed{db, s.URL}
	})
}

// analyzed is the store with an Analyze method, which storetest's
// benchmarks call after seeding: their tables are new, and PostgreSQL
// plans a query on a table it has no statistics of as if the table were
// small, which autovacuum corrects within a minute in a database in use.
type analyzed struct {
	*postgres.DB
	url string
}

func (a analyzed) Analyze(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, a.url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `ANALYZE campaigns, ad_groups, keywords`)
	return err
}
