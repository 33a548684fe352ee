package service

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
)

// TestAppendRatios checks that the ratios a job's rows write are the
// metrics' own (CTR, CPC, ...), including the sums that take math/big.
func TestAppendRatios(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	ms := []ReportMetrics{{}, {Impressions: 3_000_000_000_000_000, Clicks: 1_000_000_000_000_000, Cost: 7, Sales: 1 << 62}}
	for range 10000 {
		n := func() int64 { return rng.Int64N([...]int64{1, 10, 1000, 1 << 40}[rng.IntN(4)]) }
		ms = append(ms, ReportMetrics{Impressions: n(), Clicks: n(), Cost: adcamp.Money(n()), Orders: n(), Sales: adcamp.Money(n())})
	}
	for _, m := range ms {
		var want []string
		for _, f := range []func() (string, bool){m.CTR, m.CPC, m.ConversionRate, m.ACOS, m.ROAS} {
			v, ok := f()
			if !ok {
				v = "-"
			}
			want = append(want, v)
		}
		got := strings.Split(string(m.appendRatios(nil, &ratioStyle{prefix: [5]string{"", " ", " ", " ", " "}, null: "-"})), " ")
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%+v: appendRatios = %q, want %q", m, got, want)
		}
	}
}

// TestReportRowsAllocateNothing: a job writes millions of rows, each
// through these.
func TestReportRowsAllocateNothing(t *testing.T) {
	r := &ReportRow{Date: adcamp.Date{Year: 2026, Month: 11, Day: 27}, Hour: time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC),
		CampaignID: "cmp_1", CampaignName: "=Spring, sale", AdGroupID: "adg_1", AdGroupName: "Group", KeywordID: "kw_1",
		KeywordText: "shoes", MatchType: adcamp.MatchExact, Status: "active",
		ReportMetrics: ReportMetrics{Impressions: 1000, Clicks: 13, Cost: 1234, Orders: 2, Sales: 9999}}
	b := make([]byte, 0, 1024)
	for _, g := range []string{GranularityDay, GranularityHour} {
		q := ReportQuery{Level: LevelKeyword, Granularity: g}
		if n := testing.AllocsPerRun(100, func() { b = appendCSVRow(b[:0], q, r) }); n != 0 {
			t.Errorf("appendCSVRow (%s): %v allocations a row, want 0", g, n)
		}
		if n := testing.AllocsPerRun(100, func() { b = appendJSONRow(b[:0], r) }); n != 0 {
			t.Errorf("appendJSONRow: %v allocations a row, want 0", n)
		}
	}
	q := ReportQuery{Level: LevelKeyword, Granularity: GranularityHour}
	want := `2026-11-27,2026-11-27T13:00:00Z,cmp_1,"'=Spring, sale",adg_1,Group,kw_1,shoes,exact,active,false,1000,13,12.34,2,99.99,` +
		"0.013000,0.9492,0.153846,0.123412,8.102917\r\n"
	if got := string(appendCSVRow(nil, q, r)); got != want {
		t.Errorf("appendCSVRow = %q\nwant %q", got, want)
	}
}
