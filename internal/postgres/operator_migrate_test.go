package postgres

import (
	"context"
	"testing"
)

// TestMigration21Operator: 00021 on a database with an account gives it
// the time zone UTC, and its down step takes the column and tables away.
func TestMigration21Operator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, p := migrator(t, new([]string))
	if _, err := p.UpTo(ctx, 19); err != nil {
		t.Fatalf("migrate up to 19: %v", err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO accounts (id, name, created_at) VALUES ('acc_1', 'Acme', 1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 21); err != nil {
		t.Fatalf("migrate up to 21: %v", err)
	}
	var zone string
	if err := db.QueryRowContext(ctx, `SELECT time_zone FROM accounts WHERE id = 'acc_1'`).Scan(&zone); err != nil || zone != "UTC" {
		t.Errorf("time_zone after 00021 = %q, %v; want UTC", zone, err)
	}
	if _, err := p.DownTo(ctx, 19); err != nil {
		t.Fatalf("migrate down to 19: %v", err)
	}
	if _, err := db.ExecContext(ctx, `SELECT time_zone FROM accounts`); err == nil {
		t.Errorf("time_zone is still there after 00021's down step")
	}
}
