package sqlite

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/pressly/goose/v3"
)

// TestMigration6KeepsRecords: moving request_records to a WITHOUT ROWID
// table, and back, keeps the stored answers of a database in service.
func TestMigration6KeepsRecords(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), FileName)+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, sub)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 5); err != nil {
		t.Fatalf("migrate up to 5: %v", err)
	}
	if _, err := db.Exec(`INSERT INTO request_records (scope, token, request_hash, status, header, body, created_at, expires_at)
		VALUES ('sig:ak_live_x', 'abc', x'01', 201, '{}', '{"success":true}', 10, 20)`); err != nil {
		t.Fatal(err)
	}
	check := func(when string, wantWithoutRowid bool) {
		t.Helper()
		var status int
		var body string
		err := db.QueryRow(`SELECT status, body FROM request_records WHERE scope = 'sig:ak_live_x' AND token = 'abc'`).Scan(&status, &body)
		if err != nil || status != 201 || body != `{"success":true}` {
			t.Errorf("%s: the record reads %d %q, %v; want 201 {\"success\":true}", when, status, body, err)
		}
		var ddl string
		if err := db.QueryRow(`SELECT sql FROM sqlite_schema WHERE name = 'request_records'`).Scan(&ddl); err != nil {
			t.Fatal(err)
		}
		if got := len(ddl) > 13 && ddl[len(ddl)-13:] == "WITHOUT ROWID"; got != wantWithoutRowid {
			t.Errorf("%s: request_records is WITHOUT ROWID = %v, want %v:\n%s", when, got, wantWithoutRowid, ddl)
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'request_records_expiry'`).Scan(&n); err != nil || n != 1 {
			t.Errorf("%s: request_records_expiry: %d indexes, %v; want 1", when, n, err)
		}
	}
	if _, err := p.UpTo(ctx, 6); err != nil {
		t.Fatalf("migrate up to 6: %v", err)
	}
	check("after 00006", true)
	if _, err := p.DownTo(ctx, 5); err != nil {
		t.Fatalf("migrate down to 5: %v", err)
	}
	check("after 00006 down", false)
}
