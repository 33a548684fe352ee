package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

// TestStore runs the shared store suite, each test on its own database file.
func TestStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store {
		db, err := sqlite.Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatalf("sqlite.Open: %v", err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}

// TestFilesArePrivate: whatever the data directory held, and whatever the
// umask, the directory is 0700 and the database's files 0600 once open.
func TestFilesArePrivate(t *testing.T) {
	t.Parallel()
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // a new database, then an existing one
		db, err := sqlite.Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Write(context.Background(), func(tx store.Tx) error {
			return tx.CreateAccount(context.Background(), &adcamp.Account{ID: fmt.Sprint("acc_", i), Name: "A"})
		}); err != nil {
			t.Fatal(err)
		}
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			info, _ := f.Info()
			if perm := info.Mode().Perm(); perm&0o077 != 0 {
				t.Errorf("open #%d: %s has mode %04o, want no access for group or others", i+1, f.Name(), perm)
			}
		}
		if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
			t.Errorf("open #%d: the data directory has mode %04o, want 0700", i+1, info.Mode().Perm())
		}
		db.Close()
		os.Chmod(filepath.Join(dir, sqlite.FileName), 0o644)
		os.Chmod(dir, 0o755)
	}
}
