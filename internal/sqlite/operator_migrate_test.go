package sqlite

import (
	"context"
	"strconv"
	"testing"
	"time"

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

// TestMigration37ExpiresFeedPositions: 00037 marks every position of the
// serving feed given before it as purged (they answer 410), and the
// position of a snapshot taken after it as valid, on a database whose
// feed was followed and on a new one.
func TestMigration37ExpiresFeedPositions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, rows := range []int{3, 0} {
		dir := t.TempDir()
		old, err := Open(ctx, dir, UpTo(34))
		if err != nil {
			t.Fatal(err)
		}
		err = old.Write(ctx, func(st store.Tx) error {
			for range rows {
				if err := st.AppendFeed(ctx, []store.FeedRow{{Environment: "production", Kind: store.FeedCampaign, EntityID: "cmp_1"}}, time.Unix(1, 0)); err != nil {
					return err
				}
			}
			return nil
		})
		old.Close()
		if err != nil {
			t.Fatal(err)
		}
		db, err := Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Read(ctx, func(tx store.Tx) error {
			purged, err := tx.GetSetting(ctx, "serving_feed.purged")
			if err != nil {
				return err
			}
			head, err := tx.FeedHead(ctx)
			if string(purged) != strconv.Itoa(rows+1) || head != int64(rows+1) {
				t.Errorf("with %d rows before 00037: purged through %s, head %d; want both %d", rows, purged, head, rows+1)
			}
			return err
		})
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
}
