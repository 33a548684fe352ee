package store

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
)

// TestPlanDelivery: new keys are inserted, changed ones updated (keeping
// the stored day when the row has none), rows sent again skipped; old
// holds the stored rows of the batch's keys. campaign_hour_spend moves by
// the change of cost of each campaign's hour, not at all for a row sent
// again.
func TestPlanDelivery(t *testing.T) {
	h := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	at := h.UnixMicro()
	where := DeliveryKeyword{AccountID: "acc", Environment: adcamp.Production, CampaignID: "cmp", AdGroupID: "ag"}
	old := []HourFigures{
		{KeywordID: "kw_same", Hour: at, Day: 20261127, DeliveryKeyword: where, Metrics: Metrics{Impressions: 10, Cost: 100}},
		{KeywordID: "kw_more", Hour: at, Day: 20261127, DeliveryKeyword: where, Metrics: Metrics{Impressions: 10, Cost: 100}},
		{KeywordID: "kw_undated", Hour: at, DeliveryKeyword: where, Metrics: Metrics{Impressions: 5, Cost: 50}},
	}
	row := func(id string, day int32, imp int64, cost adcamp.Money) DeliveryRow {
		return DeliveryRow{KeywordID: id, Hour: h, Day: day, DeliveryKeyword: where, Impressions: imp, Cost: cost}
	}
	p := PlanDelivery(old, []DeliveryRow{
		row("kw_same", 20261127, 10, 100),
		row("kw_more", 0, 12, 130),
		row("kw_undated", 20261127, 5, 50),
		row("kw_new", 20261127, 3, 7),
	})
	if len(p.Insert) != 1 || p.Insert[0].KeywordID != "kw_new" {
		t.Errorf("Insert = %+v, want kw_new", p.Insert)
	}
	if len(p.Update) != 2 || p.Update[0].KeywordID != "kw_more" || p.Update[0].Day != 20261127 || p.Update[1].KeywordID != "kw_undated" {
		t.Errorf("Update = %+v, want kw_more (its stored day) and kw_undated (dated now)", p.Update)
	}
	if len(p.Spend) != 1 || p.Spend[0] != (HourSpend{"cmp", at, 37}) {
		t.Errorf("Spend = %+v, want cmp +0.37", p.Spend)
	}
	for _, d := range p.Days {
		if d.Level == LevelKeyword && d.EntityID == "kw_same" {
			t.Errorf("a row sent again moves its day: %+v", d)
		}
	}
	if p := PlanDelivery(old[:1], []DeliveryRow{row("kw_same", 20261127, 10, 100)}); len(p.Insert)+len(p.Update)+len(p.Spend)+len(p.Days) != 0 {
		t.Errorf("a batch sent again plans %+v, want nothing", p)
	}
}

// BenchmarkPlanDelivery sorts and plans a 10,000-row batch as the stores
// do (SortDelivery, PlanDelivery): the running totals of 10,000
// keywords' hour, sent in no order, 100 to an ad group, over the figures
// stored for them before.
func BenchmarkPlanDelivery(b *testing.B) {
	const n = 10000
	h := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	rnd := rand.New(rand.NewPCG(1, 2))
	rows := make([]DeliveryRow, n)
	old := make([]HourFigures, n)
	for i := range rows {
		where := DeliveryKeyword{AccountID: "acc_01JDSV44GP9YC7F8DK21MYRD51", Environment: adcamp.Production,
			CampaignID: fmt.Sprintf("cmp_01JDSV44GP9YC7F8DK21MY%04d", i/1000), AdGroupID: fmt.Sprintf("adg_01JDSV44GP9YC7F8DK21MY%04d", i/100)}
		id := fmt.Sprintf("kw_01JDSV44GP9YC7F8DK21MY%06d", i)
		rows[i] = DeliveryRow{KeywordID: id, Hour: h, Day: 20261127, DeliveryKeyword: where, Impressions: 1001, Clicks: 10, Cost: 125}
		old[i] = HourFigures{KeywordID: id, Hour: h.UnixMicro(), Day: 20261127, DeliveryKeyword: where,
			Metrics: Metrics{Impressions: 1000, Clicks: 10, Cost: 120}}
	}
	rnd.Shuffle(n, func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	rnd.Shuffle(n, func(i, j int) { old[i], old[j] = old[j], old[i] })
	for b.Loop() {
		p := PlanDelivery(old, SortDelivery(rows))
		if len(p.Update) != n || len(p.Days) != n+110 {
			b.Fatalf("%d updates and %d days, want %d and %d", len(p.Update), len(p.Days), n, n+110)
		}
	}
}
