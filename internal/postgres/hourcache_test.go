package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store"
)

// TestHourCacheAcrossProcesses: each process remembers the delivery
// figures it stored (store.HourCache) and writes a row it holds only
// where the stored row is still what it remembers. Two processes take
// turns on one (keyword, hour); whatever one stored in between, the
// other's next figures replace it, and the campaign's spend and the
// day's figures follow the last figures stored: a process that trusted
// its cache would skip a figure it had sent before (the row being
// "unchanged") or move the spend by the wrong difference.
func TestHourCacheAcrossProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := pgtest.NewSchema(t)
	a, b := open(t, s.URL), open(t, s.URL)
	conn, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	hour := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	const day = 20261120
	place := store.DeliveryKeyword{AccountID: "acc_hours", Environment: adcamp.Production, CampaignID: "cmp_hours", AdGroupID: "adg_hours"}
	put := func(db store.Store, cents int64) {
		t.Helper()
		err := db.Write(ctx, func(tx store.Tx) error {
			return tx.PutDelivery(ctx, []store.DeliveryRow{
				{KeywordID: "kw_hours", Hour: hour, Day: day, DeliveryKeyword: place, Impressions: 100, Clicks: 1, Cost: adcamp.Money(cents)},
				{KeywordID: "kw_other", Hour: hour, Day: day, DeliveryKeyword: place, Impressions: 10, Cost: 100},
			}, hour)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, want int64) {
		t.Helper()
		if err := a.Write(ctx, func(tx store.Tx) error { _, err := tx.FoldDays(ctx, 0); return err }); err != nil {
			t.Fatal(err)
		}
		var stored, dayCost int64
		if err := conn.QueryRow(ctx, `SELECT cost FROM delivery_hours WHERE keyword_id = 'kw_hours'`).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, `SELECT cost FROM delivery_days WHERE level = 3 AND entity_id = 'kw_hours' AND day = $1`,
			day).Scan(&dayCost); err != nil {
			t.Fatal(err)
		}
		var spend map[string]adcamp.Money
		err := b.Read(ctx, func(tx store.Tx) (err error) {
			spend, err = tx.CampaignSpend(ctx, []string{place.CampaignID}, hour, hour.Add(time.Hour))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if stored != want || dayCost != want || int64(spend[place.CampaignID]) != want+100 {
			t.Errorf("%s: the hour's cost %d, the day's %d, the campaign's spend %d; want %d, %d and %d",
				what, stored, dayCost, spend[place.CampaignID], want, want, want+100)
		}
	}

	put(a, 500)
	check("stored by A", 500)
	put(b, 800)
	check("replaced by B", 800)
	put(a, 500) // A stored 500 last: to its cache, unchanged
	check("A's figures sent again", 500)
	put(a, 600)
	check("A's own row replaced", 600)
	put(b, 700)
	put(a, 900) // A's cache holds 600: the difference is not 300
	check("A after B", 900)
	put(a, 900)
	check("A's figures sent again, unchanged", 900)
	if _, err := conn.Exec(ctx, `DELETE FROM delivery_hours WHERE keyword_id = 'kw_hours'`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `UPDATE campaign_hour_spend SET cost = cost - 900`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `UPDATE delivery_days SET cost = cost - 900 WHERE entity_id <> 'kw_other'`); err != nil {
		t.Fatal(err)
	}
	put(a, 900) // gone since A stored it: inserted again
	check("A's row deleted by another", 900)
}
