package service

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/sqlite"
)

// TestReady: a process is ready while its database answers at the schema
// it carries and its master key opens the secrets; each failing check
// answers SERVICE_UNAVAILABLE with a message that names it.
func TestReady(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	box := newBox(t)
	if err := CheckSecrets(ctx, db, box); err != nil {
		t.Fatal(err)
	}
	svc := New(Config{Store: db, Box: box})
	if err := svc.Ready(ctx); err != nil {
		t.Fatalf("Ready() = %v, want nil", err)
	}
	notReady := func(svc *Service, want string) {
		t.Helper()
		err := svc.Ready(ctx)
		if adcamp.ErrorCode(err) != adcamp.CodeUnavailable || !strings.Contains(err.Error(), want) {
			t.Errorf("Ready() = %v, want SERVICE_UNAVAILABLE saying %q", err, want)
		}
	}
	notReady(New(Config{Store: db, Box: newBox(t)}), "master key")

	// Another process, a newer adcamp, migrates the database further.
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	s, _ := db.Schema(ctx)
	if _, err := raw.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)`, s.Latest+1); err != nil {
		t.Fatal(err)
	}
	notReady(svc, "newer than this adcamp")

	db.Close()
	notReady(svc, "not reachable")
}
