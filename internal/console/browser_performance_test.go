package console_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// TestBrowserPerformance: with delivery posted, the Performance pages of
// the environment, a campaign and an ad group, in a real browser: the
// range switched by its links and by dates, the table sorted by a
// column's header and by the sort's form, from one level to the next by
// the table's links; at a desktop's width and a phone's.
func TestBrowserPerformance(t *testing.T) {
	ctx := newBrowser(t)
	e := newEnv(t)
	_, acc := e.owner()
	env := adcamp.Sandbox
	f := seedPerformance(t, e, acc, env)
	signInBrowser(t, ctx, e, ownerEmail, ownerPassword)

	// The navigation leads to the environment's performance.
	do(t, ctx, chromedp.Navigate(e.console.URL+at(acc, env, "/campaigns")), chromedp.WaitVisible(chromedp.CSS("main h1")))
	click(t, ctx, `nav[aria-label="Main"] a[href$="/sandbox/performance"]`)
	if got := textOf(t, ctx, "main h1"); !strings.HasPrefix(got, "Performance") {
		t.Fatalf("the navigation's Performance leads to %q", got)
	}
	if got := textOf(t, ctx, `.ranges a[aria-current="page"]`); got != "Last 30 days" {
		t.Errorf("the range shown first is %q, want the last 30 days", got)
	}
	if n := count(t, ctx, ".perf-table tbody tr"); n != 2 {
		t.Errorf("the environment's table has %d campaigns, want 2", n)
	}
	fitsBoth(t, ctx, "performance-home")

	// The last 7 days, then sorted by clicks (highest first, then lowest).
	click(t, ctx, `.ranges a[href$="days=7"]`)
	if got := textOf(t, ctx, `.ranges a[aria-current="page"]`); got != "Last 7 days" {
		t.Errorf("after choosing the last 7 days the picker marks %q", got)
	}
	click(t, ctx, `.perf-table thead th:nth-child(3) a`)
	wantSorted(t, ctx, 2, true)
	click(t, ctx, `.perf-table thead th:nth-child(3) a`)
	wantSorted(t, ctx, 2, false)
	if loc := fullLocation(t, ctx); !strings.Contains(loc, "days=7") || !strings.Contains(loc, "sort=clicks") {
		t.Errorf("the sorted view's address %s does not keep its range and order", loc)
	}
	shot(t, ctx, "60-performance-home-sorted")

	// Into the campaign, by its row; a range of dates through the form.
	click(t, ctx, `.perf-table tbody a[href*="/campaigns/`+f.campaigns[0]+`/performance"]`)
	if got := textOf(t, ctx, "main h1"); got != "Shoes" {
		t.Errorf("the campaign's row leads to %q", got)
	}
	from := daysBack(f.today, 3)
	do(t, ctx, chromedp.SetValue(chromedp.CSS("#q-from"), from), chromedp.SetValue(chromedp.CSS("#q-to"), f.today.String()))
	submit(t, ctx, "form.custom-range", ".perf-table")
	if loc := fullLocation(t, ctx); !strings.Contains(loc, "from="+from) {
		t.Errorf("the custom range's address is %s", loc)
	}
	if n := count(t, ctx, ".perf-svg.cost rect"); n != 4 {
		t.Errorf("the chart of 4 days has %d bars", n)
	}
	if got := textOf(t, ctx, ".perf-table tr.deleted th"); !strings.Contains(got, "Trail") || !strings.Contains(strings.ToLower(got), "deleted") {
		t.Errorf("the deleted ad group's row says %q", got)
	}
	fitsBoth(t, ctx, "performance-campaign")

	// Into the ad group; sorted by the form (a phone has no headers).
	click(t, ctx, `.perf-table tbody a[href*="/ad-groups/`+f.groups[0]+`/performance"]`)
	do(t, ctx, chromedp.SetValue(chromedp.CSS("#q-sort"), "-roas"))
	submit(t, ctx, `form[aria-label^="Sort"]`, ".perf-table")
	if got := textOf(t, ctx, `.perf-table thead th[aria-sort="descending"]`); !strings.HasPrefix(got, "ROAS") {
		t.Errorf("sorted by the form, the table marks %q", got)
	}
	if loc := fullLocation(t, ctx); !strings.Contains(loc, "from="+from) {
		t.Errorf("the sort's form lost the range: %s", loc)
	}
	fitsBoth(t, ctx, "performance-ad-group")

	// A range the report refuses: said in the page.
	do(t, ctx, chromedp.Navigate(e.console.URL+at(acc, env, "/performance?from="+f.today.String()+"&to="+daysBack(f.today, 5))),
		chromedp.WaitVisible(chromedp.CSS("#range-problems")))
	fitsBoth(t, ctx, "performance-refused")
	do(t, ctx, chromedp.Navigate(e.console.URL+at(acc, adcamp.Production, "/performance")), chromedp.WaitVisible(chromedp.CSS("#no-delivery")))
	fitsBoth(t, ctx, "performance-empty")
}

// wantSorted checks that the table's clicks (its column col) go down, or
// up.
func wantSorted(t *testing.T, ctx context.Context, col int, down bool) {
	t.Helper()
	cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".perf-table tbody tr td:nth-of-type(`+strconv.Itoa(col)+`)")].map(td => td.textContent.trim())`))
	if err != nil {
		t.Fatal(err)
	}
	var prev int64 = -1
	for i, cell := range cells {
		n, err := strconv.ParseInt(strings.ReplaceAll(cell, ",", ""), 10, 64)
		if err != nil {
			t.Fatalf("clicks %q", cell)
		}
		if i > 0 && (down && n > prev || !down && n < prev) {
			t.Errorf("the clicks %v are not in %s order", cells, map[bool]string{true: "descending", false: "ascending"}[down])
		}
		prev = n
	}
}

// deliverLarge posts a few days of large figures to keywords, as the
// operator's ad server would.
func deliverLarge(t *testing.T, e *testEnv, env adcamp.Environment, keywords ...string) {
	t.Helper()
	now := e.clock.Now().Truncate(time.Hour)
	var items []service.DeliveryItem
	for i, kw := range keywords {
		for d := range 12 {
			items = append(items, service.DeliveryItem{KeywordID: kw, Hour: now.Add(-time.Duration(24*d+i) * time.Hour).Format(time.RFC3339),
				Impressions: adcamp.Some(int64(987654321 + d)), Clicks: adcamp.Some(int64(9876543 + d)), Orders: adcamp.Some(int64(98765)),
				Cost: adcamp.Some("98765.43"), Sales: adcamp.Some("999999.99")})
		}
	}
	if _, err := e.svc.IngestDelivery(ctx, env, items, false); err != nil {
		t.Fatal(err)
	}
}

// fullLocation is the page's address with its query.
func fullLocation(t *testing.T, ctx context.Context) string {
	t.Helper()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// fitsBoth checks the page fits a desktop's window and a phone's screen
// (see fits), and leaves the window a desktop's.
func fitsBoth(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	do(t, ctx, chromedp.EmulateViewport(desktopWidth, 900))
	fits(t, ctx, name)
	do(t, ctx, chromedp.EmulateViewport(phoneWidth, 800))
	fits(t, ctx, name)
	do(t, ctx, chromedp.EmulateViewport(desktopWidth, 900))
}
