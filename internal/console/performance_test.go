package console_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// perfFixture is an account's delivery, posted through the operator's
// path: two campaigns (one named like a spreadsheet formula), three ad
// groups (one deleted after its delivery), keywords, over the last days.
type perfFixture struct {
	acc       string
	env       adcamp.Environment
	campaigns []string // ids: Shoes, the formula
	groups    []string // Shoes' Running, Shoes' Trail (deleted), the formula's
	keywords  map[string][]string
	today     adcamp.Date
}

// seedPerformance creates the fixture's entities and posts their delivery
// as the operator API does (service.IngestDelivery).
func seedPerformance(t *testing.T, e *testEnv, acc string, env adcamp.Environment) *perfFixture {
	t.Helper()
	if _, err := e.svc.SetAccountTimeZone(admin, acc, "Asia/Tokyo"); err != nil {
		t.Fatal(err)
	}
	tn := adcamp.Tenant{AccountID: acc, Environment: env}
	f := &perfFixture{acc: acc, env: env, keywords: map[string][]string{}}
	for _, name := range []string{"Shoes", `=HYPERLINK("http://evil.example","x")`} {
		c, err := e.svc.CreateCampaign(admin, tn, adcamp.CampaignInput{Name: adcamp.Some(name), BudgetDaily: adcamp.Some("5000.00"),
			Marketplace: adcamp.Some("US")}, false)
		if err != nil {
			t.Fatal(err)
		}
		f.campaigns = append(f.campaigns, c.ID)
	}
	for i, g := range []struct{ campaign, name string }{{f.campaigns[0], "Running"}, {f.campaigns[0], "Trail"}, {f.campaigns[1], "+Formula group"}} {
		ag, err := e.svc.CreateAdGroup(admin, tn, g.campaign, adcamp.AdGroupInput{Name: adcamp.Some(g.name), DefaultBid: adcamp.Some("0.75")}, false)
		if err != nil {
			t.Fatal(err)
		}
		f.groups = append(f.groups, ag.ID)
		var items []adcamp.KeywordInput
		for _, text := range []string{"red shoes", "-cheap shoes", fmt.Sprintf("shoes %d", i)} {
			items = append(items, adcamp.KeywordInput{Text: adcamp.Some(text), MatchType: adcamp.Some(adcamp.MatchExact)})
		}
		res, err := e.svc.CreateKeywords(admin, tn, ag.ID, items, service.BatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			f.keywords[ag.ID] = append(f.keywords[ag.ID], r.Keyword.ID)
		}
	}
	// Figures for each keyword over the last 5 days, each a little
	// different, a keyword with clicks and no sales (ACOS has nothing to
	// divide by) and one with impressions only.
	now := e.clock.Now().Truncate(time.Hour)
	var items []service.DeliveryItem
	n := 0
	for _, g := range f.groups {
		for k, kw := range f.keywords[g] {
			for d := range 5 {
				n++
				imp, clicks, orders := int64(100*n+7*k), int64(3*n%17+k), int64(n%3)
				cost, sales := adcamp.Money(37*n+11*k), adcamp.Money(0)
				if k != 1 {
					sales = adcamp.Money(900*orders + int64(13*n))
				}
				if k == 2 && d == 0 {
					clicks, orders, cost, sales = 0, 0, 0, 0
				}
				items = append(items, service.DeliveryItem{KeywordID: kw, Hour: now.Add(-time.Duration(24*d+k) * time.Hour).Format(time.RFC3339),
					Impressions: adcamp.Some(imp), Clicks: adcamp.Some(clicks), Orders: adcamp.Some(orders),
					Cost: adcamp.Some(cost.String()), Sales: adcamp.Some(sales.String())})
			}
		}
	}
	if _, err := e.svc.IngestDelivery(ctx, env, items, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.DeleteAdGroup(admin, tn, f.groups[1], service.IfMatch{}); err != nil {
		t.Fatal(err)
	}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	y, m, d := e.clock.Now().In(tokyo).Date()
	f.today = adcamp.Date{Year: y, Month: m, Day: d}
	return f
}

// daysBack is the day n days before d.
func daysBack(d adcamp.Date, n int) string {
	return time.Date(d.Year, d.Month, d.Day-n, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
}

// apiReport is a page of GET /reports/performance.
type apiReport struct {
	Items []struct {
		CampaignName string `json:"campaign_name"`
		AdGroupName  string `json:"ad_group_name"`
		KeywordText  string `json:"keyword_text"`
		Status       string `json:"status"`
		Deleted      bool   `json:"deleted"`
		apiMetrics
	} `json:"items"`
	Totals *apiMetrics `json:"totals"`
}

type apiMetrics struct {
	Impressions    json.Number `json:"impressions"`
	Clicks         json.Number `json:"clicks"`
	Cost           json.Number `json:"cost"`
	Orders         json.Number `json:"orders"`
	Sales          json.Number `json:"sales"`
	CTR            *string     `json:"ctr"`
	CPC            *string     `json:"cpc"`
	ConversionRate *string     `json:"conversion_rate"`
	ACOS           *string     `json:"acos"`
	ROAS           *string     `json:"roas"`
}

// values are the metrics in the table's order, as exact numbers (nil
// where the API has none).
func (m apiMetrics) values() []*big.Rat {
	rat := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			panic("not a number: " + s)
		}
		return r
	}
	opt := func(s *string) *big.Rat {
		if s == nil {
			return nil
		}
		return rat(*s)
	}
	return []*big.Rat{rat(m.Impressions.String()), rat(m.Clicks.String()), rat(m.Cost.String()), rat(m.Orders.String()),
		rat(m.Sales.String()), opt(m.CTR), opt(m.CPC), opt(m.ConversionRate), opt(m.ACOS), opt(m.ROAS)}
}

// cellValue reads a cell of the console's table as an exact number: "$"
// and "," dropped, a percent divided by 100, "–" nil.
func cellValue(t *testing.T, cell string) *big.Rat {
	t.Helper()
	if cell == "–" {
		return nil
	}
	s := strings.NewReplacer("$", "", ",", "").Replace(cell)
	pct := strings.HasSuffix(s, "%")
	r, ok := new(big.Rat).SetString(strings.TrimSuffix(s, "%"))
	if !ok {
		t.Fatalf("cell %q is not a number", cell)
	}
	if pct {
		r.Quo(r, big.NewRat(100, 1))
	}
	return r
}

// perfTableRow is a row of the console's table.
type perfTableRow struct {
	name  string
	cells []string
}

func perfTable(p *page, sel string) []perfTableRow {
	var rows []perfTableRow
	p.doc.Find(sel).Each(func(_ int, tr *goquery.Selection) {
		r := perfTableRow{name: strings.Join(strings.Fields(tr.Find("th").Text()), " ")}
		tr.Find("td").Each(func(_ int, td *goquery.Selection) { r.cells = append(r.cells, strings.TrimSpace(td.Text())) })
		rows = append(rows, r)
	})
	return rows
}

// wantSameFigures checks that the console's row shows the API's figures.
func wantSameFigures(t *testing.T, where string, got []string, want apiMetrics) {
	t.Helper()
	w := want.values()
	if len(got) != len(w) {
		t.Fatalf("%s: %d cells, want %d", where, len(got), len(w))
	}
	for i, cell := range got {
		g := cellValue(t, cell)
		if (g == nil) != (w[i] == nil) || g != nil && g.Cmp(w[i]) != 0 {
			t.Errorf("%s: cell %d = %q, want the API's %v", where, i, cell, w[i])
		}
	}
}

// TestPerformance: each Performance page shows exactly the API's report
// of the level below for the range asked, in the order asked, with its
// totals; its CSV holds the same rows with formulas defused; a viewer
// sees it all; another account's campaign is not found; a range the
// report refuses is said in the page.
func TestPerformance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	env := adcamp.Sandbox
	f := seedPerformance(t, e, acc, env)
	api := e.apiFor(acc, env)
	from, to := daysBack(f.today, 6), f.today.String()

	views := []struct {
		name, path, query string
		label             func(name, group, text string) string
	}{
		{"home", at(acc, env, "/performance"), "level=campaign", nil},
		{"campaign", at(acc, env, "/campaigns/"+f.campaigns[0]+"/performance"), "level=ad_group&campaign_id=" + f.campaigns[0], nil},
		{"ad group", at(acc, env, "/ad-groups/"+f.groups[0]+"/performance"), "level=keyword&ad_group_id=" + f.groups[0], nil},
	}
	for _, v := range views {
		for _, sort := range []string{"", "clicks", "-ctr", "acos"} {
			q := url.Values{"days": {"7"}}
			apiSort := "-cost"
			if sort != "" {
				q.Set("sort", sort)
				apiSort = sort
			}
			p := c.get(v.path + "?" + q.Encode()).wantStatus(200)
			var rep apiReport
			api.get("/reports/performance?"+v.query+"&from="+from+"&to="+to+"&sort="+url.QueryEscape(apiSort)+"&limit=1000", &rep)
			rows := perfTable(p, ".perf-table tbody tr")
			if len(rows) != len(rep.Items) || len(rows) < 2 {
				t.Fatalf("%s sorted %q: %d rows, the API %d", v.name, sort, len(rows), len(rep.Items))
			}
			for i, it := range rep.Items {
				name := it.CampaignName
				if it.KeywordText != "" {
					name = it.KeywordText
				} else if it.AdGroupName != "" {
					name = it.AdGroupName
				}
				if !strings.HasPrefix(rows[i].name, name) {
					t.Errorf("%s sorted %q: row %d is %q, the API's %q", v.name, sort, i, rows[i].name, name)
				}
				if it.Deleted != strings.Contains(rows[i].name, "Deleted") {
					t.Errorf("%s: row %q marked deleted: %v, want %v", v.name, rows[i].name, !it.Deleted, it.Deleted)
				}
				wantSameFigures(t, fmt.Sprintf("%s sorted %q, row %d", v.name, sort, i), rows[i].cells, it.apiMetrics)
			}
			totals := perfTable(p, ".perf-table tfoot tr")
			if len(totals) != 1 || rep.Totals == nil {
				t.Fatalf("%s: %d totals rows", v.name, len(totals))
			}
			wantSameFigures(t, v.name+" totals", totals[0].cells, *rep.Totals)
			// The column sorted by says so, and its link turns the order.
			if sort != "" {
				th := p.doc.Find(".perf-table thead th[aria-sort]")
				want := "ascending"
				if strings.HasPrefix(sort, "-") {
					want = "descending"
				}
				if s, _ := th.Attr("aria-sort"); th.Length() != 1 || s != want {
					t.Errorf("%s sorted %q: aria-sort %q on %d headers", v.name, sort, s, th.Length())
				}
				href, _ := th.Find("a").Attr("href")
				if u, _ := url.Parse(href); u.Query().Get("sort") == sort || u.Query().Get("days") != "7" {
					t.Errorf("%s sorted %q: the header links to %s", v.name, sort, href)
				}
			}
		}
		// The chart: two series over the 30 days shown by default,
		// each named and described for screen readers.
		p := c.get(v.path).wantStatus(200)
		if n := p.doc.Find("svg.perf-svg").Length(); n != 2 {
			t.Errorf("%s: %d charts, want cost and clicks", v.name, n)
		}
		if n := p.doc.Find("svg.perf-svg.cost rect").Length(); n != 30 {
			t.Errorf("%s: %d days in the chart, want 30", v.name, n)
		}
		for _, id := range []string{"cost", "clicks"} {
			if !p.has("svg title#chart-"+id+"-title") || !p.has("svg desc#chart-"+id+"-desc") {
				t.Errorf("%s: the %s chart has no title or description", v.name, id)
			}
		}
		if !p.has(`.ranges a[aria-current="page"]`) || p.text(`.ranges a[aria-current="page"]`) != "Last 30 days" {
			t.Errorf("%s: the picker marks %q", v.name, p.text(`.ranges a[aria-current="page"]`))
		}
	}

	// The ad group's page of keywords: the cost shown per day sums to the
	// total, each day's figures the API's daily report.
	p := c.get(at(acc, env, "/ad-groups/"+f.groups[0]+"/performance?from="+from+"&to="+to)).wantStatus(200)
	shown := map[string]string{}
	for _, r := range perfTable(p, ".days-table tbody tr") {
		shown[r.name] = r.cells[0]
	}
	if len(shown) != 7 {
		t.Errorf("the days table has %d days, want 7", len(shown))
	}
	apiDays := map[string]string{}
	var raw struct {
		Items []struct {
			Date string      `json:"date"`
			Cost json.Number `json:"cost"`
		} `json:"items"`
	}
	api.get("/reports/performance?level=ad_group&granularity=day&ad_group_id="+f.groups[0]+"&from="+from+"&to="+to, &raw)
	for _, it := range raw.Items {
		apiDays[it.Date] = "$" + it.Cost.String()
	}
	for day, cost := range shown {
		if want, ok := apiDays[day]; ok && cost != want || !ok && cost != "$0.00" {
			t.Errorf("the chart's %s costs %s, the API says %q", day, cost, want)
		}
	}

	// The CSV: the table's rows, every one, in the format of a report
	// job, the formula's name defused.
	for _, v := range views {
		csvPath := strings.Replace(v.path, "/performance", "/performance.csv", 1) + "?days=7&sort=clicks"
		if href, _ := c.get(v.path + "?days=7&sort=clicks").doc.Find("#csv-link").Attr("href"); href != csvPath {
			t.Errorf("%s: the CSV link is %s, want %s", v.name, href, csvPath)
		}
		p := c.get(csvPath).wantStatus(200)
		if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") || !strings.Contains(p.header.Get("Content-Disposition"), "attachment") {
			t.Errorf("%s: the CSV is %s, %s", v.name, ct, p.header.Get("Content-Disposition"))
		}
		records, err := csv.NewReader(strings.NewReader(p.body)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v\n%s", v.name, err, p.body)
		}
		var rep apiReport
		api.get("/reports/performance?"+v.query+"&from="+from+"&to="+to+"&sort=clicks&limit=1000", &rep)
		if len(records) != len(rep.Items)+1 {
			t.Fatalf("%s: the CSV has %d lines, want a header and %d rows", v.name, len(records), len(rep.Items))
		}
		head := records[0]
		col := func(name string) int { return slices.Index(head, name) }
		if col("clicks") < 0 || col("cost") < 0 || col("acos") < 0 || col("deleted") < 0 {
			t.Fatalf("%s: the CSV's columns are %v", v.name, head)
		}
		for i, it := range rep.Items {
			rec := records[i+1]
			if rec[col("clicks")] != it.Clicks.String() || rec[col("cost")] != it.Cost.String() || rec[col("deleted")] != fmt.Sprint(it.Deleted) {
				t.Errorf("%s: CSV row %d = %v, the API's %+v", v.name, i, rec, it)
			}
			if want := it.ACOS; want == nil && rec[col("acos")] != "" || want != nil && rec[col("acos")] != *want {
				t.Errorf("%s: CSV row %d's acos = %q, the API's %v", v.name, i, rec[col("acos")], want)
			}
		}
	}
	body := c.get(at(acc, env, "/performance.csv?days=7")).body
	if !strings.Contains(body, `"'=HYPERLINK(""http://evil.example"",""x"")"`) || strings.Contains(body, `,"=HYPERLINK`) {
		t.Errorf("the formula's campaign is not defused in the CSV:\n%s", body)
	}
	body = c.get(at(acc, env, "/campaigns/"+f.campaigns[1]+"/performance.csv?days=7")).body
	if !strings.Contains(body, ",'+Formula group,") && !strings.Contains(body, `"'+Formula group"`) {
		t.Errorf("the formula's ad group is not defused in the CSV:\n%s", body)
	}
	body = c.get(at(acc, env, "/ad-groups/"+f.groups[0]+"/performance.csv?days=7")).body
	if !strings.Contains(body, `"'-cheap shoes"`) {
		t.Errorf("the keyword -cheap shoes is not defused in the CSV:\n%s", body)
	}

	// The campaign list's, a campaign's and an ad group's pages sum up
	// the last 7 days and lead to the full view.
	for _, v := range []struct{ page, query, link string }{
		{at(acc, env, "/campaigns"), "level=campaign", at(acc, env, "/performance?days=7")},
		{at(acc, env, "/campaigns/"+f.campaigns[0]), "level=campaign&campaign_id=" + f.campaigns[0], views[1].path + "?days=7"},
		{at(acc, env, "/ad-groups/"+f.groups[0]), "level=ad_group&ad_group_id=" + f.groups[0], views[2].path + "?days=7"},
	} {
		var rep apiReport
		api.get("/reports/performance?"+v.query+"&from="+from+"&to="+to, &rep)
		p := c.get(v.page).wantStatus(200)
		if got := p.text(".perf-figures div:first-child dd"); got != "$"+rep.Totals.Cost.String() {
			t.Errorf("%s sums up a cost of %q, the API %s", v.page, got, rep.Totals.Cost)
		}
		if href, _ := p.doc.Find(".perf-summary a").Attr("href"); href != v.link {
			t.Errorf("%s leads to %s, want %s", v.page, href, v.link)
		}
	}

	// The deleted ad group keeps its row, marked, without a link.
	p = c.get(at(acc, env, "/campaigns/"+f.campaigns[0]+"/performance?days=7")).wantStatus(200)
	deleted := p.doc.Find(".perf-table tbody tr.deleted")
	if deleted.Length() != 1 || !strings.Contains(deleted.Text(), "Trail") || deleted.Find("a").Length() != 0 {
		t.Errorf("the deleted ad group's row: %q", strings.Join(strings.Fields(deleted.Text()), " "))
	}

	// A viewer sees every page and file.
	viewer, _ := e.member(acc, "viewer@example.com", adcamp.RoleViewer)
	for _, v := range views {
		viewer.get(v.path+"?days=90&sort=-roas").wantStatus(200).wantText(".perf-table tfoot", "Total")
		viewer.get(strings.Replace(v.path, "/performance", "/performance.csv", 1)).wantStatus(200)
	}

	// Another account's campaign and ad group are not found.
	other, err := e.svc.CreateAccount(admin, "Other", "")
	if err != nil {
		t.Fatal(err)
	}
	of := seedPerformanceLite(t, e, other.ID, env)
	for _, path := range []string{"/campaigns/" + of[0] + "/performance", "/campaigns/" + of[0] + "/performance.csv",
		"/ad-groups/" + of[1] + "/performance", "/ad-groups/" + of[1] + "/performance.csv"} {
		c.get(at(acc, env, path)).wantStatus(404)
	}
	c.get(at(acc, adcamp.Production, "/campaigns/"+f.campaigns[0]+"/performance")).wantStatus(404)

	// Ranges the report refuses, said in the page.
	for _, r := range []struct{ query, want string }{
		{"from=" + to + "&to=" + from, "The end date comes before the start date"},
		{"from=" + daysBack(f.today, 400) + "&to=" + to, "Daily figures are kept 400 days: the start date can be " + daysBack(f.today, 399)},
		{"from=2026-13-01&to=" + to, "The start date “2026-13-01” is not a date"},
		{"from=" + from, "Give the end date too."},
		{"from=" + from + "&to=" + daysBack(f.today, -3), "The end date is after today"},
		{"days=many", "“many” is not a number of days"},
		{"days=7&sort=name", "cannot be sorted by “name”"},
	} {
		for _, v := range views {
			p := c.get(v.path + "?" + r.query).wantStatus(400)
			p.wantText("#range-problems", r.want)
			if p.has(".perf-table") {
				t.Errorf("%s?%s shows a table", v.name, r.query)
			}
		}
		p := c.get(at(acc, env, "/performance.csv?"+r.query)).wantStatus(400)
		p.wantText("main", r.want)
	}

	// No delivery yet: production says where figures come from; the
	// sandbox offers its simulator.
	c.get(at(acc, adcamp.Production, "/performance")).wantStatus(200).wantText("#no-delivery", "No delivery yet").
		wantText("#no-delivery", "ad server")
	empty := at(acc, env, "/ad-groups/"+f.groups[2]+"/performance?from="+daysBack(f.today, 60)+"&to="+daysBack(f.today, 40))
	c.get(empty).wantStatus(200).wantText("#no-delivery", "No delivery yet in these days").wantText("#no-delivery", "simulator is off")
	e.svc.SetSimulator(service.SimulatorConfig{Enabled: true})
	p = c.get(empty).wantStatus(200).wantText("#no-delivery", "delivery simulator makes plausible figures")
	if !p.has(`#no-delivery form[action="/accounts/` + acc + `/sandbox/simulate"]`) {
		t.Error("the sandbox's empty page does not offer its simulator to the owner")
	}
	p = viewer.get(empty).wantStatus(200).wantText("#no-delivery", "An owner or developer can run it")
	if p.has("#no-delivery form") {
		t.Error("a viewer is offered the simulator")
	}
}

// seedPerformanceLite gives another account a campaign and an ad group,
// and returns their ids.
func seedPerformanceLite(t *testing.T, e *testEnv, acc string, env adcamp.Environment) []string {
	t.Helper()
	tn := adcamp.Tenant{AccountID: acc, Environment: env}
	camp, err := e.svc.CreateCampaign(admin, tn, adcamp.CampaignInput{Name: adcamp.Some("Theirs"), BudgetDaily: adcamp.Some("10.00"),
		Marketplace: adcamp.Some("US")}, false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.svc.CreateAdGroup(admin, tn, camp.ID, adcamp.AdGroupInput{Name: adcamp.Some("Theirs"), DefaultBid: adcamp.Some("0.50")}, false)
	if err != nil {
		t.Fatal(err)
	}
	return []string{camp.ID, g.ID}
}

// TestPerformancePages: a table of more rows than a page holds goes on
// by its Next link, every row once, in order, the totals of every row on
// each page.
func TestPerformancePages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, acc := e.owner()
	env := adcamp.Production
	tn := adcamp.Tenant{AccountID: acc, Environment: env}
	camp, err := e.svc.CreateCampaign(admin, tn, adcamp.CampaignInput{Name: adcamp.Some("Many"), BudgetDaily: adcamp.Some("100.00"),
		Marketplace: adcamp.Some("US")}, false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.svc.CreateAdGroup(admin, tn, camp.ID, adcamp.AdGroupInput{Name: adcamp.Some("Many"), DefaultBid: adcamp.Some("0.50")}, false)
	if err != nil {
		t.Fatal(err)
	}
	var items []adcamp.KeywordInput
	for i := range 105 {
		items = append(items, adcamp.KeywordInput{Text: adcamp.Some(fmt.Sprintf("keyword %03d", i)), MatchType: adcamp.Some(adcamp.MatchPhrase)})
	}
	res, err := e.svc.CreateKeywords(admin, tn, g.ID, items, service.BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hour := e.clock.Now().Truncate(time.Hour).Format(time.RFC3339)
	var rows []service.DeliveryItem
	for i, r := range res {
		rows = append(rows, service.DeliveryItem{KeywordID: r.Keyword.ID, Hour: hour, Impressions: adcamp.Some(int64(1000 + i)),
			Clicks: adcamp.Some(int64(i + 1)), Orders: adcamp.Some(int64(0)), Cost: adcamp.Some(adcamp.Money(10 * (i + 1)).String()),
			Sales: adcamp.Some("0.00")})
	}
	if _, err := e.svc.IngestDelivery(ctx, env, rows, false); err != nil {
		t.Fatal(err)
	}
	p := c.get(at(acc, env, "/ad-groups/"+g.ID+"/performance?days=7&sort=clicks")).wantStatus(200)
	first := perfTable(p, ".perf-table tbody tr")
	next, _ := p.doc.Find(`a[rel="next"]`).Attr("href")
	if len(first) != 100 || next == "" || p.has(".pager a:not([rel])") {
		t.Fatalf("the first page has %d rows, next %q", len(first), next)
	}
	totals := perfTable(p, ".perf-table tfoot tr")
	p = c.get(next).wantStatus(200)
	second := perfTable(p, ".perf-table tbody tr")
	if len(second) != 5 || p.has(`a[rel="next"]`) || !p.has(".pager a") {
		t.Fatalf("the second page has %d rows (next: %v)", len(second), p.has(`a[rel="next"]`))
	}
	for i, r := range append(first, second...) {
		if want := fmt.Sprintf("keyword %03d", i); !strings.HasPrefix(r.name, want) {
			t.Errorf("row %d is %q, want %s", i, r.name, want)
		}
	}
	if got := perfTable(p, ".perf-table tfoot tr"); !slices.Equal(got[0].cells, totals[0].cells) || totals[0].cells[1] != "5,565" {
		t.Errorf("the totals are %v on the first page and %v on the second, want 5,565 clicks on both", totals[0].cells, got[0].cells)
	}
}
