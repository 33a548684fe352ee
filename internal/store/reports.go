package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
)

// ReportTx is the report store (docs/reports.md): the daily figures
// rolled up from the hourly ones, read back aggregated per campaign, ad
// group or keyword, and purged past their retention. It is an interface
// of its own so that another engine could take the figures over
// (docs/scaling.md). PutDelivery (OperatorTx) writes the hours and
// journals the changes of their days, in one transaction; FoldDays adds
// the journal to the days (dayjournal.go).
type ReportTx interface {
	// ReportRows calls fn with each row of q, in q's order (fn's row is
	// reused). A row's names are the live entity's, or the last ones of
	// a deleted entity (Deleted).
	ReportRows(ctx context.Context, q ReportQuery, fn func(*ReportRow) error) error
	// ReportTotals returns the sums of every row of q (Offset and Limit
	// ignored).
	ReportTotals(ctx context.Context, q ReportQuery) (Metrics, error)
	// ReportEntity reports whether id is a campaign (level 1), ad group
	// (2) or keyword (3) of t, live or deleted.
	ReportEntity(ctx context.Context, t adcamp.Tenant, level ReportLevel, id string) (bool, error)
	// FoldDays adds at most limit entries of the days' journal (0: all
	// of them) to delivery_days and removes them, and returns how many
	// it folded. On PostgreSQL it waits for a fold running in another
	// transaction, so that a fold that returns has added every entry
	// committed before it began.
	FoldDays(ctx context.Context, limit int) (int, error)
	// DaysPending reports whether the days' journal holds entries.
	DaysPending(ctx context.Context) (bool, error)
	// DaysJournaled counts the entries of the days' journal (a metric:
	// a count that keeps growing is a fold that fails).
	DaysJournaled(ctx context.Context) (int64, error)
	// UndatedHours returns at most limit hourly rows stored before the
	// days were kept (no day): the roll-up then puts them again with
	// their day, through PutDelivery.
	UndatedHours(ctx context.Context, limit int) ([]DeliveryRow, error)
	// PurgeReports deletes at most limit hourly rows of t before hours
	// (with the campaigns' spend in those hours) and at most limit
	// daily rows of t before day (YYYYMMDD), each through t's index,
	// and returns how many it deleted.
	PurgeReports(ctx context.Context, t adcamp.Tenant, hours time.Time, day int32, limit int) (int64, error)
	// PurgeReportNames deletes at most limit names of entities deleted
	// before before.
	PurgeReportNames(ctx context.Context, before time.Time, limit int) (int64, error)
	// DeleteCampaignReports removes a campaign's daily figures (with
	// its ad groups' and keywords') and the names of its deleted
	// entities: the sandbox's reset. It folds the days' journal first,
	// so that no entry adds the campaign's days back.
	DeleteCampaignReports(ctx context.Context, t adcamp.Tenant, campaignID string) error
}

// ReportLevel is what a report row sums: a campaign, an ad group or a
// keyword. Its values are delivery_days.level.
type ReportLevel int8

// The report levels.
const (
	LevelCampaign ReportLevel = 1
	LevelAdGroup  ReportLevel = 2
	LevelKeyword  ReportLevel = 3
)

// Granularity is how a report cuts time.
type Granularity int8

// The granularities.
const (
	Summary Granularity = iota
	Daily
	Hourly
)

// ReportQuery selects and orders the rows of a report.
type ReportQuery struct {
	Tenant      adcamp.Tenant
	Level       ReportLevel
	Granularity Granularity
	// FromDay and ToDay bound the days (YYYYMMDD, both included) of a
	// summary or daily report; FromHour and ToHour ([from, to)) the
	// hours of an hourly one.
	FromDay, ToDay   int32
	FromHour, ToHour time.Time
	// CampaignID and AdGroupID, if set, keep the rows under them.
	CampaignID, AdGroupID string
	// Status, if set, keeps the rows whose entity has that stored status,
	// or, "deleted", those whose entity is gone.
	Status string
	// Sort is a metric (a column of Metrics or a ratio of ReportSorts),
	// Desc its direction; without it rows go by day or hour, then id.
	Sort string
	Desc bool
	// Offset and Limit page the rows; Limit 0 means all of them.
	Offset, Limit int
	// After, if set, keeps the rows after it in the natural order of a
	// daily or hourly report without Sort: keyset paging, for a report
	// read in chunks of short transactions (a report job's).
	After *ReportKey
	// Names, if set, is where the store keeps the names of the entities
	// it named for a daily or hourly report, and looks them up again:
	// the rows come without a join to their names, each entity named
	// once, also across the transactions of a report read in chunks.
	Names *ReportNames
}

// ReportKey is a row's place in a daily or hourly report's natural
// order: its day (YYYYMMDD) or hour (Unix microseconds), then its
// entity's id.
type ReportKey struct {
	T      int64
	Entity string
}

// Key returns r's place in its report's natural order (a daily or
// hourly report's).
func (r *ReportRow) Key() ReportKey {
	k := ReportKey{T: int64(r.Day), Entity: r.KeywordID}
	if !r.Hour.IsZero() {
		k.T = r.Hour.UnixMicro()
	}
	if k.Entity == "" {
		k.Entity = r.AdGroupID
	}
	if k.Entity == "" {
		k.Entity = r.CampaignID
	}
	return k
}

// ReportName is what a report shows of an entity besides its figures.
type ReportName struct {
	Name, MatchType string
	Status          string // "" when deleted
	Deleted         bool
}

// ReportNames keeps entities' names by level (ReportQuery.Names). Its
// size grows with the entities named, not the rows.
type ReportNames struct {
	m [3]map[string]ReportName
	// last is each level's last name found: rows in their order come
	// campaign after campaign, ad group after ad group.
	last [3]struct {
		id string
		v  ReportName
	}
}

// Get returns the name of id at level, if kept.
func (n *ReportNames) Get(level ReportLevel, id string) (ReportName, bool) {
	l := &n.last[level-1]
	if l.id == id && id != "" {
		return l.v, true
	}
	v, ok := n.m[level-1][id]
	if ok {
		l.id, l.v = id, v
	}
	return v, ok
}

// Put keeps the name of id at level.
func (n *ReportNames) Put(level ReportLevel, id string, v ReportName) {
	if n.m[level-1] == nil {
		n.m[level-1] = map[string]ReportName{}
	}
	n.m[level-1][id] = v
	if l := &n.last[level-1]; l.id == id {
		l.v = v
	}
}

// Metrics are the summed figures of a report row.
type Metrics struct {
	Impressions, Clicks, Orders int64
	Cost, Sales                 adcamp.Money
}

// minus returns m less m2.
func (m Metrics) minus(m2 Metrics) Metrics {
	return Metrics{m.Impressions - m2.Impressions, m.Clicks - m2.Clicks, m.Orders - m2.Orders, m.Cost - m2.Cost, m.Sales - m2.Sales}
}

// Add adds m2 to m.
func (m *Metrics) Add(m2 Metrics) {
	m.Impressions += m2.Impressions
	m.Clicks += m2.Clicks
	m.Orders += m2.Orders
	m.Cost += m2.Cost
	m.Sales += m2.Sales
}

// ReportRow is one row of a report: an entity (with those above it) and,
// in a daily or hourly report, its day or hour.
type ReportRow struct {
	CampaignID, AdGroupID, KeywordID   string
	CampaignName, AdGroupName, Keyword string
	MatchType                          string
	Status                             string // the entity's stored status; "" when deleted
	Deleted                            bool
	Day                                int32     // YYYYMMDD, daily reports
	Hour                               time.Time // hourly reports
	Metrics
}

// ReportSorts maps each sortable metric to its SQL expression over the
// aggregated columns: the ratios as floating point (for ordering only;
// their values are computed exactly by the service), with rows whose
// denominator is zero last in both directions.
var ReportSorts = map[string]struct{ nullIf, expr string }{
	"impressions":     {"", "impressions"},
	"clicks":          {"", "clicks"},
	"cost":            {"", "cost"},
	"orders":          {"", "orders"},
	"sales":           {"", "sales"},
	"ctr":             {"impressions", "CAST(clicks AS DOUBLE PRECISION) / NULLIF(impressions, 0)"},
	"cpc":             {"clicks", "CAST(cost AS DOUBLE PRECISION) / NULLIF(clicks, 0)"},
	"conversion_rate": {"clicks", "CAST(orders AS DOUBLE PRECISION) / NULLIF(clicks, 0)"},
	"acos":            {"sales", "CAST(cost AS DOUBLE PRECISION) / NULLIF(sales, 0)"},
	"roas":            {"cost", "CAST(sales AS DOUBLE PRECISION) / NULLIF(cost, 0)"},
}

// DayNumber writes a date as the integer YYYYMMDD of delivery_days.day.
func DayNumber(d adcamp.Date) int32 {
	return int32(d.Year*10000 + int(d.Month)*100 + d.Day)
}

// DateOfDay reads delivery_days.day back.
func DateOfDay(n int32) adcamp.Date {
	return adcamp.Date{Year: int(n / 10000), Month: time.Month(n / 100 % 100), Day: int(n % 100)}
}

// HourFigures is an hourly row as stored, with the day it was rolled up
// into (0: none yet).
type HourFigures struct {
	KeywordID string
	Hour      int64 // Unix microseconds
	Day       int32
	DeliveryKeyword
	Metrics
}

// DayDelta is what to add to one row of delivery_days.
type DayDelta struct {
	AccountID   string
	Environment adcamp.Environment
	Level       ReportLevel
	Day         int32
	EntityID    string
	CampaignID  string
	AdGroupID   string // "" at the campaign level
	Metrics
}

// dayDeltas returns what rows change in delivery_days when they replace
// old (the stored rows of the same keys, if any): each row's figures are
// added to its day (days[i] for rows[i]: the row's, or else the stored
// one; 0 for none, left out: the background roll-up dates it), and each
// old row's are taken off the day it was added to; oldOf[i] is the index
// in old of the stored row of rows[i], -1 for none. The sums are exact
// (integers), so that the days always equal the sum of their hours as
// they were dated. A row whose day stays adds the difference alone.
func dayDeltas(old []HourFigures, rows []DeliveryRow, days []int32, oldOf []int32) []DayDelta {
	// A row per keyword and day, and few of campaigns and ad groups.
	acc := dayAcc{idx: make(map[dayEntry]int, len(rows)+len(rows)/8), out: make([]DayDelta, 0, len(rows)+len(rows)/8), last: [3]int{-1, -1, -1}}
	taken := make([]bool, len(old))
	for j := range rows {
		r := &rows[j]
		m := Metrics{r.Impressions, r.Clicks, r.Orders, r.Cost, r.Sales}
		if i := oldOf[j]; i >= 0 {
			o := &old[i]
			taken[i] = true
			if o.Day != 0 && o.Day == days[j] {
				if m != o.Metrics {
					acc.add(&r.DeliveryKeyword, r.KeywordID, days[j], m.minus(o.Metrics))
				}
				continue
			}
			if o.Day != 0 {
				acc.add(&o.DeliveryKeyword, o.KeywordID, o.Day, Metrics{}.minus(o.Metrics))
			}
		}
		if days[j] != 0 {
			acc.add(&r.DeliveryKeyword, r.KeywordID, days[j], m)
		}
	}
	for i := range old {
		if o := &old[i]; !taken[i] && o.Day != 0 {
			acc.add(&o.DeliveryKeyword, o.KeywordID, o.Day, Metrics{}.minus(o.Metrics))
		}
	}
	// Drop what nets to nothing (a row sent again unchanged).
	kept := acc.out[:0]
	for _, d := range acc.out {
		if d.Metrics != (Metrics{}) {
			kept = append(kept, d)
		}
	}
	return kept
}

// dayAcc sums day deltas by level, day and entity.
type dayAcc struct {
	idx  map[dayEntry]int // index in out
	out  []DayDelta
	last [3]int // of each level, the index in out of the last added to, -1 for none
}

type dayEntry struct {
	level  ReportLevel
	day    int32
	entity string
}

// add adds m to the day of the keyword, its ad group and its campaign.
func (a *dayAcc) add(k *DeliveryKeyword, keyword string, day int32, m Metrics) {
	for l := LevelCampaign; l <= LevelKeyword; l++ {
		entity, group := k.CampaignID, ""
		switch l {
		case LevelAdGroup:
			entity, group = k.AdGroupID, k.AdGroupID
		case LevelKeyword:
			entity, group = keyword, k.AdGroupID
		}
		// Consecutive rows most often share their campaign and ad group
		// (and day): that row of the level is found without the map.
		i := a.last[l-1]
		if i < 0 || a.out[i].Day != day || a.out[i].EntityID != entity {
			kk := dayEntry{l, day, entity}
			var ok bool
			if i, ok = a.idx[kk]; !ok {
				i = len(a.out)
				a.idx[kk] = i
				a.out = append(a.out, DayDelta{AccountID: k.AccountID, Environment: k.Environment, Level: l, Day: day,
					EntityID: entity, CampaignID: k.CampaignID, AdGroupID: group})
			}
			a.last[l-1] = i
		}
		a.out[i].Metrics.Add(m)
	}
}

// ReportSQL returns the statement (and its arguments, $1...) that reads
// the rows of q, the same text on both stores (both speak this SQL) but
// for one hint: with sqlite, a summary in its natural order names the
// index it reads (INDEXED BY delivery_days_entity), which SQLite's
// planner, without statistics of the table, would not choose over the
// primary key's range of days.
//
// The page is chosen first, from the figures alone, and only its rows
// are joined to their names. Its query reads as few rows as it can
// (reportRows): a daily report, and an hourly one of keywords, read
// their rows as stored (one per entity and day or hour), in the order of
// the table's key, so that a page stops reading at its last row and a
// report job streams without a sort; a summary groups by the entity
// alone, in the order of delivery_days_entity (migration 00042), so
// that its first pages sum only their own entities' days. Sorting by a
// metric sums every entity of the range before it sorts.
func ReportSQL(q ReportQuery, sqlite bool) (string, []any, error) {
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	page, err := reportPage(q, arg, sqlite)
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	b.WriteString(`SELECT a.entity_id, a.campaign_id, a.ad_group_id, a.t, a.impressions, a.clicks, a.cost, a.orders, a.sales,
		COALESCE(c.name, rc.name, ''), `)
	switch q.Level {
	case LevelCampaign:
		b.WriteString(`'', '', '', c.status, c.id IS NULL`)
	case LevelAdGroup:
		b.WriteString(`COALESCE(g.name, rg.name, ''), '', '', g.status, g.id IS NULL`)
	default:
		b.WriteString(`COALESCE(g.name, rg.name, ''), COALESCE(k.text, rk.name, ''), COALESCE(k.match_type, rk.match_type, ''), k.status, k.id IS NULL`)
	}
	b.WriteString(` FROM (` + page + `) a
		LEFT JOIN campaigns c ON c.id = a.campaign_id
		LEFT JOIN report_names rc ON c.id IS NULL AND rc.entity_id = a.campaign_id`)
	if q.Level >= LevelAdGroup {
		b.WriteString(`
		LEFT JOIN ad_groups g ON g.id = a.ad_group_id
		LEFT JOIN report_names rg ON g.id IS NULL AND rg.entity_id = a.ad_group_id`)
	}
	if q.Level == LevelKeyword {
		b.WriteString(`
		LEFT JOIN keywords k ON k.id = a.entity_id
		LEFT JOIN report_names rk ON k.id IS NULL AND rk.entity_id = a.entity_id`)
	}
	outer, _ := reportOrder(q, "a.")
	b.WriteString(` ORDER BY ` + outer)
	return b.String(), args, nil
}

// ReportFiguresSQL returns ReportSQL's statement without the names: its
// first nine columns (entity_id, campaign_id, ad_group_id, t and the
// figures), in its order. A store that streams many rows per entity (a
// report job by day or hour) looks each entity's names up once
// (ReportNameSQL) rather than joining them to every row.
func ReportFiguresSQL(q ReportQuery, sqlite bool) (string, []any, error) {
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	page, err := reportPage(q, arg, sqlite)
	return page, args, err
}

// ReportNameSQL returns the statement that names one entity of a level
// ($1 its id) as ReportSQL's joins do: the live entity's name, match
// type (keywords) and status, and whether it is gone, with the last
// names of a deleted one from report_names.
func ReportNameSQL(level ReportLevel) string {
	switch level {
	case LevelCampaign:
		return `SELECT COALESCE(c.name, rc.name, ''), '', c.status, c.id IS NULL FROM (SELECT 1) o
			LEFT JOIN campaigns c ON c.id = $1 LEFT JOIN report_names rc ON c.id IS NULL AND rc.entity_id = $1`
	case LevelAdGroup:
		return `SELECT COALESCE(g.name, rg.name, ''), '', g.status, g.id IS NULL FROM (SELECT 1) o
			LEFT JOIN ad_groups g ON g.id = $1 LEFT JOIN report_names rg ON g.id IS NULL AND rg.entity_id = $1`
	}
	return `SELECT COALESCE(k.text, rk.name, ''), COALESCE(k.match_type, rk.match_type, ''), k.status, k.id IS NULL FROM (SELECT 1) o
		LEFT JOIN keywords k ON k.id = $1 LEFT JOIN report_names rk ON k.id IS NULL AND rk.entity_id = $1`
}

// reportPage returns the query of q's rows in their order, with its
// page (Limit, Offset).
func reportPage(q ReportQuery, arg func(any) string, sqlite bool) (string, error) {
	// Under a campaign or an ad group, the range's rows of the level
	// (the primary key's) hold theirs; the index by entity would read
	// every entity of the account to find them.
	r, err := reportRows(q, arg, sqlite && q.Sort == "" && q.CampaignID == "" && q.AdGroupID == "")
	if err != nil {
		return "", err
	}
	var page string
	if q.Sort == "" {
		page = r.query + ` ORDER BY ` + r.order
	} else {
		order, err := reportOrder(q, "")
		if err != nil {
			return "", err
		}
		page = `SELECT * FROM (` + r.query + `) s ORDER BY ` + order
	}
	if q.Limit > 0 {
		page += ` LIMIT ` + arg(q.Limit) + ` OFFSET ` + arg(q.Offset)
	}
	return page, nil
}

// ReportTotalsSQL returns the statement that sums the rows of q. Without
// a status filter it sums the coarsest level that holds the same figures
// (a campaign's days hold the sum of its keywords', exactly).
func ReportTotalsSQL(q ReportQuery) (string, []any, error) {
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	sums := `COALESCE(SUM(impressions), 0), COALESCE(SUM(clicks), 0), COALESCE(SUM(cost), 0), COALESCE(SUM(orders), 0), COALESCE(SUM(sales), 0)`
	if q.Status == "" && q.Granularity != Hourly {
		where := `account_id = ` + arg(q.Tenant.AccountID) + ` AND environment = ` + arg(string(q.Tenant.Environment)) +
			` AND day >= ` + arg(q.FromDay) + ` AND day <= ` + arg(q.ToDay)
		switch {
		case q.AdGroupID != "":
			where += ` AND level = 2 AND entity_id = ` + arg(q.AdGroupID)
			if q.CampaignID != "" {
				where += ` AND campaign_id = ` + arg(q.CampaignID)
			}
		case q.CampaignID != "":
			where += ` AND level = 1 AND entity_id = ` + arg(q.CampaignID)
		default:
			where += ` AND level = 1`
		}
		return `SELECT ` + sums + ` FROM delivery_days WHERE ` + where, args, nil
	}
	r, err := reportRows(q, arg, false)
	if err != nil {
		return "", nil, err
	}
	return `SELECT ` + sums + ` FROM (` + r.query + `) s`, args, nil
}

// reportQuery is the query of a report's rows (entity_id, campaign_id,
// ad_group_id, t: the day or hour or 0, and the figures), without its
// order, and the columns of its natural order (t, then the entity).
type reportQuery struct {
	query, order string
}

// reportRows returns the query of q's rows. Rows whose figures are all
// zero are left out: a day an hour moved away from (a change of zone, a
// correction) keeps a row of zeros.
//
// An entity's campaign and ad group never change (ids are not reused,
// and nothing moves to another parent), so a row groups by the entity
// (and its day or hour) alone and takes its parents' ids as MIN().
//
// indexed names the index by entity in a summary (SQLite's hint).
func reportRows(q ReportQuery, arg func(any) string, indexed bool) (reportQuery, error) {
	if q.Level < LevelCampaign || q.Level > LevelKeyword {
		return reportQuery{}, fmt.Errorf("report level %d", q.Level)
	}
	// entity, campaign and group are the columns of the table read;
	// t the time column ("" in a summary); grouped says whether rows
	// are summed (several stored rows make one).
	var table, entity, campaign, group, t string
	where := `account_id = ` + arg(q.Tenant.AccountID) + ` AND environment = ` + arg(string(q.Tenant.Environment))
	campaign = "campaign_id"
	if q.Granularity == Hourly {
		table, t = "delivery_hours", "hour"
		if q.After == nil {
			where += ` AND hour >= ` + arg(q.FromHour.UnixMicro())
		}
		where += ` AND hour < ` + arg(q.ToHour.UnixMicro())
		switch q.Level {
		case LevelCampaign:
			entity, group = "campaign_id", "''"
		case LevelAdGroup:
			entity, group = "ad_group_id", "ad_group_id"
		default:
			entity, group = "keyword_id", "ad_group_id"
		}
	} else {
		table, entity, group = "delivery_days", "entity_id", "ad_group_id"
		where += ` AND level = ` + arg(int(q.Level))
		if q.After == nil {
			where += ` AND day >= ` + arg(q.FromDay)
		}
		where += ` AND day <= ` + arg(q.ToDay)
		if q.Granularity == Daily {
			t = "day"
		}
	}
	if q.CampaignID != "" {
		where += ` AND campaign_id = ` + arg(q.CampaignID)
	}
	if q.AdGroupID != "" {
		where += ` AND ad_group_id = ` + arg(q.AdGroupID)
	}
	if q.After != nil {
		// A row value, which both stores read as the start of a range
		// of their keys (TestReportPlans), in place of the range's first
		// day or hour (After is in the range): beside another lower bound
		// of the same column, SQLite starts from that one and reads
		// every row before After again.
		if t == "" || q.Sort != "" {
			return reportQuery{}, fmt.Errorf("report: keyset paging of a summary or a sorted report")
		}
		where += ` AND (` + t + `, ` + entity + `) > (` + arg(q.After.T) + `, ` + arg(q.After.Entity) + `)`
	}
	// One stored row per entity and day (delivery_days' key) or keyword
	// and hour (delivery_hours'): those reports read the rows as they
	// are.
	grouped := t == "" || (q.Granularity == Hourly && q.Level != LevelKeyword)
	key := entity
	tcol := "0"
	if t != "" {
		key, tcol = t+`, `+entity, t
	}
	var status string
	if q.Status != "" {
		entities := map[ReportLevel]string{LevelCampaign: "campaigns", LevelAdGroup: "ad_groups", LevelKeyword: "keywords"}[q.Level]
		if q.Status == "deleted" {
			status = `NOT EXISTS (SELECT 1 FROM ` + entities + ` x WHERE x.id = ` + table + `.` + entity + `)`
		} else {
			status = `EXISTS (SELECT 1 FROM ` + entities + ` x WHERE x.id = ` + table + `.` + entity + ` AND x.status = ` + arg(q.Status) + `)`
		}
	}
	var b strings.Builder
	b.WriteString(`SELECT ` + entity + ` AS entity_id, `)
	if !grouped {
		b.WriteString(campaign + ` AS campaign_id, ` + group + ` AS ad_group_id, ` + tcol + ` AS t,
		impressions, clicks, cost, orders, sales FROM ` + table + ` WHERE ` + where + `
		AND (impressions <> 0 OR clicks <> 0 OR cost <> 0 OR orders <> 0 OR sales <> 0)`)
		if status != "" {
			b.WriteString(` AND ` + status)
		}
		return reportQuery{b.String(), key}, nil
	}
	if entity != campaign {
		campaign = `MIN(` + campaign + `)`
	}
	if group != "''" && group != entity {
		group = `MIN(` + group + `)`
	}
	from := table
	if indexed && t == "" {
		from += ` INDEXED BY delivery_days_entity`
	}
	b.WriteString(campaign + ` AS campaign_id, ` + group + ` AS ad_group_id, ` + tcol + ` AS t,
		SUM(impressions) AS impressions, SUM(clicks) AS clicks, SUM(cost) AS cost, SUM(orders) AS orders, SUM(sales) AS sales
		FROM ` + from + ` WHERE ` + where + ` GROUP BY ` + key + `
		HAVING (SUM(impressions) <> 0 OR SUM(clicks) <> 0 OR SUM(cost) <> 0 OR SUM(orders) <> 0 OR SUM(sales) <> 0)`)
	if status != "" {
		b.WriteString(` AND ` + status)
	}
	return reportQuery{b.String(), key}, nil
}

// reportOrder returns q's ORDER BY over columns prefixed by p.
func reportOrder(q ReportQuery, p string) (string, error) {
	tail := p + `t, ` + p + `entity_id`
	if q.Sort == "" {
		return tail, nil
	}
	s, ok := ReportSorts[q.Sort]
	if !ok {
		return "", fmt.Errorf("report sort %q", q.Sort)
	}
	dir := " ASC"
	if q.Desc {
		dir = " DESC"
	}
	expr := s.expr
	for _, col := range [...]string{"impressions", "clicks", "cost", "orders", "sales"} {
		expr = strings.ReplaceAll(expr, col, p+col)
	}
	if s.nullIf != "" {
		return `(` + p + s.nullIf + ` = 0), ` + expr + dir + `, ` + tail, nil
	}
	return expr + dir + `, ` + tail, nil
}
