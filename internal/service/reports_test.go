package service_test

import (
	"context"
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

func TestReportRatios(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		m                                    service.ReportMetrics
		ctr, cpc, conv, acos, roas           string
		ctrOK, cpcOK, convOK, acosOK, roasOK bool
	}{
		{m: service.ReportMetrics{}},
		{m: service.ReportMetrics{Impressions: 3, Clicks: 1, Cost: 100, Orders: 1, Sales: 300},
			ctr: "0.333333", cpc: "1.0000", conv: "1.000000", acos: "0.333333", roas: "3.000000",
			ctrOK: true, cpcOK: true, convOK: true, acosOK: true, roasOK: true},
		// Half up: 2/3 = 0.6666666… → 0.666667; 1 cent over 3 clicks = 0.003333… → 0.0033.
		{m: service.ReportMetrics{Impressions: 3, Clicks: 2, Cost: 0, Orders: 0, Sales: 7},
			ctr: "0.666667", cpc: "0.0000", conv: "0.000000", acos: "0.000000",
			ctrOK: true, cpcOK: true, convOK: true, acosOK: true},
		{m: service.ReportMetrics{Impressions: 8, Clicks: 3, Cost: 1},
			ctr: "0.375000", cpc: "0.0033", conv: "0.000000", ctrOK: true, cpcOK: true, convOK: true, roasOK: true, roas: "0.000000"},
		// Sums too large for int64 arithmetic take math/big.
		{m: service.ReportMetrics{Impressions: 3_000_000_000_000_000, Clicks: 1_000_000_000_000_000},
			ctr: "0.333333", cpc: "0.0000", conv: "0.000000", ctrOK: true, cpcOK: true, convOK: true},
	} {
		check := func(name, got string, ok bool, want string, wantOK bool) {
			if ok != wantOK || got != want {
				t.Errorf("%+v: %s = %q, %v; want %q, %v", tc.m, name, got, ok, want, wantOK)
			}
		}
		got, ok := tc.m.CTR()
		check("ctr", got, ok, tc.ctr, tc.ctrOK)
		got, ok = tc.m.CPC()
		check("cpc", got, ok, tc.cpc, tc.cpcOK)
		got, ok = tc.m.ConversionRate()
		check("conversion_rate", got, ok, tc.conv, tc.convOK)
		got, ok = tc.m.ACOS()
		check("acos", got, ok, tc.acos, tc.acosOK)
		got, ok = tc.m.ROAS()
		check("roas", got, ok, tc.roas, tc.roasOK)
	}
}

func TestPerformanceReportValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, err := f.svc.CreateAccount(admin, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	other, err := f.svc.CreateAccount(admin, "Other", "")
	if err != nil {
		t.Fatal(err)
	}
	oc, err := f.svc.CreateCampaign(admin, adcamp.Tenant{AccountID: other.ID, Environment: adcamp.Production},
		adcamp.CampaignInput{Name: adcamp.Some("Theirs"), BudgetDaily: adcamp.Some("10"), Marketplace: adcamp.Some("US")}, false)
	if err != nil {
		t.Fatal(err)
	}
	today := adcamp.DateOf(f.clock.Now())
	d := func(n int) adcamp.Date { return adcamp.DateOf(f.clock.Now().AddDate(0, 0, n)) }
	for _, tc := range []struct {
		q      service.ReportQuery
		fields []string
	}{
		{service.ReportQuery{Level: "account"}, []string{"level"}},
		{service.ReportQuery{Granularity: "week"}, []string{"granularity"}},
		{service.ReportQuery{From: today, To: d(-1)}, []string{"to"}},
		{service.ReportQuery{From: d(-399), To: today}, nil},
		{service.ReportQuery{From: d(-400), To: today}, []string{"from"}},
		{service.ReportQuery{From: d(-30), To: today, Granularity: "hour"}, nil},
		{service.ReportQuery{From: d(-31), To: today, Granularity: "hour"}, []string{"from"}},
		{service.ReportQuery{To: d(1)}, []string{"to"}},
		{service.ReportQuery{Limit: 1001}, []string{"limit"}},
		{service.ReportQuery{Limit: 1000, Sort: "-roas"}, nil},
		{service.ReportQuery{Sort: "-name"}, []string{"sort"}},
		{service.ReportQuery{Status: "ended", Level: "keyword"}, []string{"status"}},
		{service.ReportQuery{Status: "gone"}, []string{"status"}},
		{service.ReportQuery{CampaignID: "nope"}, []string{"campaign_id"}},
		{service.ReportQuery{AdGroupID: "adg_01m819ekhv2vpfm8665r8wy4ac"}, []string{"ad_group_id"}},
		{service.ReportQuery{Cursor: "garbage"}, []string{"cursor"}},
	} {
		_, err := f.svc.PerformanceReport(admin, tn, tc.q)
		if tc.fields == nil {
			if err != nil {
				t.Errorf("%+v: %v, want a page", tc.q, err)
			}
			continue
		}
		e, ok := err.(*adcamp.Error)
		if !ok || e.Code != adcamp.CodeValidation {
			t.Errorf("%+v: %v, want VALIDATION_ERROR", tc.q, err)
			continue
		}
		var got []string
		for _, fi := range e.Details.([]adcamp.FieldIssue) {
			got = append(got, fi.Field)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.fields) {
			t.Errorf("%+v: fields %v, want %v", tc.q, got, tc.fields)
		}
	}
	// Another account's campaign is not found.
	if _, err := f.svc.PerformanceReport(admin, tn, service.ReportQuery{CampaignID: oc.ID}); adcamp.ErrorCode(err) != adcamp.CodeNotFound {
		t.Errorf("another account's campaign: %v, want NOT_FOUND", err)
	}
	// A cursor is bound to its parameters.
	p, err := f.svc.PerformanceReport(admin, tn, service.ReportQuery{})
	if err != nil || p.Level != "campaign" || p.Granularity != "summary" || p.To != today || p.From != d(-6) || p.Totals == nil {
		t.Fatalf("defaults: %+v, %v", p, err)
	}
}

// reportStores opens SQLite, and PostgreSQL when a database is given.
func reportStores(t *testing.T) map[string]func(t *testing.T) store.Store {
	out := map[string]func(t *testing.T) store.Store{
		"sqlite": func(t *testing.T) store.Store {
			db, err := sqlite.Open(ctx, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		},
	}
	if os.Getenv(pgtest.EnvURL) != "" {
		out["postgres"] = func(t *testing.T) store.Store {
			db, err := postgres.Open(ctx, pgtest.NewSchema(t).URL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}
	} else {
		t.Logf("PostgreSQL not tested: %s is not set", pgtest.EnvURL)
	}
	return out
}

// TestReportsAreExact feeds random hourly figures, with corrections,
// across a change of the account's time zone and around deletions, and
// checks that every level and granularity, paged and streamed, sums to
// the same totals to the cent, and that each keyword's days hold exactly
// its hours as they were dated (issue 34, item 9). On both stores.
func TestReportsAreExact(t *testing.T) {
	t.Parallel()
	for name, open := range reportStores(t) {
		t.Run(name, func(t *testing.T) { testReportsAreExact(t, open(t)) })
	}
}

func testReportsAreExact(t *testing.T, db store.Store) {
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{now: time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)}
	svc := service.New(service.Config{Store: db, Box: box, Now: clk.Now})
	a, err := svc.CreateAccount(admin, "Acme", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetAccountTimeZone(admin, a.ID, "Asia/Tokyo"); err != nil {
		t.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Sandbox}
	if _, err := svc.SampleData(admin, tn); err != nil {
		t.Fatal(err)
	}
	type kwInfo struct{ id, group, campaign string }
	var kws []kwInfo
	cs, err := svc.ListCampaigns(admin, tn, adcamp.CampaignFilter{Page: 1, PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	var live []*adcamp.Campaign
	for _, c := range cs.Items {
		if c.Status != adcamp.StatusEnded && len(live) < 2 {
			live = append(live, c)
		}
	}
	for _, c := range live {
		gs, err := svc.ListAdGroups(admin, tn, c.ID, adcamp.AdGroupFilter{Page: 1, PageSize: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gs.Items[:min(2, len(gs.Items))] {
			ks, err := svc.ListKeywords(admin, tn, g.ID, adcamp.KeywordFilter{Page: 1, PageSize: 8})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range ks.Items {
				kws = append(kws, kwInfo{k.ID, g.ID, c.ID})
			}
		}
	}
	if len(kws) < 10 {
		t.Fatalf("only %d keywords to deliver to", len(kws))
	}
	type hourKey struct {
		kw   string
		hour time.Time
	}
	type figures struct {
		service.ReportMetrics
		day adcamp.Date // as dated at its last write
	}
	final := map[hourKey]figures{}
	var keys []hourKey
	alive := map[string]bool{}
	for _, k := range kws {
		alive[k.id] = true
	}
	// The journal of days folded beside the ingest, as other processes
	// would (FoldDays waits for one another on PostgreSQL; SQLite has one
	// writer), and the reports below fold what is left first. A fold that
	// kept losing to the other one (PostgreSQL's CONFLICT after its
	// attempts: two folders a millisecond apart, far more often than
	// serve's once a second) is tried again, as RunDayFold does.
	foldCtx, stopFolds := context.WithCancel(ctx)
	var folds sync.WaitGroup
	for range 2 {
		other := service.New(service.Config{Store: db, Box: box, Now: clk.Now})
		folds.Go(func() {
			for foldCtx.Err() == nil {
				_, err := other.FoldDays(foldCtx)
				if err != nil && foldCtx.Err() == nil && adcamp.ErrorCode(err) != adcamp.CodeConflict {
					t.Errorf("FoldDays beside the ingest: %v", err)
					return
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
	rng := mrand.New(mrand.NewPCG(34, 9))
	zone, _ := time.LoadLocation("Asia/Tokyo")
	now := clk.Now().Truncate(time.Hour)
	for round := range 6 {
		switch round {
		case 2: // the account moves: later rows (and corrections) go to Los Angeles' days
			if _, err := svc.SetAccountTimeZone(admin, a.ID, "America/Los_Angeles"); err != nil {
				t.Fatal(err)
			}
			zone, _ = time.LoadLocation("America/Los_Angeles")
		case 4: // an ad group and a keyword of another go, with their figures kept
			if _, err := svc.DeleteAdGroup(admin, tn, kws[0].group, service.IfMatch{}); err != nil {
				t.Fatal(err)
			}
			if err := svc.DeleteKeyword(admin, tn, kws[len(kws)-1].id, service.IfMatch{}); err != nil {
				t.Fatal(err)
			}
			for _, k := range kws {
				if k.group == kws[0].group || k.id == kws[len(kws)-1].id {
					alive[k.id] = false
				}
			}
		}
		items := make([]service.DeliveryItem, 0, 60)
		batch := map[hourKey]figures{}
		for len(items) < 60 {
			var hk hourKey
			if len(keys) > 0 && rng.IntN(3) == 0 { // a correction of an hour already sent
				hk = keys[rng.IntN(len(keys))]
			} else {
				hk = hourKey{kws[rng.IntN(len(kws))].id, now.Add(-time.Duration(rng.IntN(96)) * time.Hour)}
			}
			if !alive[hk.kw] {
				continue
			}
			imp := rng.Int64N(5000)
			clicks := rng.Int64N(imp/10 + 1)
			orders := rng.Int64N(clicks + 1)
			cost := adcamp.Money(rng.Int64N(clicks*90 + 1))
			sales := adcamp.Money(rng.Int64N(orders*4000 + 1))
			items = append(items, service.DeliveryItem{KeywordID: hk.kw, Hour: hk.hour.Format(time.RFC3339),
				Impressions: adcamp.Some(imp), Clicks: adcamp.Some(clicks), Orders: adcamp.Some(orders),
				Cost: adcamp.Some(cost.String()), Sales: adcamp.Some(sales.String())})
			y, m, d := hk.hour.In(zone).Date()
			batch[hk] = figures{service.ReportMetrics{Impressions: imp, Clicks: clicks, Cost: cost, Orders: orders, Sales: sales},
				adcamp.Date{Year: y, Month: m, Day: d}}
		}
		if _, err := svc.IngestDelivery(ctx, adcamp.Sandbox, items, false); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for hk, f := range batch {
			if _, ok := final[hk]; !ok {
				keys = append(keys, hk)
			}
			final[hk] = f
		}
	}
	stopFolds()
	folds.Wait()
	var want service.ReportMetrics
	wantDays := map[string]service.ReportMetrics{} // keyword id + day
	for hk, f := range final {
		add(&want, f.ReportMetrics)
		if f.ReportMetrics == (service.ReportMetrics{}) {
			continue // a row of zeros is left out
		}
		k := hk.kw + " " + f.day.String()
		m := wantDays[k]
		add(&m, f.ReportMetrics)
		wantDays[k] = m
	}
	if want.Cost == 0 || want.Sales == 0 {
		t.Fatalf("the random figures sum to %+v", want)
	}
	today := adcamp.DateOf(clk.Now().In(zone))
	from := adcamp.DateOf(time.Date(today.Year, today.Month, today.Day-6, 0, 0, 0, 0, time.UTC))
	deletedRows := 0
	for _, level := range []string{"campaign", "ad_group", "keyword"} {
		for _, g := range []string{"summary", "day", "hour"} {
			q := service.ReportQuery{Level: level, Granularity: g, From: from, To: today, Limit: 7, Sort: "-cost"}
			var paged service.ReportMetrics
			var totals *service.ReportMetrics
			pages := 0
			for {
				p, err := svc.PerformanceReport(admin, tn, q)
				if err != nil {
					t.Fatalf("%s/%s: %v", level, g, err)
				}
				if pages == 0 {
					totals = p.Totals
				} else if p.Totals != nil {
					t.Errorf("%s/%s: page %d has totals", level, g, pages)
				}
				for _, r := range p.Rows {
					add(&paged, r.ReportMetrics)
				}
				pages++
				if p.NextCursor == "" {
					break
				}
				q.Cursor = p.NextCursor
			}
			var streamed service.ReportMetrics
			gotDays := map[string]service.ReportMetrics{}
			q.Cursor = ""
			err := svc.EachPerformanceRow(admin, tn, q, func(r *service.ReportRow) error {
				add(&streamed, r.ReportMetrics)
				if level == "keyword" && g == "day" {
					gotDays[r.KeywordID+" "+r.Date.String()] = r.ReportMetrics
				}
				if r.Deleted {
					deletedRows++
					if r.CampaignName == "" || (level != "campaign" && r.AdGroupName == "") || (level == "keyword" && r.KeywordText == "") || r.Status != "deleted" {
						t.Errorf("%s/%s: a deleted entity's row %+v lacks its names", level, g, r)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			// The store's sums, whether or not the first page held every
			// row (then its totals are the page's).
			stored, err := svc.PerformanceTotals(admin, tn, q)
			if err != nil {
				t.Fatal(err)
			}
			if paged != want || totals == nil || *totals != want || streamed != want || *stored != want {
				t.Errorf("%s/%s: paged %+v, totals %+v, stored totals %+v, streamed %+v; want %+v", level, g, paged, totals, stored, streamed, want)
			}
			if level == "keyword" && g == "day" {
				for k, m := range wantDays {
					if gotDays[k] != m {
						t.Errorf("keyword day %s = %+v, want %+v", k, gotDays[k], m)
					}
				}
				if len(gotDays) != len(wantDays) {
					t.Errorf("%d keyword days, want %d", len(gotDays), len(wantDays))
				}
			}
		}
	}
	if deletedRows == 0 {
		t.Error("no row of a deleted entity")
	}
	// The background roll-up finds nothing left to date.
	if n, err := svc.RollUpUndatedHours(ctx); err != nil || n != 0 {
		t.Errorf("RollUpUndatedHours = %d, %v; want 0", n, err)
	}
}

func add(m *service.ReportMetrics, r service.ReportMetrics) {
	m.Impressions += r.Impressions
	m.Clicks += r.Clicks
	m.Cost += r.Cost
	m.Orders += r.Orders
	m.Sales += r.Sales
}
