package postgres_test

import (
	"context"
	"testing"

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
		db, err := postgres.Open(context.Background(), pgtest.NewSchema(b).URL)
		if err != nil {
			b.Fatalf("postgres.Open: %v", err)
		}
		b.Cleanup(func() { db.Close() })
		return db
	})
}
