package storetest

import (
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// reportTests are the suite's tests of store.ReportTx.
var reportTests = []struct {
	name string
	fn   func(t *testing.T, db store.Store)
}{
	{"ReportRollUp", testReportRollUp},
	{"ReportPurge", testReportPurge},
}

// foldDays folds the whole journal of days, as the service does before
// it reads a report.
func foldDays(t *testing.T, db store.Store) {
	t.Helper()
	write(t, db, func(tx store.Tx) error {
		before, err := tx.DaysJournaled(t.Context())
		if err != nil {
			return err
		}
		n, err := tx.FoldDays(t.Context(), 0)
		if err != nil {
			return err
		}
		// The count is what the fold took, and nothing is left.
		after, err := tx.DaysJournaled(t.Context())
		if err != nil {
			return err
		}
		pending, err := tx.DaysPending(t.Context())
		if err != nil {
			return err
		}
		if int64(n) != before || after != 0 || pending {
			t.Errorf("the journal of days held %d entries, the fold took %d, %d left (pending %v); want all taken, none left",
				before, n, after, pending)
		}
		return nil
	})
}

// reportRows reads every row of q, the journal of days folded first.
func reportRows(t *testing.T, db store.Store, q store.ReportQuery) []store.ReportRow {
	t.Helper()
	foldDays(t, db)
	var out []store.ReportRow
	read(t, db, func(tx store.Tx) error {
		return tx.ReportRows(t.Context(), q, func(r *store.ReportRow) error {
			out = append(out, *r)
			return nil
		})
	})
	return out
}

func reportTotals(t *testing.T, db store.Store, q store.ReportQuery) store.Metrics {
	t.Helper()
	foldDays(t, db)
	var m store.Metrics
	read(t, db, func(tx store.Tx) (err error) {
		m, err = tx.ReportTotals(t.Context(), q)
		return err
	})
	return m
}

func testReportRollUp(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := newCampaign(t, db, tn, at(0), nil)
	g := newAdGroup(t, db, c, at(0))
	ks := newKeywords(t, db, g, at(0), "red shoes", "blue shoes")
	other := newAccount(t, db, "Other")
	otn := adcamp.Tenant{AccountID: other.ID, Environment: adcamp.Production}
	oc := newCampaign(t, db, otn, at(0), nil)
	og := newAdGroup(t, db, oc, at(0))
	oks := newKeywords(t, db, og, at(0), "other")

	where := store.DeliveryKeyword{AccountID: a.ID, Environment: adcamp.Production, CampaignID: c.ID, AdGroupID: g.ID}
	h0 := time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)
	row := func(k int, h int, day int32, imp, clk int64, cost adcamp.Money) store.DeliveryRow {
		return store.DeliveryRow{KeywordID: ks[k].ID, Hour: h0.Add(time.Duration(h) * time.Hour), Day: day, DeliveryKeyword: where,
			Impressions: imp, Clicks: clk, Cost: cost, Orders: clk / 2, Sales: cost * 3}
	}
	rows := []store.DeliveryRow{
		row(0, 0, 20261121, 100, 10, 150), // 22:00 UTC on the 21st
		row(0, 1, 20261121, 100, 4, 50),
		row(0, 2, 20261122, 200, 6, 70), // midnight: the next day
		row(1, 0, 20261121, 50, 0, 0),
		{KeywordID: oks[0].ID, Hour: h0, Day: 20261121, DeliveryKeyword: store.DeliveryKeyword{AccountID: other.ID,
			Environment: adcamp.Production, CampaignID: oc.ID, AdGroupID: og.ID}, Impressions: 9, Clicks: 9, Cost: 999},
	}
	write(t, db, func(tx store.Tx) error { return tx.PutDelivery(ctx, rows, base) })
	// A correction of an hour moves its day's figures; one without a day
	// keeps the stored day.
	fix := row(0, 1, 20261121, 100, 5, 60)
	undated := row(1, 0, 0, 60, 1, 10)
	write(t, db, func(tx store.Tx) error { return tx.PutDelivery(ctx, []store.DeliveryRow{fix, undated}, base) })

	days := store.ReportQuery{Tenant: tn, Level: store.LevelKeyword, Granularity: store.Daily, FromDay: 20261101, ToDay: 20261130}
	got := reportRows(t, db, days)
	type short struct {
		Keyword string
		Day     int32
		Imp     int64
		Cost    adcamp.Money
	}
	var gs []short
	for _, r := range got {
		gs = append(gs, short{r.KeywordID, r.Day, r.Impressions, r.Cost})
		if r.CampaignName != c.Name || r.AdGroupName != g.Name || r.Deleted || r.Status != "active" {
			t.Errorf("row names %+v, want the live campaign's and ad group's", r)
		}
	}
	wantDays := []short{{ks[0].ID, 20261121, 200, 210}, {ks[1].ID, 20261121, 60, 10}, {ks[0].ID, 20261122, 200, 70}}
	if ks[1].ID < ks[0].ID { // by day, then id
		wantDays[0], wantDays[1] = wantDays[1], wantDays[0]
	}
	same(t, "daily keyword rows", gs, wantDays)
	want := store.Metrics{Impressions: 460, Clicks: 22, Cost: 290, Orders: 5 + 2 + 3 + 0, Sales: 870}
	for _, l := range []store.ReportLevel{store.LevelCampaign, store.LevelAdGroup, store.LevelKeyword} {
		for _, g := range []store.Granularity{store.Summary, store.Daily, store.Hourly} {
			q := store.ReportQuery{Tenant: tn, Level: l, Granularity: g, FromDay: 20261101, ToDay: 20261130,
				FromHour: h0.Add(-48 * time.Hour), ToHour: h0.Add(48 * time.Hour)}
			var sum store.Metrics
			for _, r := range reportRows(t, db, q) {
				sum.Add(r.Metrics)
			}
			if sum != want {
				t.Errorf("level %d granularity %d: rows sum to %+v, want %+v", l, g, sum, want)
			}
			if tot := reportTotals(t, db, q); tot != want {
				t.Errorf("level %d granularity %d: totals %+v, want %+v", l, g, tot, want)
			}
			q.Status = "paused"
			if tot := reportTotals(t, db, q); tot != (store.Metrics{}) {
				t.Errorf("level %d: totals of paused %+v, want none", l, tot)
			}
		}
	}
	// Sorted by a metric, paged.
	sorted := reportRows(t, db, store.ReportQuery{Tenant: tn, Level: store.LevelKeyword, FromDay: 20261101, ToDay: 20261130,
		Sort: "cost", Desc: true, Limit: 1, Offset: 1})
	if len(sorted) != 1 || sorted[0].KeywordID != ks[1].ID || sorted[0].Keyword != "blue shoes" || sorted[0].MatchType == "" {
		t.Errorf("second row by cost descending = %+v, want blue shoes", sorted)
	}
	// A ratio whose denominator is 0 sorts last both ways.
	write(t, db, func(tx store.Tx) error {
		return tx.PutDelivery(ctx, []store.DeliveryRow{row(1, 0, 20261121, 60, 0, 0)}, base)
	})
	for _, desc := range []bool{false, true} {
		rs := reportRows(t, db, store.ReportQuery{Tenant: tn, Level: store.LevelKeyword, FromDay: 20261101, ToDay: 20261130,
			Sort: "cpc", Desc: desc})
		if len(rs) != 2 || rs[1].KeywordID != ks[1].ID {
			t.Errorf("by cpc (desc %v): %+v, want the keyword without clicks last", desc, rs)
		}
	}
	// Deleted entities keep their rows, with their last names.
	write(t, db, func(tx store.Tx) error { return tx.DeleteCampaign(ctx, tn, c.ID) })
	got = reportRows(t, db, store.ReportQuery{Tenant: tn, Level: store.LevelKeyword, FromDay: 20261101, ToDay: 20261130})
	if len(got) != 2 {
		t.Fatalf("rows after the delete: %+v", got)
	}
	for _, r := range got {
		if !r.Deleted || r.Status != "" || r.CampaignName != c.Name || r.AdGroupName != g.Name || r.Keyword == "" {
			t.Errorf("row of a deleted keyword %+v, want its names and Deleted", r)
		}
	}
	read(t, db, func(tx store.Tx) error {
		for _, tc := range []struct {
			t     adcamp.Tenant
			level store.ReportLevel
			id    string
			want  bool
		}{{tn, store.LevelCampaign, c.ID, true}, {tn, store.LevelAdGroup, g.ID, true}, {otn, store.LevelCampaign, c.ID, false},
			{tn, store.LevelCampaign, oc.ID, false}, {otn, store.LevelCampaign, oc.ID, true}} {
			ok, err := tx.ReportEntity(ctx, tc.t, tc.level, tc.id)
			if err != nil || ok != tc.want {
				t.Errorf("ReportEntity(%v, %s) = %v, %v; want %v", tc.t, tc.id, ok, err, tc.want)
			}
		}
		return nil
	})
	deleted := reportRows(t, db, store.ReportQuery{Tenant: tn, Level: store.LevelCampaign, FromDay: 20261101, ToDay: 20261130, Status: "deleted"})
	if len(deleted) != 1 || deleted[0].CampaignID != c.ID {
		t.Errorf("status deleted: %+v", deleted)
	}
	// The other account's figures are its own.
	ot := reportTotals(t, db, store.ReportQuery{Tenant: otn, Level: store.LevelKeyword, FromDay: 20261101, ToDay: 20261130})
	if ot.Cost != 999 {
		t.Errorf("other account's totals %+v", ot)
	}
	// The sandbox's reset removes the campaign's days.
	write(t, db, func(tx store.Tx) error { return tx.DeleteCampaignReports(ctx, tn, c.ID) })
	if rs := reportRows(t, db, days); len(rs) != 0 {
		t.Errorf("rows after DeleteCampaignReports: %+v", rs)
	}
}

func testReportPurge(t *testing.T, db store.Store) {
	ctx := t.Context()
	a := newAccount(t, db, "Acme")
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	c := newCampaign(t, db, tn, at(0), nil)
	g := newAdGroup(t, db, c, at(0))
	ks := newKeywords(t, db, g, at(0), "a", "b")
	where := store.DeliveryKeyword{AccountID: a.ID, Environment: adcamp.Production, CampaignID: c.ID, AdGroupID: g.ID}
	old := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	recent := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	rows := []store.DeliveryRow{
		{KeywordID: ks[0].ID, Hour: old, Day: 20261001, DeliveryKeyword: where, Impressions: 1, Cost: 1},
		{KeywordID: ks[1].ID, Hour: recent, Day: 20261120, DeliveryKeyword: where, Impressions: 2, Cost: 2},
		{KeywordID: ks[1].ID, Hour: recent.Add(time.Hour), DeliveryKeyword: where, Impressions: 4, Cost: 4},
	}
	write(t, db, func(tx store.Tx) error { return tx.PutDelivery(ctx, rows, base) })
	read(t, db, func(tx store.Tx) error {
		u, err := tx.UndatedHours(ctx, 10)
		if err != nil || len(u) != 1 || u[0].Hour != rows[2].Hour || u[0].Cost != 4 || u[0].DeliveryKeyword != where {
			t.Errorf("UndatedHours = %+v, %v; want the row without a day", u, err)
		}
		return err
	})
	foldDays(t, db) // as the service's purge does first
	var n int64
	write(t, db, func(tx store.Tx) (err error) {
		n, err = tx.PurgeReports(ctx, tn, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), 20261002, 100)
		return err
	})
	if n != 1+3 { // one hour, one keyword's day at three levels
		t.Errorf("PurgeReports deleted %d rows, want 4", n)
	}
	q := store.ReportQuery{Tenant: tn, Level: store.LevelCampaign, FromDay: 20260101, ToDay: 20261231,
		Granularity: store.Hourly, FromHour: old.Add(-time.Hour), ToHour: recent.Add(24 * time.Hour)}
	if m := reportTotals(t, db, q); m.Cost != 6 {
		t.Errorf("hourly totals after the purge %+v, want the recent hours'", m)
	}
	q.Granularity = store.Summary
	if m := reportTotals(t, db, q); m.Cost != 2 {
		t.Errorf("daily totals after the purge %+v, want the recent dated day's", m)
	}
	write(t, db, func(tx store.Tx) error { return tx.DeleteKeyword(ctx, tn, ks[0].ID) })
	write(t, db, func(tx store.Tx) (err error) {
		n, err = tx.PurgeReportNames(ctx, time.Now().Add(time.Hour), 100)
		return err
	})
	if n != 1 {
		t.Errorf("PurgeReportNames deleted %d, want the deleted keyword's name", n)
	}
}
