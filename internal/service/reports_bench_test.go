package service_test

import (
	"crypto/rand"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/secrets"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// TestReportSpeed seeds daily figures for one account of
// ADCAMP_BENCH_REPORT_KEYWORDS keywords (1,000 if unset) × 400 days,
// beside other accounts, and logs how long the two reports of issue 34's
// targets take (median of 5), on each store. It runs only with
// ADCAMP_BENCH_REPORTS=1: the figures go to bench/notes/reports.md, no
// time is asserted.
func TestReportSpeed(t *testing.T) {
	t.Parallel()
	if os.Getenv("ADCAMP_BENCH_REPORTS") == "" {
		t.Skip("set ADCAMP_BENCH_REPORTS=1 to measure the reports (bench/notes/reports.md)")
	}
	nkw := 1000
	if s := os.Getenv("ADCAMP_BENCH_REPORT_KEYWORDS"); s != "" {
		nkw, _ = strconv.Atoi(s)
	}
	for name, open := range reportStores(t) {
		t.Run(name, func(t *testing.T) { measureReports(t, open(t), nkw) })
	}
}

func measureReports(t *testing.T, db store.Store, nkw int) {
	key := make([]byte, secrets.KeySize)
	rand.Read(key)
	box, _ := secrets.New(key)
	clk := &clock{now: time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)}
	svc := service.New(service.Config{Store: db, Box: box, Now: clk.Now})
	a, err := svc.CreateAccount(admin, "Big", "")
	if err != nil {
		t.Fatal(err)
	}
	// The other accounts: 100, with a few keywords each over the same days.
	var accounts []string
	for i := range 100 {
		o, err := svc.CreateAccount(admin, fmt.Sprintf("Other %d", i), "")
		if err != nil {
			t.Fatal(err)
		}
		accounts = append(accounts, o.ID)
	}
	start := time.Now()
	seed := func(account string, keywords int) {
		const days = 400
		rows := make([]store.DeliveryRow, 0, 5000)
		flush := func() {
			if len(rows) == 0 {
				return
			}
			if err := db.Write(ctx, func(tx store.Tx) error { return tx.PutDelivery(ctx, rows, clk.Now()) }); err != nil {
				t.Fatal(err)
			}
			rows = rows[:0]
		}
		for d := range days {
			h := time.Date(2026, 11, 22-d, 12, 0, 0, 0, time.UTC)
			y, m, dd := h.Date()
			for k := range keywords {
				rows = append(rows, store.DeliveryRow{KeywordID: fmt.Sprintf("kw_%s_%05d", account[4:], k), Hour: h,
					Day: store.DayNumber(adcamp.Date{Year: y, Month: m, Day: dd}),
					DeliveryKeyword: store.DeliveryKeyword{AccountID: account, Environment: adcamp.Production,
						CampaignID: fmt.Sprintf("cmp_%s_%03d", account[4:], k/500), AdGroupID: fmt.Sprintf("adg_%s_%04d", account[4:], k/50)},
					Impressions: int64(100 + k%37 + d%11), Clicks: int64(k%7 + d%3), Cost: adcamp.Money(k%300 + d), Orders: int64(k % 2), Sales: adcamp.Money(k%900 + 3*d)})
				if len(rows) == cap(rows) {
					flush()
				}
			}
		}
		flush()
	}
	seed(a.ID, nkw)
	seeded := time.Since(start)
	for _, o := range accounts {
		seed(o, 10)
	}
	t.Logf("seeded %d keywords × 400 days (%d daily keyword rows) in %v, and 100 accounts × 10 keywords × 400 days in %v",
		nkw, nkw*400, seeded.Round(time.Second), (time.Since(start) - seeded).Round(time.Second))
	tn := adcamp.Tenant{AccountID: a.ID, Environment: adcamp.Production}
	today := adcamp.Date{Year: 2026, Month: 11, Day: 22}
	day := func(n int) adcamp.Date { return adcamp.DateOf(time.Date(2026, 11, 22-n, 0, 0, 0, 0, time.UTC)) }
	for _, c := range []struct {
		name string
		q    service.ReportQuery
	}{
		{"campaign summary, 400 days, first page", service.ReportQuery{Level: "campaign", From: day(399), To: today}},
		{"keyword summary, 90 days, first page by -cost", service.ReportQuery{Level: "keyword", From: day(89), To: today, Sort: "-cost"}},
		{"keyword summary, 90 days, first page", service.ReportQuery{Level: "keyword", From: day(89), To: today}},
		{"ad group by day, 30 days, first page", service.ReportQuery{Level: "ad_group", Granularity: "day", From: day(29), To: today}},
	} {
		var ds []time.Duration
		for range 5 {
			t0 := time.Now()
			p, err := svc.PerformanceReport(admin, tn, c.q)
			if err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
			if len(p.Rows) == 0 || p.Totals == nil {
				t.Fatalf("%s: empty", c.name)
			}
		}
		slices.Sort(ds)
		t.Logf("%s: median %v (min %v, max %v)", c.name, ds[2].Round(time.Millisecond), ds[0].Round(time.Millisecond), ds[4].Round(time.Millisecond))
	}
}
