package sdktest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client"
	"github.com/adcamp/adcamp/internal/service"
)

// TestPerformanceReportThroughTheSDK posts figures through the service's
// ingest (the operator API's path) and reads them back as typed rows,
// one page and every page.
func TestPerformanceReportThroughTheSDK(t *testing.T) {
	s := newSandbox(t, nil)
	c := s.client()
	ctx := context.Background()
	g := newAdGroup(t, c)
	items := make([]client.KeywordCreate, 25)
	for i := range items {
		items[i] = client.KeywordCreate{Text: fmt.Sprintf("shoe %d", i), MatchType: client.MatchType("exact")}
	}
	kws := must(c.CreateKeywords(ctx, g.ID, items, nil))
	hour := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour)
	var rows []service.DeliveryItem
	for i, k := range kws {
		rows = append(rows, service.DeliveryItem{KeywordID: k.ID, Hour: hour.Format(time.RFC3339),
			Impressions: adcamp.Some(int64(100 + i)), Clicks: adcamp.Some(int64(i)), Orders: adcamp.Some(int64(i / 5)),
			Cost: adcamp.Some(fmt.Sprintf("%d.%02d", i/3, i%100)), Sales: adcamp.Some(fmt.Sprintf("%d.00", i))})
	}
	if _, err := s.svc.IngestDelivery(ctx, adcamp.Sandbox, rows, false); err != nil {
		t.Fatal(err)
	}
	page := must(c.PerformanceReport(ctx, &client.ReportOptions{Level: "keyword", Sort: "-clicks", Limit: 10}))
	if len(page.Items) != 10 || page.NextCursor == "" || page.Totals == nil || page.Level != "keyword" || page.TimeZone != "UTC" {
		t.Fatalf("first page: %+v", page)
	}
	first := page.Items[0]
	if first.KeywordText != "shoe 24" || first.Clicks != 24 || first.Cost != client.USD("8.24") || first.AdGroupName != "Shoes" ||
		first.CTR == nil || *first.CTR != "0.193548" || first.Status != "active" || first.Deleted {
		t.Errorf("top row by clicks: %+v", first)
	}
	var totals client.ReportMetrics
	var n int
	var cost client.Money
	for r, err := range c.PerformanceRows(ctx, &client.ReportOptions{Level: "keyword", Granularity: "hour", Limit: 7}, &totals) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Hour.IsZero() || r.Date.IsZero() {
			t.Errorf("hourly row without its hour: %+v", r)
		}
		n++
		cost += r.Cost
	}
	if n != 25 || cost != totals.Cost || totals.Cost != page.Totals.Cost || totals.Clicks != 300 {
		t.Errorf("rows %d summing to %v; totals %+v", n, cost, totals)
	}
	_, err := c.PerformanceReport(ctx, &client.ReportOptions{Level: "account"})
	if e := asError(t, err); e.Code != "VALIDATION_ERROR" {
		t.Errorf("a bad level: %v", err)
	}
}
