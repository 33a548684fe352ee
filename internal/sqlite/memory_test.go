package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/adcamp/adcamp/internal/store"
)

// TestReadMemoryFor: a small database keeps SQLite's page cache and no
// memory map; from mmapFrom up, the readers map the file, within SQLite's
// bound.
func TestReadMemoryFor(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		size    int64
		mmapped bool
	}{{0, false}, {1 << 20, false}, {mmapFrom - 1, false}, {mmapFrom, true}, {4 << 30, true}} {
		if err := os.Truncate(path, tc.size); err != nil { // sparse: no disk used
			t.Fatal(err)
		}
		m := readMemoryFor(path)
		if m.CacheKiB != 2000 {
			t.Errorf("a file of %d bytes: cache %d KiB, want 2000", tc.size, m.CacheKiB)
		}
		if mapped := m.MmapBytes > 0; mapped != tc.mmapped || m.MmapBytes > mmapMax {
			t.Errorf("a file of %d bytes: memory map of %d bytes, want one: %v (at most %d)", tc.size, m.MmapBytes, tc.mmapped, mmapMax)
		}
	}
	if m := readMemoryFor(filepath.Join(dir, "missing")); m.MmapBytes != 0 {
		t.Errorf("a missing file: memory map of %d bytes, want none", m.MmapBytes)
	}
}

// TestReadMemoryApplied: every reader connection has the page cache and
// memory map Open chose, and the writer keeps SQLite's.
func TestReadMemoryApplied(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		opts        []Option
		cache, mmap int64
	}{
		{nil, -2000, 0}, // a new database is small
		{[]Option{WithReadMemory(ReadMemory{CacheKiB: 4096, MmapBytes: 1 << 30})}, -4096, 1 << 30},
	} {
		db, err := Open(ctx, t.TempDir(), tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		// Hold every reader connection at once, so each is checked.
		var conns []interface{ Close() error }
		for range db.read.Stats().MaxOpenConnections {
			c, err := db.read.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			var cache, mmap int64
			if err := c.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&cache); err != nil {
				t.Fatal(err)
			}
			if err := c.QueryRowContext(ctx, `PRAGMA mmap_size`).Scan(&mmap); err != nil {
				t.Fatal(err)
			}
			if cache != tc.cache || mmap != tc.mmap {
				t.Errorf("reader %d: cache_size %d, mmap_size %d, want %d and %d", len(conns), cache, mmap, tc.cache, tc.mmap)
			}
		}
		for _, c := range conns {
			c.Close()
		}
		var mmap int64
		if err := db.write.QueryRowContext(ctx, `PRAGMA mmap_size`).Scan(&mmap); err != nil || mmap != 0 {
			t.Errorf("writer: mmap_size %d (%v), want 0", mmap, err)
		}
		db.Close()
	}
}

// TestBackgroundReadsUnmapped: a read marked as a background job's runs
// on a connection without the readers' memory map; the API's reads keep
// it.
func TestBackgroundReadsUnmapped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const mapped = 256 << 20
	db, err := Open(ctx, t.TempDir(), WithReadMemory(ReadMemory{CacheKiB: 2000, MmapBytes: mapped}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mmapSize := func(ctx context.Context) int64 {
		t.Helper()
		var n int64
		err := db.Read(ctx, func(st store.Tx) error {
			return st.(*tx).tx.QueryRow(`PRAGMA mmap_size`).Scan(&n)
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := mmapSize(ctx); n != mapped {
		t.Errorf("an API read's connection maps %d bytes; want %d", n, mapped)
	}
	if n := mmapSize(store.WithBackgroundReads(ctx)); n != 0 {
		t.Errorf("a background read's connection maps %d bytes; want none", n)
	}
	// The metrics see the background pool beside the API's.
	var bg *store.PoolStats
	for _, p := range db.PoolStats() {
		if p.Name == "background" {
			bg = &p
		}
	}
	if bg == nil || bg.MaxOpen != backgroundReaders || bg.Open < 1 {
		t.Errorf("PoolStats' background pool = %+v, want at most %d connections, the one just used open", bg, backgroundReaders)
	}
}
