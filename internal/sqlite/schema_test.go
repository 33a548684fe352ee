package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adcamp/adcamp"
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
	db, err := sql.Open("sqlite", ":memory:")
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

// openAt opens a database in dir migrated up to version, with an account.
func openAt(t *testing.T, dir string, version int64) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, dir, UpTo(version))
	if err != nil {
		t.Fatalf("Open up to %d: %v", version, err)
	}
	defer db.Close()
	// In SQL: the store's CreateAccount writes the columns of the latest
	// version.
	if err := db.Write(ctx, func(st store.Tx) error {
		_, err := st.(*tx).exec(ctx, `INSERT INTO accounts (id, name, email, created_at) VALUES ('acc_1', 'Acme', '', 0)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// TestPlanChangesNothing: Plan lists what Open would apply to an older
// database, with what each locks, and leaves the database as it was; a
// directory without a database has everything pending and stays empty.
func TestPlanChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	all, _ := Migrations()
	empty := t.TempDir()
	s, err := Plan(ctx, empty)
	if err != nil || s.Current != 0 || len(s.Pending) != len(all) || s.Latest != all[len(all)-1].Version {
		t.Errorf("Plan(empty dir) = %+v, %v; want every one of %d migrations pending", s, err, len(all))
	}
	if files, _ := os.ReadDir(empty); len(files) != 0 {
		t.Errorf("Plan left %d files in an empty directory", len(files))
	}

	dir := t.TempDir()
	openAt(t, dir, 13)
	s, err = Plan(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var pending []int64
	for _, m := range s.Pending {
		pending = append(pending, m.Version)
		if m.Locks == "" {
			t.Errorf("pending %05d has no locks", m.Version)
		}
	}
	if s.Current != 13 || len(pending) == 0 || pending[0] != 14 || pending[len(pending)-1] != s.Latest {
		t.Errorf("Plan(at 13) = current %d, pending %v; want 13, and 14 up to %d", s.Current, pending, s.Latest)
	}
	if again, _ := Plan(ctx, dir); again.Current != 13 {
		t.Errorf("after Plan the database is at %d, want 13 still", again.Current)
	}
}

// TestNewerDatabaseRefused: a database a newer adcamp migrated is refused
// at Open with an error that says so, before anything runs on it.
func TestNewerDatabaseRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	latest := mustSchema(t, db).Latest
	// What a newer binary leaves: a version this one does not carry.
	if _, err := db.write.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)`, latest+7); err != nil {
		t.Fatal(err)
	}
	db.Close()

	_, err = Open(ctx, dir)
	var tooNew *store.SchemaTooNewError
	if !errors.As(err, &tooNew) || tooNew.Current != latest+7 || tooNew.Latest != latest {
		t.Fatalf("Open(a newer database) = %v, want a SchemaTooNewError at %d over %d", err, latest+7, latest)
	}
	if !strings.Contains(err.Error(), "newer adcamp") {
		t.Errorf("the error %q does not say a newer adcamp migrated the database", err)
	}
}

func mustSchema(t *testing.T, db *DB) store.Schema {
	t.Helper()
	s, err := db.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBeforeMigrate: Open calls the hook before it migrates a database
// with data, and an error from it leaves the database unmigrated; a new
// database or one with nothing pending does not call it.
func TestBeforeMigrate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var calls []store.Schema
	hook := BeforeMigrate(func(_ context.Context, s store.Schema) error {
		calls = append(calls, s)
		if len(calls) == 1 {
			return errors.New("disk full")
		}
		return nil
	})
	fresh, err := Open(ctx, t.TempDir(), hook)
	if err != nil {
		t.Fatal(err)
	}
	fresh.Close()
	if len(calls) != 0 {
		t.Fatalf("the hook ran %d times for a new database, want 0", len(calls))
	}

	dir := t.TempDir()
	openAt(t, dir, 13)
	if _, err := Open(ctx, dir, hook); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Open with a failing hook = %v, want its error", err)
	}
	if s, _ := Plan(ctx, dir); s.Current != 13 {
		t.Errorf("after the hook failed the database is at %d, want 13", s.Current)
	}
	db, err := Open(ctx, dir, hook)
	if err != nil {
		t.Fatal(err)
	}
	if s := mustSchema(t, db); s.Current != s.Latest || len(s.Pending) != 0 {
		t.Errorf("after Open, schema %+v; want the latest, nothing pending", s)
	}
	db.Close()
	if len(calls) != 2 || calls[1].Current != 13 || calls[1].Pending[0].Version != 14 {
		t.Errorf("hook calls = %+v, want two at 13 with 14 pending", calls)
	}
	db, _ = Open(ctx, dir, hook)
	db.Close()
	if len(calls) != 2 {
		t.Errorf("the hook ran with nothing pending")
	}
}

// TestDirectoryLocks: while a process has the database open, a restore
// cannot take the directory; while a restore holds it, or after one was
// interrupted, nothing opens the database.
func TestDirectoryLocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockExclusive(dir); !errors.Is(err, ErrInUse) {
		t.Errorf("LockExclusive while the database is open = %v, want ErrInUse", err)
	}
	db.Close()
	release, err := LockExclusive(dir)
	if err != nil {
		t.Fatalf("LockExclusive once closed: %v", err)
	}
	if _, err := Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "restore") {
		t.Errorf("Open during a restore = %v, want it refused for the restore", err)
	}
	release()
	if err := os.WriteFile(filepath.Join(dir, restoringName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("Open after an interrupted restore = %v, want it refused", err)
	}
}

// TestReplace: Replace puts the prepared database in place and keeps the
// one it replaced, WAL and all, aside.
func TestReplace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, from := t.TempDir(), t.TempDir()
	openAt(t, dir, 15)
	old, _ := os.ReadFile(filepath.Join(dir, FileName))
	db, err := Open(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	release, err := LockExclusive(dir)
	if err != nil {
		t.Fatal(err)
	}
	aside, err := Replace(dir, from)
	release()
	if err != nil {
		t.Fatal(err)
	}
	if kept, err := os.ReadFile(filepath.Join(aside, FileName)); err != nil || string(kept) != string(old) {
		t.Errorf("the replaced database is not kept in %s: %v", aside, err)
	}
	db, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Read(ctx, func(tx store.Tx) error { _, err := tx.GetAccount(ctx, "acc_1"); return err })
	if adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("GetAccount after Replace = %v, want NOT_FOUND (the new, empty database)", err)
	}
}
