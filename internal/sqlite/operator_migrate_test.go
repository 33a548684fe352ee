package sqlite

import (
	"context"
	"testing"

	"github.com/adcamp/adcamp/internal/store"
)

// TestMigrateOperator: 00021 on a database with an account gives it the
// time zone UTC.
func TestMigrateOperator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	openAt(t, dir, 15)
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Read(ctx, func(tx store.Tx) error {
		a, err := tx.GetAccount(ctx, "acc_1")
		if err == nil && a.TimeZone != "UTC" {
			t.Errorf("an account from before 00021 has time zone %q, want UTC", a.TimeZone)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
