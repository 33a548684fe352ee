package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// TestHourCacheHoldsOnlyWhatCommitted: the writer's HourCache gives
// PutDelivery the stored figures of each (keyword, hour), so it must hold
// what committed and nothing else. A delivery rolled back alone, one
// rolled back to its savepoint in a batch of writes, and two deliveries
// of the same key in one batch leave the day and the campaign's spend
// equal to the figures last committed; wrong figures in the cache would
// put the differences off.
func TestHourCacheHoldsOnlyWhatCommitted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hour := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	const day = 20261120
	place := store.DeliveryKeyword{AccountID: "acc_hours", Environment: adcamp.Production, CampaignID: "cmp_hours", AdGroupID: "adg_hours"}
	put := func(cents int64) func(tx store.Tx) error {
		return func(tx store.Tx) error {
			return tx.PutDelivery(ctx, []store.DeliveryRow{{KeywordID: "kw_hours", Hour: hour, Day: day, DeliveryKeyword: place,
				Impressions: 100, Clicks: 1, Cost: adcamp.Money(cents)}}, hour)
		}
	}
	errFailed := errors.New("failed on purpose")
	failing := func(cents int64) func(tx store.Tx) error {
		return func(tx store.Tx) error {
			if err := put(cents)(tx); err != nil {
				return err
			}
			return errFailed
		}
	}
	// check folds the days and compares the day's and the spend's cost
	// with the hour's last committed cost.
	check := func(what string, want int64) {
		t.Helper()
		if err := db.Write(ctx, func(tx store.Tx) error { _, err := tx.FoldDays(ctx, 0); return err }); err != nil {
			t.Fatal(err)
		}
		var dayCost int64
		var spend map[string]adcamp.Money
		err := db.Read(ctx, func(x store.Tx) (err error) {
			if err := x.(*tx).queryRow(ctx, `SELECT cost FROM delivery_days WHERE level = 3 AND entity_id = 'kw_hours' AND day = $1`,
				day).Scan(&dayCost); err != nil {
				return err
			}
			spend, err = x.CampaignSpend(ctx, []string{place.CampaignID}, hour, hour.Add(time.Hour))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if dayCost != want || int64(spend[place.CampaignID]) != want {
			t.Errorf("%s: the day's cost %d, the campaign's spend %d; want both %d", what, dayCost, spend[place.CampaignID], want)
		}
	}

	if err := db.Write(ctx, put(500)); err != nil {
		t.Fatal(err)
	}
	check("stored", 500)
	if err := db.Write(ctx, failing(900)); !errors.Is(err, errFailed) {
		t.Fatalf("failing write: %v", err)
	}
	if err := db.Write(ctx, put(700)); err != nil {
		t.Fatal(err)
	}
	check("after a write rolled back alone", 700)

	// batch runs fns in one batch of writes and returns their errors.
	batch := func(fns ...func(tx store.Tx) error) []error {
		var errs []error
		for _, r := range inOneBatch(t, context.Background(), db, nil, fns...) {
			if r.panicked != nil {
				t.Fatalf("a write panicked: %v", r.panicked)
			}
			errs = append(errs, r.err)
		}
		return errs
	}
	// The other write of the batch commits it, and writes no hour.
	if errs := batch(failing(1100), func(store.Tx) error { return nil }); !errors.Is(errs[0], errFailed) || errs[1] != nil {
		t.Fatalf("batch: %v", errs)
	}
	if err := db.Write(ctx, put(850)); err != nil {
		t.Fatal(err)
	}
	check("after a write of a batch rolled back to its savepoint", 850)
	if errs := batch(put(1000), put(1200)); errs[0] != nil || errs[1] != nil {
		t.Fatalf("batch: %v", errs)
	}
	check("after two writes of a key in one batch", 1200)
	if err := db.Write(ctx, put(1250)); err != nil {
		t.Fatal(err)
	}
	check("after a write that follows them", 1250)

	// A batch of repeatable writes runs bare first: the hour put before the
	// failing write is staged, rolled back with the whole transaction, and
	// put again among savepoints; only that second run may reach the cache.
	repeatable := store.WithRepeatable(ctx)
	var errs []error
	for _, r := range inOneBatch(t, repeatable, db, nil, put(1260), failing(1270)) {
		errs = append(errs, r.err)
	}
	if errs[0] != nil || !errors.Is(errs[1], errFailed) {
		t.Fatalf("repeatable batch: %v", errs)
	}
	check("after a bare batch rolled back and run again", 1260)
	if err := db.Write(repeatable, put(1280)); err != nil {
		t.Fatal(err)
	}
	check("after a write that follows it", 1280)

	// A batch that stores an hour, then deletes the campaign's figures:
	// what the first write staged must not reach the cache.
	deleteFigures := func(tx store.Tx) error { return tx.DeleteCampaignDelivery(ctx, place.CampaignID) }
	if errs := batch(put(1300), deleteFigures); errs[0] != nil || errs[1] != nil {
		t.Fatalf("batch: %v", errs)
	}
	if err := db.Write(ctx, put(1400)); err != nil {
		t.Fatal(err)
	}
	err = db.Read(ctx, func(x store.Tx) error {
		spend, err := x.CampaignSpend(ctx, []string{place.CampaignID}, hour, hour.Add(time.Hour))
		if err == nil && spend[place.CampaignID] != 1400 {
			t.Errorf("after the figures were deleted and the hour stored again, the campaign's spend is %d; want 1400",
				spend[place.CampaignID])
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
