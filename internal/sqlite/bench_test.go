package sqlite_test

import (
	"context"
	"testing"

	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

// BenchmarkStore runs the shared store benchmarks, each on its own
// database file.
func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(b *testing.B) store.Store {
		db, err := sqlite.Open(context.Background(), b.TempDir())
		if err != nil {
			b.Fatalf("sqlite.Open: %v", err)
		}
		b.Cleanup(func() { db.Close() })
		return db
	})
}
