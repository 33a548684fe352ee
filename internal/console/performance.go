package console

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// Performance: what the delivery cost and brought, from the service's
// reports (docs/reports.md), for the account's environment, a campaign or
// an ad group. A page shows the days of a range (the last 7, 30 or 90 of
// the account's days, or any from–to) as a chart of cost and clicks by
// day, and a table of the level below (campaigns, ad groups, keywords)
// sorted by any metric, with its totals and a CSV download. Everything
// is in the address (days, from, to, sort, cursor), so a link shows the
// same view again, and nothing needs JavaScript.

// perfScope is what a performance page is about, and its level below.
type perfScope struct {
	Kind     string // "account", "campaign", "ad group"
	Campaign *adcamp.Campaign
	Group    *adcamp.AdGroup
	level    string // the report level of the scope itself (the chart's)
	child    string // the report level of the table
	base     string // the page's path under the environment
}

// Child names the table's rows.
func (s perfScope) Child() string {
	switch s.child {
	case service.LevelAdGroup:
		return "ad group"
	case service.LevelKeyword:
		return "keyword"
	}
	return "campaign"
}

// ChildPlural names the table's rows, more than one.
func (s perfScope) ChildPlural() string { return s.Child() + "s" }

// perfRanges are the ranges of the picker, in days back from today.
var perfRanges = []int{7, 30, 90}

// defaultPerfDays is the range of a page that names none.
const defaultPerfDays = 30

// perfTableLimit is how many rows of the table a page shows.
const perfTableLimit = 100

// defaultPerfSort is the table's order when the address names none.
const defaultPerfSort = "-cost"

// perfColumn is a metric column of the table.
type perfColumn struct {
	Key   string // the report's name: "cost", "ctr"
	Label string // the header: "Cost", "CTR"
	Long  string // its name in full, for abbreviations and the sort choice
}

var perfColumns = []perfColumn{
	{"impressions", "Impressions", "Impressions"},
	{"clicks", "Clicks", "Clicks"},
	{"cost", "Cost", "Cost"},
	{"orders", "Orders", "Orders"},
	{"sales", "Sales", "Sales"},
	{"ctr", "CTR", "Click-through rate (clicks ÷ impressions)"},
	{"cpc", "CPC", "Cost per click (cost ÷ clicks)"},
	{"conversion_rate", "Conv. rate", "Conversion rate (orders ÷ clicks)"},
	{"acos", "ACOS", "Advertising cost of sales (cost ÷ sales)"},
	{"roas", "ROAS", "Return on ad spend (sales ÷ cost)"},
}

// perfView is a performance page's content.
type perfView struct {
	Scope perfScope
	// The range: the picker's choice (Days, or 0 for from–to) and the
	// dates it covers, the account's.
	Days      int
	From, To  string
	Today     string
	TimeZone  string
	Ranges    []perfRangeLink
	Sort      string
	Problems  []string // what is wrong with the range asked, instead of figures
	Chart     perfChart
	Headers   []perfHeader
	Sorts     []option
	Rows      []perfRow
	Totals    perfRow
	Empty     bool   // no delivery at all in the range
	Next      string // the next page of the table, if any
	First     string // the first page, when this is a later one
	CSV       string
	Sandbox   bool // the page is the sandbox's: its simulator makes figures
	Simulator bool // the sandbox's simulator is on
	Simulate  bool // and the user may run it
	Path      string
	Keep      []option // the range's parameters, for the sort's form
}

// perfRangeLink is a choice of the picker.
type perfRangeLink struct {
	Label   string
	URL     string
	Current bool
}

// perfHeader is a column's header, a link that sorts by it.
type perfHeader struct {
	perfColumn
	URL  string
	Sort string // "descending", "ascending" for the column sorted by, else ""
}

// perfRow is a row of the table (or its totals), written for people.
type perfRow struct {
	Name, Detail string // the entity's name, and a keyword's match type
	URL          string // its page, "" when deleted
	Status       string // its status: active, paused, ended, deleted
	Deleted      bool
	Cells        []string // the metrics in perfColumns' order
}

// perfQuery is what the address asks: the range and the table's order.
type perfQuery struct {
	days     int // 0 for from–to
	from, to adcamp.Date
	sort     string
	cursor   string
	problems []string
}

// readPerfQuery reads the address: days=7|30|90, or from= and to=; sort
// (a metric, "-" first for descending); cursor. Today is the account's.
func readPerfQuery(q url.Values, today adcamp.Date) perfQuery {
	pq := perfQuery{sort: defaultPerfSort, cursor: q.Get("cursor")}
	if s := q.Get("sort"); s != "" {
		if !validSort(s) {
			pq.problems = append(pq.problems, "The table cannot be sorted by “"+s+"”: choose a column.")
		} else {
			pq.sort = s
		}
	}
	from, to := strings.TrimSpace(q.Get("from")), strings.TrimSpace(q.Get("to"))
	if from == "" && to == "" {
		pq.days = defaultPerfDays
		if d := q.Get("days"); d != "" {
			n, err := strconv.Atoi(d)
			if err != nil || n < 1 || n > service.DayRetentionDays {
				pq.problems = append(pq.problems, fmt.Sprintf("“%s” is not a number of days: choose the last 7, 30 or 90 days, or dates.", d))
				return pq
			}
			pq.days = n
		}
		pq.to = today
		pq.from = adcamp.DateOf(time.Date(today.Year, today.Month, today.Day-(pq.days-1), 0, 0, 0, 0, time.UTC))
		return pq
	}
	for _, f := range []struct {
		name, value string
		to          *adcamp.Date
	}{{"start", from, &pq.from}, {"end", to, &pq.to}} {
		if f.value == "" {
			pq.problems = append(pq.problems, fmt.Sprintf("Give the %s date too.", f.name))
			continue
		}
		d, err := adcamp.ParseDate(f.value)
		if err != nil {
			pq.problems = append(pq.problems, fmt.Sprintf("The %s date “%s” is not a date: write it as YYYY-MM-DD, like %s.", f.name, f.value, today))
			continue
		}
		*f.to = d
	}
	return pq
}

func validSort(s string) bool {
	name := strings.TrimPrefix(s, "-")
	for _, c := range perfColumns {
		if c.Key == name {
			return true
		}
	}
	return false
}

// params are the address's parameters of a view with sort (and no
// cursor): what every link of the page keeps.
func (pq perfQuery) params(sort string) url.Values {
	v := url.Values{}
	if pq.days != 0 {
		if pq.days != defaultPerfDays {
			v.Set("days", strconv.Itoa(pq.days))
		}
	} else {
		v.Set("from", pq.from.String())
		v.Set("to", pq.to.String())
	}
	if sort != defaultPerfSort {
		v.Set("sort", sort)
	}
	return v
}

// perfScopeOf finds what the page of r is about: its campaign or ad
// group (another account's is not found), or the environment.
func (s *Server) perfScopeOf(r *http.Request, c *call) (perfScope, error) {
	if id := r.PathValue("adgroup"); id != "" {
		g, camp, err := s.adGroupAndCampaign(r, c)
		if err != nil {
			return perfScope{}, err
		}
		return groupScope(g, camp), nil
	}
	if id := r.PathValue("campaign"); id != "" {
		camp, err := s.svc.GetCampaign(c.ctx, c.tenant(), id)
		if err != nil {
			return perfScope{}, err
		}
		return campaignScope(camp), nil
	}
	return accountScope(), nil
}

func accountScope() perfScope {
	return perfScope{Kind: "account", level: service.LevelCampaign, child: service.LevelCampaign, base: "/performance"}
}

func campaignScope(camp *adcamp.Campaign) perfScope {
	return perfScope{Kind: "campaign", Campaign: camp, level: service.LevelCampaign, child: service.LevelAdGroup,
		base: campaignPath(camp.ID) + "/performance"}
}

func groupScope(g *adcamp.AdGroup, camp *adcamp.Campaign) perfScope {
	return perfScope{Kind: "ad group", Campaign: camp, Group: g, level: service.LevelAdGroup, child: service.LevelKeyword,
		base: adGroupPath(g.ID) + "/performance"}
}

// summaryDays is the range of the Performance section of the campaign
// list's, a campaign's and an ad group's pages.
const summaryDays = 7

// perfSummary is that section: the totals of the last days, and the way
// to the full view (the chart, the table, the CSV).
type perfSummary struct {
	Days    int
	Figures []fact
	URL     string
	Empty   bool
}

// perfSummaryOf is the Performance section of sc's page.
func (s *Server) perfSummaryOf(c *call, sc perfScope) (*perfSummary, error) {
	today := s.accountToday(c)
	pq := perfQuery{days: summaryDays, to: today, from: adcamp.DateOf(dayTime(today).AddDate(0, 0, -(summaryDays - 1)))}
	m, err := s.svc.PerformanceTotals(c.ctx, c.tenant(), sc.reportQuery(sc.level, service.GranularitySum, pq))
	if err != nil {
		return nil, err
	}
	cells := perfCells(*m)
	sum := &perfSummary{Days: summaryDays, URL: withQuery(c.envPath(sc.base), pq.params(defaultPerfSort)), Empty: *m == (service.ReportMetrics{})}
	for _, i := range []int{2, 1, 0, 3, 4} { // cost, clicks, impressions, orders, sales
		sum.Figures = append(sum.Figures, fact{perfColumns[i].Label, cells[i]})
	}
	return sum, nil
}

// reportQuery is the service's query of the scope at level.
func (sc perfScope) reportQuery(level, granularity string, pq perfQuery) service.ReportQuery {
	q := service.ReportQuery{Level: level, Granularity: granularity, From: pq.from, To: pq.to}
	if sc.Campaign != nil {
		q.CampaignID = sc.Campaign.ID
	}
	if sc.Group != nil {
		q.AdGroupID = sc.Group.ID
	}
	return q
}

// accountToday is the account's today, in its time zone.
func (s *Server) accountToday(c *call) adcamp.Date {
	loc, err := service.LoadZone(c.account.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	y, m, d := s.svc.Now().In(loc).Date()
	return adcamp.Date{Year: y, Month: m, Day: d}
}

func (s *Server) performance(w http.ResponseWriter, r *http.Request, c *call) error {
	sc, err := s.perfScopeOf(r, c)
	if err != nil {
		return err
	}
	today := s.accountToday(c)
	pq := readPerfQuery(r.URL.Query(), today)
	v := &perfView{Scope: sc, Days: pq.days, Sort: pq.sort, Today: today.String(), TimeZone: orText(c.account.TimeZone, "UTC"),
		Sandbox: c.env == adcamp.Sandbox, Path: c.envPath(sc.base)}
	v.Simulator = v.Sandbox && s.svc.SimulatorEnabled()
	v.Simulate = v.Simulator && c.mayChange("performance")
	if !pq.from.IsZero() {
		v.From = pq.from.String()
	}
	if !pq.to.IsZero() {
		v.To = pq.to.String()
	}
	for k, vs := range pq.params(defaultPerfSort) {
		v.Keep = append(v.Keep, option{k, vs[0]})
	}
	slices.SortFunc(v.Keep, func(a, b option) int { return strings.Compare(a.Value, b.Value) })
	for _, n := range perfRanges {
		v.Ranges = append(v.Ranges, perfRangeLink{Label: fmt.Sprintf("Last %d days", n),
			URL: withQuery(v.Path, perfQuery{days: n}.params(pq.sort)), Current: pq.days == n})
	}
	for _, col := range perfColumns {
		v.Sorts = append(v.Sorts, option{"-" + col.Key, col.Label + ", highest first"}, option{col.Key, col.Label + ", lowest first"})
	}
	title := "Performance"
	switch {
	case sc.Group != nil:
		title = "Performance of " + sc.Group.Name
	case sc.Campaign != nil:
		title = "Performance of " + sc.Campaign.Name
	}
	p := c.page(r, title, "performance")
	p.Data = v
	if len(pq.problems) == 0 {
		err = s.perfFigures(c, v, sc, pq)
		var problems []string
		if problems = rangeProblems(err, today); problems == nil && err != nil {
			return err
		}
		pq.problems = problems
	}
	if len(pq.problems) > 0 {
		v.Problems = pq.problems
		return s.render(w, http.StatusBadRequest, "performance.html", p)
	}
	return s.render(w, http.StatusOK, "performance.html", p)
}

// perfFigures reads the chart's days and the table's page into v.
func (s *Server) perfFigures(c *call, v *perfView, sc perfScope, pq perfQuery) error {
	// The table first: it is where a refused range is refused.
	q := sc.reportQuery(sc.child, service.GranularitySum, pq)
	q.Sort, q.Limit, q.Cursor = pq.sort, perfTableLimit, pq.cursor
	page, err := s.svc.PerformanceReport(c.ctx, c.tenant(), q)
	if err != nil {
		return err
	}
	totals := page.Totals
	if totals == nil {
		if totals, err = s.svc.PerformanceTotals(c.ctx, c.tenant(), q); err != nil {
			return err
		}
	}
	days, err := s.perfDays(c, sc, pq)
	if err != nil {
		return err
	}
	v.Chart = newPerfChart(days, pq.from)
	v.Empty = *totals == (service.ReportMetrics{}) && len(page.Rows) == 0
	v.Totals = perfRow{Name: "Total", Cells: perfCells(*totals)}
	for _, row := range page.Rows {
		v.Rows = append(v.Rows, s.perfRowOf(c, sc, row, pq))
	}
	keep := pq.params(pq.sort)
	for _, col := range perfColumns {
		h := perfHeader{perfColumn: col}
		next := "-" + col.Key // a column is first sorted highest first
		switch pq.sort {
		case "-" + col.Key:
			h.Sort, next = "descending", col.Key
		case col.Key:
			h.Sort = "ascending"
		}
		h.URL = withQuery(v.Path, pq.params(next))
		v.Headers = append(v.Headers, h)
	}
	if page.NextCursor != "" {
		nv := pq.params(pq.sort)
		nv.Set("cursor", page.NextCursor)
		v.Next = withQuery(v.Path, nv)
	}
	if pq.cursor != "" {
		v.First = withQuery(v.Path, keep)
	}
	v.CSV = withQuery(c.envPath(sc.base+".csv"), keep)
	return nil
}

// perfDays sums the scope's figures by day, every day of the range
// (days with no delivery too).
func (s *Server) perfDays(c *call, sc perfScope, pq perfQuery) ([]service.ReportMetrics, error) {
	n := pq.to.Compare(pq.from)
	from := dayTime(pq.from)
	count := int(dayTime(pq.to).Sub(from).Hours()/24+0.5) + 1
	if n < 0 || count < 1 {
		return nil, nil
	}
	days := make([]service.ReportMetrics, count)
	err := s.svc.EachPerformanceRow(c.ctx, c.tenant(), sc.reportQuery(sc.level, service.GranularityDay, pq), func(r *service.ReportRow) error {
		i := int(dayTime(r.Date).Sub(from).Hours()/24 + 0.5)
		if i >= 0 && i < count {
			d := &days[i]
			d.Impressions += r.Impressions
			d.Clicks += r.Clicks
			d.Cost += r.Cost
			d.Orders += r.Orders
			d.Sales += r.Sales
		}
		return nil
	})
	return days, err
}

// perfRowOf writes a report row for the table.
func (s *Server) perfRowOf(c *call, sc perfScope, r *service.ReportRow, pq perfQuery) perfRow {
	row := perfRow{Status: r.Status, Deleted: r.Deleted, Cells: perfCells(r.ReportMetrics)}
	keep := pq.params(pq.sort)
	keep.Del("sort") // a page below sorts by what its reader chooses there
	switch sc.child {
	case service.LevelCampaign:
		row.Name, row.URL = r.CampaignName, withQuery(c.envPath(campaignPath(r.CampaignID)+"/performance"), keep)
	case service.LevelAdGroup:
		row.Name, row.URL = r.AdGroupName, withQuery(c.envPath(adGroupPath(r.AdGroupID)+"/performance"), keep)
	default:
		row.Name, row.Detail, row.URL = r.KeywordText, statusName(adcamp.Status(r.MatchType)), c.envPath("/keywords/"+r.KeywordID)
	}
	if r.Deleted {
		row.URL = ""
	}
	return row
}

// perfCells writes the metrics for people, in perfColumns' order: counts
// with their thousands grouped, money in dollars, the rates as percents,
// ROAS as a multiple; each exactly the report's value (a rate's decimal
// point moved, its trailing zeros dropped), "–" where it has none.
func perfCells(m service.ReportMetrics) []string {
	cells := []string{count(m.Impressions), count(m.Clicks), money(m.Cost), count(m.Orders), money(m.Sales)}
	rate := func(v string, ok bool) string {
		if !ok {
			return "–"
		}
		return percent(v)
	}
	cells = append(cells, rate(m.CTR()))
	if v, ok := m.CPC(); ok {
		cells = append(cells, "$"+trimZeros(v, 2))
	} else {
		cells = append(cells, "–")
	}
	cells = append(cells, rate(m.ConversionRate()), rate(m.ACOS()))
	if v, ok := m.ROAS(); ok {
		cells = append(cells, trimZeros(v, 2))
	} else {
		cells = append(cells, "–")
	}
	return cells
}

// count writes n with its thousands grouped: 12,345.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// percent writes a fraction written as a decimal ("0.012300") as a
// percent, exactly: "1.23%".
func percent(v string) string {
	whole, frac, _ := strings.Cut(v, ".")
	frac += "00"
	whole = strings.TrimLeft(whole+frac[:2], "0")
	if whole == "" {
		whole = "0"
	}
	return trimZeros(whole+"."+frac[2:], 2) + "%"
}

// trimZeros drops the trailing zeros of a decimal, keeping at least keep
// digits after its point.
func trimZeros(v string, keep int) string {
	whole, frac, ok := strings.Cut(v, ".")
	if !ok {
		return v + "." + strings.Repeat("0", keep)
	}
	frac = strings.TrimRight(frac, "0")
	if len(frac) < keep {
		frac += strings.Repeat("0", keep-len(frac))
	}
	return whole + "." + frac
}

// rangeProblems words the service's refusal of a range for the page, or
// returns nil for any other error.
func rangeProblems(err error, today adcamp.Date) []string {
	var e *adcamp.Error
	if err == nil || !errors.As(err, &e) || e.Code != adcamp.CodeValidation {
		return nil
	}
	issues, _ := e.Details.([]adcamp.FieldIssue)
	var out []string
	for _, is := range issues {
		switch {
		case is.Field == "to" && is.Kind == adcamp.IssueBeforeStart:
			out = append(out, "The end date comes before the start date ("+is.Param+"): choose an end on or after the start.")
		case is.Field == "from" && is.Kind == adcamp.IssueDateRange:
			first, _, _ := strings.Cut(is.Param, " to ")
			out = append(out, fmt.Sprintf("Daily figures are kept %d days: the start date can be %s at the earliest.", service.DayRetentionDays, first))
		case is.Field == "to" && is.Kind == adcamp.IssueDateRange:
			out = append(out, "The end date is after today ("+today.String()+" in the account's time zone): no figures exist yet.")
		default:
			out = append(out, sentence(shortLabel(is.Field), is.Issue))
		}
	}
	if len(out) == 0 {
		out = append(out, e.Message)
	}
	return out
}

// performanceCSV writes the page's table as CSV (every row, in the page's
// order), in the format of a csv.gz report job: one row an entity, its
// ids, names and status, and the metrics as the API writes them, each
// text cell a spreadsheet would take for a formula defused.
func (s *Server) performanceCSV(w http.ResponseWriter, r *http.Request, c *call) error {
	sc, err := s.perfScopeOf(r, c)
	if err != nil {
		return err
	}
	today := s.accountToday(c)
	pq := readPerfQuery(r.URL.Query(), today)
	if len(pq.problems) > 0 {
		return adcamp.Errorf(adcamp.CodeValidation, "%s", strings.Join(pq.problems, " "))
	}
	q := sc.reportQuery(sc.child, service.GranularitySum, pq)
	q.Sort = pq.sort
	started := false
	start := func() {
		started = true
		name := fmt.Sprintf("adcamp-performance-%s-%s-%s-%s.csv", c.env, strings.ReplaceAll(sc.child, "_", "-"), pq.from, pq.to)
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
		w.Header().Set("Cache-Control", "no-store")
		w.Write([]byte(service.PerformanceCSVHeader(q)))
	}
	var line []byte
	err = s.svc.EachPerformanceRow(c.ctx, c.tenant(), q, func(row *service.ReportRow) error {
		if !started {
			start()
		}
		line = service.AppendPerformanceCSVRow(line[:0], q, row)
		_, err := w.Write(line)
		return err
	})
	if err != nil {
		if started {
			return nil // the status is sent: the file ends here, short
		}
		if problems := rangeProblems(err, today); problems != nil {
			return adcamp.Errorf(adcamp.CodeValidation, "%s", strings.Join(problems, " "))
		}
		return err
	}
	if !started {
		start()
	}
	return nil
}

// perfChart is the chart of cost and clicks by day: two panels over the
// same days, each with its own scale, drawn on the server as SVG.
type perfChart struct {
	Panels      []perfPanel
	First, Last string // the first and last days, for the axis
	Middle      string // the day in the middle, when there are enough days
	Days        []perfDay
}

// perfPanel is one series of the chart.
type perfPanel struct {
	ID, Name, Class string
	Total           string
	Top, Half       string // the scale's top and middle, for its axis
	Width, Height   int
	Mid             int // the middle line's height
	Bars            []bar
	Title, Desc     string // the SVG's accessible name and description
}

// perfDay is a day's figures, for the table under the chart.
type perfDay struct{ Day, Cost, Clicks string }

const (
	perfChartWidth  = 560
	perfChartHeight = 120
	perfChartGap    = 3
)

func newPerfChart(days []service.ReportMetrics, from adcamp.Date) perfChart {
	var ch perfChart
	n := len(days)
	if n == 0 {
		return ch
	}
	names := make([]string, n)
	for i := range days {
		names[i] = dayTime(from).AddDate(0, 0, i).Format("2006-01-02")
	}
	ch.First, ch.Last = names[0], names[n-1]
	if n >= 5 {
		ch.Middle = names[n/2]
	}
	cost := make([]float64, n)
	clicks := make([]float64, n)
	costTitles := make([]string, n)
	clickTitles := make([]string, n)
	var totalCost adcamp.Money
	var totalClicks int64
	var peakCost adcamp.Money
	var peakClicks int64
	for i, d := range days {
		cost[i], clicks[i] = float64(d.Cost), float64(d.Clicks)
		costTitles[i] = names[i] + ": " + money(d.Cost)
		clickTitles[i] = names[i] + ": " + count(d.Clicks) + " clicks"
		totalCost += d.Cost
		totalClicks += d.Clicks
		peakCost = max(peakCost, d.Cost)
		peakClicks = max(peakClicks, d.Clicks)
		ch.Days = append(ch.Days, perfDay{Day: names[i], Cost: money(d.Cost), Clicks: count(d.Clicks)})
	}
	span := ch.First + " to " + ch.Last
	// Cost's scale in cents, rounded up to a round number of dollars.
	costTop := niceCeil(float64(peakCost))
	if costTop < 100 {
		costTop = 100
	}
	clickTop := niceCeil(float64(peakClicks))
	if clickTop < 2 {
		clickTop = 2
	}
	ch.Panels = []perfPanel{{
		ID: "cost", Name: "Cost", Class: "cost", Total: money(totalCost),
		Top: "$" + count(int64(costTop/100)), Half: "$" + halfText(costTop/100),
		Width: perfChartWidth, Height: perfChartHeight, Mid: perfChartHeight / 2,
		Bars:  layBars(cost, costTop, costTitles, perfChartWidth, perfChartHeight, perfChartGap),
		Title: "Cost by day, " + span,
		Desc:  fmt.Sprintf("%s in all; at most %s in a day. The figures of each day are in the table “The figures by day”.", money(totalCost), money(peakCost)),
	}, {
		ID: "clicks", Name: "Clicks", Class: "clicks", Total: count(totalClicks),
		Top: count(int64(clickTop)), Half: halfText(clickTop),
		Width: perfChartWidth, Height: perfChartHeight, Mid: perfChartHeight / 2,
		Bars:  layBars(clicks, clickTop, clickTitles, perfChartWidth, perfChartHeight, perfChartGap),
		Title: "Clicks by day, " + span,
		Desc:  fmt.Sprintf("%s clicks in all; at most %s in a day. The figures of each day are in the table “The figures by day”.", count(totalClicks), count(peakClicks)),
	}}
	return ch
}

// niceCeil rounds v up to 1, 2, 2.5 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// halfText writes half of a scale's top: a whole number when it is one.
func halfText(top float64) string {
	h := top / 2
	if h == math.Trunc(h) {
		return count(int64(h))
	}
	return strconv.FormatFloat(h, 'f', -1, 64)
}

// dayTime is the start of day d, in UTC, for counting days.
func dayTime(d adcamp.Date) time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }
