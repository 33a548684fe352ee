package service

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math"
	"math/big"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/lowpriority"
	"github.com/adcamp/adcamp/internal/store"
)

// Performance reports (docs/reports.md): the delivery figures summed per
// campaign, ad group or keyword, over the account's days, from the
// hourly rows (kept HourRetention) or the daily roll-up (kept
// DayRetention).

const (
	// HourRetention is how long hourly figures are kept.
	HourRetention = 31 * 24 * time.Hour
	// DayRetentionDays is how many days daily figures are kept.
	DayRetentionDays = 400
	// HourlyReportDays is how many of the account's days (today
	// included) an hourly report may cover back from today.
	HourlyReportDays = 31
	// DefaultReportLimit and MaxReportLimit bound a page of a report.
	DefaultReportLimit = 100
	MaxReportLimit     = 1000
	// reportNameRetention is how long the names of deleted entities are
	// kept: as long as the days that may name them.
	reportNameRetention = (DayRetentionDays + 1) * 24 * time.Hour
	// reportPurgeEvery spaces the purges of figures past retention;
	// the first comes reportFirstPurge after Run begins, behind the
	// start's more urgent work (and its fold of the journal of days, a
	// purge's first step, behind FoldAtStart's).
	reportPurgeEvery = time.Hour
	reportFirstPurge = time.Minute
)

// The digits of the ratios: ctr, conversion_rate, acos and roas are
// fractions (0.012345, not percent) with RatioDigits decimals; cpc is an
// amount in dollars with CPCDigits decimals. Both are rounded half up
// from the exact quotient of the integer sums.
const (
	RatioDigits = 6
	CPCDigits   = 4
)

// The levels and granularities of ReportQuery.
const (
	LevelCampaign    = "campaign"
	LevelAdGroup     = "ad_group"
	LevelKeyword     = "keyword"
	GranularitySum   = "summary"
	GranularityDay   = "day"
	GranularityHour  = "hour"
	reportStatusGone = "deleted"
)

// ReportQuery is a report's parameters as the API takes them. Dates are
// the account's days (both included). Sort is a metric, descending
// with a leading '-' ("-cost"); Cursor is a previous page's NextCursor.
// Empty, Level is campaign, Granularity summary, To the account's today
// and From 6 days before To.
type ReportQuery struct {
	Level, Granularity                  string
	From, To                            adcamp.Date
	CampaignID, AdGroupID, Status, Sort string
	Limit                               int
	Cursor                              string
}

// ReportMetrics are a row's figures. The ratios are methods: exact
// quotients of these integers.
type ReportMetrics struct {
	Impressions int64
	Clicks      int64
	Cost        adcamp.Money
	Orders      int64
	Sales       adcamp.Money
}

// ReportRow is one row of a report: an entity (with those above it),
// and in a daily or hourly report its date (the account's) or hour.
type ReportRow struct {
	Date         adcamp.Date // zero in a summary
	Hour         time.Time   // hourly reports: the hour's start, in the account's zone
	CampaignID   string
	CampaignName string
	AdGroupID    string // "" at the campaign level
	AdGroupName  string
	KeywordID    string // "" above the keyword level
	KeywordText  string
	MatchType    adcamp.MatchType
	Status       string // the entity's status; "deleted" when it is gone
	Deleted      bool
	ReportMetrics
}

// ReportPage is one page of a report. Totals (of every row of the
// query, not just this page's) come with the first page only.
type ReportPage struct {
	Rows       []*ReportRow
	Totals     *ReportMetrics
	NextCursor string
	// The query as run: the level, granularity, the account's zone and
	// the range (defaults filled in).
	Level, Granularity string
	TimeZone           string
	From, To           adcamp.Date
}

// CTR is clicks / impressions; ok false when impressions is 0.
func (m ReportMetrics) CTR() (string, bool) { return ratio(m.Clicks, m.Impressions, RatioDigits) }

// CPC is cost / clicks in dollars; ok false when clicks is 0.
func (m ReportMetrics) CPC() (string, bool) {
	return ratio(int64(m.Cost), m.Clicks*100, CPCDigits)
}

// ConversionRate is orders / clicks; ok false when clicks is 0.
func (m ReportMetrics) ConversionRate() (string, bool) {
	return ratio(m.Orders, m.Clicks, RatioDigits)
}

// ACOS is cost / sales; ok false when sales is 0.
func (m ReportMetrics) ACOS() (string, bool) {
	return ratio(int64(m.Cost), int64(m.Sales), RatioDigits)
}

// ROAS is sales / cost; ok false when cost is 0.
func (m ReportMetrics) ROAS() (string, bool) {
	return ratio(int64(m.Sales), int64(m.Cost), RatioDigits)
}

// ratioStyle is how appendRatios writes the ratios: each after its
// prefix, quoted or not, and null where the denominator is 0.
type ratioStyle struct {
	prefix [5]string
	quote  string
	null   string
}

// appendRatios appends the five ratios of m (ctr, cpc, conversion_rate,
// acos, roas) in style st. It allocates nothing (a report job writes five
// ratios for each of millions of rows).
func (m ReportMetrics) appendRatios(b []byte, st *ratioStyle) []byte {
	for i, r := range [...]struct {
		num, den int64
		digits   int
	}{
		{m.Clicks, m.Impressions, RatioDigits},
		{int64(m.Cost), m.Clicks * 100, CPCDigits},
		{m.Orders, m.Clicks, RatioDigits},
		{int64(m.Cost), int64(m.Sales), RatioDigits},
		{int64(m.Sales), int64(m.Cost), RatioDigits},
	} {
		b = append(b, st.prefix[i]...)
		if r.den <= 0 || r.num < 0 {
			b = append(b, st.null...)
			continue
		}
		b = append(b, st.quote...)
		b, _ = appendRatio(b, r.num, r.den, r.digits)
		b = append(b, st.quote...)
	}
	return b
}

// ratio writes num/den with digits decimals, rounded half up, exactly
// (both non-negative); ok false when den is 0.
func ratio(num, den int64, digits int) (string, bool) {
	var tmp [32]byte
	b, ok := appendRatio(tmp[:0], num, den, digits)
	return string(b), ok
}

// pow10 are the scales of the ratios' digits.
var pow10 = [...]int64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000}

// appendRatio appends ratio's text of num/den to b; ok false (b as
// given) when den is 0.
func appendRatio(b []byte, num, den int64, digits int) ([]byte, bool) {
	if den <= 0 || num < 0 {
		return b, false
	}
	scale := pow10[digits]
	var tmp [40]byte
	var q []byte
	if num <= (math.MaxInt64-den)/(2*scale) {
		q = strconv.AppendInt(tmp[:0], (2*num*scale+den)/(2*den), 10)
	} else {
		n := new(big.Int).Mul(big.NewInt(num), big.NewInt(2*scale))
		n.Add(n, big.NewInt(den))
		n.Quo(n, new(big.Int).Mul(big.NewInt(den), big.NewInt(2)))
		q = n.Append(tmp[:0], 10)
	}
	// A decimal point digits from the right, zeros before as needed.
	if len(q) <= digits {
		b = append(b, '0', '.')
		for range digits - len(q) {
			b = append(b, '0')
		}
		return append(b, q...), true
	}
	b = append(b, q[:len(q)-digits]...)
	b = append(b, '.')
	return append(b, q[len(q)-digits:]...), true
}

// reportPlan is a checked ReportQuery: the store's query and the zone.
type reportPlan struct {
	q        store.ReportQuery
	zone     *time.Location
	zoneName string
	from, to adcamp.Date

	level, granularity string
	rq                 ReportQuery // as asked, defaults filled in (the cursor's fingerprint)
}

var reportLevels = map[string]store.ReportLevel{
	LevelCampaign: store.LevelCampaign, LevelAdGroup: store.LevelAdGroup, LevelKeyword: store.LevelKeyword,
}

var reportGranularities = map[string]store.Granularity{
	GranularitySum: store.Summary, GranularityDay: store.Daily, GranularityHour: store.Hourly,
}

// checkReport validates q (shape only: the range needs the account's
// zone, planReport's) into p.
func checkReport(q ReportQuery, paged bool) (store.ReportQuery, adcamp.Issues) {
	var issues adcamp.Issues
	var sq store.ReportQuery
	level, ok := reportLevels[cmpOrStr(q.Level, LevelCampaign)]
	if !ok {
		issues.AddKind("level", adcamp.IssueNotOneOf, "campaign, ad_group, keyword", "must be one of campaign, ad_group, keyword")
	}
	sq.Level = level
	g, ok := reportGranularities[cmpOrStr(q.Granularity, GranularitySum)]
	if !ok {
		issues.AddKind("granularity", adcamp.IssueNotOneOf, "summary, day, hour", "must be one of summary, day, hour")
	}
	sq.Granularity = g
	if q.To.Before(q.From) {
		issues.AddKind("to", adcamp.IssueBeforeStart, q.From.String(), "must not be before from (%s)", q.From)
	}
	if q.CampaignID != "" && !adcamp.ValidID(adcamp.PrefixCampaign, q.CampaignID) {
		issues.Add("campaign_id", "is not a campaign id")
	}
	sq.CampaignID = q.CampaignID
	if q.AdGroupID != "" {
		if !adcamp.ValidID(adcamp.PrefixAdGroup, q.AdGroupID) {
			issues.Add("ad_group_id", "is not an ad group id")
		} else if level == store.LevelCampaign {
			issues.Add("ad_group_id", "is for the ad_group and keyword levels")
		}
	}
	sq.AdGroupID = q.AdGroupID
	switch q.Status {
	case "", string(adcamp.StatusActive), string(adcamp.StatusPaused), reportStatusGone:
	case string(adcamp.StatusEnded):
		if level != store.LevelCampaign {
			issues.AddKind("status", adcamp.IssueNotOneOf, "active, paused, deleted", "must be one of active, paused, deleted at this level")
		}
	default:
		issues.AddKind("status", adcamp.IssueNotOneOf, "active, paused, ended, deleted", "must be one of active, paused, ended, deleted")
	}
	sq.Status = q.Status
	if q.Sort != "" {
		name := strings.TrimPrefix(q.Sort, "-")
		if _, ok := store.ReportSorts[name]; !ok {
			issues.AddKind("sort", adcamp.IssueNotOneOf, reportSortNames,
				"must be a metric (%s), with a leading - for descending", reportSortNames)
		}
		sq.Sort, sq.Desc = name, strings.HasPrefix(q.Sort, "-")
	}
	if paged {
		limit := q.Limit
		if limit == 0 {
			limit = DefaultReportLimit
		}
		if limit < 1 || limit > MaxReportLimit {
			issues.Add("limit", "must be an integer from 1 to %d", MaxReportLimit)
		}
		sq.Limit = limit
	}
	return sq, issues
}

const reportSortNames = "impressions, clicks, cost, orders, sales, ctr, cpc, conversion_rate, acos, roas"

func cmpOrStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// planReport checks q against the account (its zone, its entities) and
// returns the store's query.
func (s *core) planReport(ctx context.Context, tx store.Tx, t adcamp.Tenant, q ReportQuery, paged bool) (*reportPlan, error) {
	if OriginOf(ctx).Actor.Type == adcamp.ActorUser {
		if _, err := s.authorize(ctx, tx, t.AccountID, actRead, adcamp.NotFound("account", t.AccountID)); err != nil {
			return nil, err
		}
	}
	a, err := tx.GetAccount(ctx, t.AccountID)
	if err != nil {
		return nil, err
	}
	today, _, _ := accountDay(a.TimeZone, s.Now())
	q = q.withDefaults(today)
	sq, issues := checkReport(q, paged)
	p := &reportPlan{zone: zoneOf(a.TimeZone), zoneName: a.TimeZone, from: q.From, to: q.To, level: q.Level, granularity: q.Granularity}
	if p.zoneName == "" {
		p.zoneName = "UTC"
	}
	{
		first := addDays(today, -(DayRetentionDays - 1))
		if sq.Granularity == store.Hourly {
			first = addDays(today, -(HourlyReportDays - 1))
		}
		if q.From.Before(first) {
			what := "daily figures are kept"
			n := DayRetentionDays
			if sq.Granularity == store.Hourly {
				what, n = "hourly reports cover", HourlyReportDays
			}
			issues.AddKind("from", adcamp.IssueDateRange, first.String()+" to "+today.String(),
				"must not be before %s: %s the last %d days, today (%s) included", first, what, n, today)
		}
		if today.Before(q.To) {
			issues.AddKind("to", adcamp.IssueDateRange, first.String()+" to "+today.String(),
				"must not be after today in the account's time zone (%s, %s)", today, p.zoneName)
		}
	}
	if q.Cursor != "" && paged {
		off, ok := decodeReportCursor(q.Cursor, q)
		if !ok {
			issues.Add("cursor", "is not a cursor this report gave (next_cursor) for the same parameters")
		}
		sq.Offset = off
	}
	if err := issues.Err(); err != nil {
		return nil, err
	}
	sq.Tenant = t
	sq.FromDay, sq.ToDay = store.DayNumber(q.From), store.DayNumber(q.To)
	sq.FromHour = time.Date(q.From.Year, q.From.Month, q.From.Day, 0, 0, 0, 0, p.zone).UTC()
	sq.ToHour = time.Date(q.To.Year, q.To.Month, q.To.Day+1, 0, 0, 0, 0, p.zone).UTC()
	for _, f := range []struct {
		level store.ReportLevel
		id    string
		what  string
	}{{store.LevelCampaign, q.CampaignID, "campaign"}, {store.LevelAdGroup, q.AdGroupID, "ad group"}} {
		if f.id == "" {
			continue
		}
		ok, err := tx.ReportEntity(ctx, t, f.level, f.id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, adcamp.NotFound(f.what, f.id)
		}
	}
	p.q, p.rq = sq, q
	return p, nil
}

// withDefaults fills in what q leaves out (see ReportQuery).
func (q ReportQuery) withDefaults(today adcamp.Date) ReportQuery {
	q.Level = cmpOrStr(q.Level, LevelCampaign)
	q.Granularity = cmpOrStr(q.Granularity, GranularitySum)
	if q.To.IsZero() {
		q.To = today
	}
	if q.From.IsZero() {
		q.From = addDays(q.To, -6)
	}
	return q
}

// addDays returns d moved by n days.
func addDays(d adcamp.Date, n int) adcamp.Date {
	return adcamp.DateOf(time.Date(d.Year, d.Month, d.Day+n, 0, 0, 0, 0, time.UTC))
}

// reportCursor binds an offset to the parameters it pages: a cursor
// given with other parameters is refused rather than misread.
func reportCursor(off int, q ReportQuery) string {
	b := binary.AppendUvarint(nil, uint64(off))
	b = append(b, reportFingerprint(q)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeReportCursor(c string, q ReportQuery) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	off, n := binary.Uvarint(b)
	if n <= 0 || off > math.MaxInt32 || string(b[n:]) != string(reportFingerprint(q)) {
		return 0, false
	}
	return int(off), true
}

func reportFingerprint(q ReportQuery) []byte {
	h := sha256.Sum256([]byte(strings.Join([]string{q.Level, cmpOrStr(q.Granularity, GranularitySum), q.From.String(), q.To.String(),
		q.CampaignID, q.AdGroupID, q.Status, q.Sort}, "\x00")))
	return h[:8]
}

// rowOf converts a store's row.
func (p *reportPlan) rowOf(r *store.ReportRow, out *ReportRow) {
	*out = ReportRow{
		CampaignID: r.CampaignID, CampaignName: r.CampaignName, AdGroupID: r.AdGroupID, AdGroupName: r.AdGroupName,
		KeywordID: r.KeywordID, KeywordText: r.Keyword, MatchType: adcamp.MatchType(r.MatchType),
		Status: r.Status, Deleted: r.Deleted,
		ReportMetrics: ReportMetrics{Impressions: r.Impressions, Clicks: r.Clicks, Cost: r.Cost, Orders: r.Orders, Sales: r.Sales},
	}
	if r.Deleted {
		out.Status = reportStatusGone
	}
	switch p.q.Granularity {
	case store.Daily:
		out.Date = store.DateOfDay(r.Day)
	case store.Hourly:
		out.Hour = r.Hour.In(p.zone)
		y, m, d := out.Hour.Date()
		out.Date = adcamp.Date{Year: y, Month: m, Day: d}
	}
}

// PerformanceReport returns one page of a report of t, with the totals
// of the whole range on the first page and the cursor of the next.
func (s *Ads) PerformanceReport(ctx context.Context, t adcamp.Tenant, q ReportQuery) (*ReportPage, error) {
	if err := s.foldPendingDays(ctx); err != nil {
		return nil, err
	}
	var page *ReportPage
	err := s.read(ctx, func(tx store.Tx) error {
		p, err := s.planReport(ctx, tx, t, q, true)
		if err != nil {
			return err
		}
		page = &ReportPage{Level: p.level, Granularity: p.granularity, TimeZone: p.zoneName, From: p.from, To: p.to}
		limit := p.q.Limit
		p.q.Limit = limit + 1
		err = tx.ReportRows(ctx, p.q, func(r *store.ReportRow) error {
			row := new(ReportRow)
			p.rowOf(r, row)
			page.Rows = append(page.Rows, row)
			return nil
		})
		if err != nil {
			return err
		}
		if len(page.Rows) > limit {
			page.Rows = page.Rows[:limit]
			page.NextCursor = reportCursor(p.q.Offset+limit, p.rq)
		}
		switch {
		case q.Cursor == "" && page.NextCursor == "":
			// The first page holds every row: the totals are its sums
			// (the rows left out are all zeros), without reading the
			// figures again.
			var m ReportMetrics
			for _, r := range page.Rows {
				m.Impressions += r.Impressions
				m.Clicks += r.Clicks
				m.Cost += r.Cost
				m.Orders += r.Orders
				m.Sales += r.Sales
			}
			page.Totals = &m
		case q.Cursor == "":
			m, err := tx.ReportTotals(ctx, p.q)
			if err != nil {
				return err
			}
			page.Totals = &ReportMetrics{Impressions: m.Impressions, Clicks: m.Clicks, Cost: m.Cost, Orders: m.Orders, Sales: m.Sales}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return page, nil
}

// reportChunkRows is how many rows of a report by day or hour
// EachPerformanceRow reads in one transaction.
const reportChunkRows = 8192

// EachPerformanceRow calls fn with every row of the report of t (Limit
// and Cursor ignored), in its order: the rows stream, fn's row is
// reused, and memory stays flat whatever the range. fn must not call
// the service back.
//
// A summary, and a report sorted by a metric, is one read of the store.
// A report by day or hour in its natural order is read in chunks of
// reportChunkRows rows (ReportJobsConfig.ChunkRows), each in a
// transaction of its own, the next starting after the last row of the
// one before (keyset paging): a
// long read would hold one snapshot for the whole report, which on
// SQLite keeps every checkpoint from finishing, so the write-ahead log
// grows for as long as the job runs and the server pays for it after.
// The rows are then not one snapshot: figures that arrive while the
// report is read show in the chunks read after they were committed,
// and not in those before. No row is read twice or left out, and each
// entity keeps the names it had when first read.
func (s *Ads) EachPerformanceRow(ctx context.Context, t adcamp.Tenant, q ReportQuery, fn func(*ReportRow) error) error {
	q.Limit, q.Cursor = 0, ""
	// At the usual priority: a report job calls this from its low one,
	// and on SQLite the fold's write may lead a batch that commits the
	// API's writes too (see lowpriority.Usual).
	var err error
	lowpriority.Usual(func() { err = s.foldPendingDays(ctx) })
	if err != nil {
		return err
	}
	chunk := s.jobsConfig().ChunkRows
	var p *reportPlan
	var after *store.ReportKey
	var names store.ReportNames
	var row ReportRow
	for {
		var n int
		err := s.store.Read(ctx, func(tx store.Tx) error {
			n = 0 // a read may be tried again
			if p == nil {
				var err error
				if p, err = s.planReport(ctx, tx, t, q, false); err != nil {
					return err
				}
			}
			sq := p.q
			if sq.Granularity != store.Summary && sq.Sort == "" {
				sq.After, sq.Limit, sq.Names = after, chunk, &names
			}
			return tx.ReportRows(ctx, sq, func(r *store.ReportRow) error {
				n++
				if sq.Limit > 0 && n == sq.Limit {
					k := r.Key()
					after = &k
				}
				p.rowOf(r, &row)
				return fn(&row)
			})
		})
		if err != nil || p.q.Granularity == store.Summary || p.q.Sort != "" || n < chunk {
			return err
		}
		// Between chunks, what waits for the processor goes first.
		runtime.Gosched()
	}
}

// PerformanceTotals returns the sums of every row of the report of t.
func (s *Ads) PerformanceTotals(ctx context.Context, t adcamp.Tenant, q ReportQuery) (*ReportMetrics, error) {
	q.Limit, q.Cursor = 0, ""
	if err := s.foldPendingDays(ctx); err != nil {
		return nil, err
	}
	var out *ReportMetrics
	err := s.read(ctx, func(tx store.Tx) error {
		p, err := s.planReport(ctx, tx, t, q, false)
		if err != nil {
			return err
		}
		m, err := tx.ReportTotals(ctx, p.q)
		out = &ReportMetrics{Impressions: m.Impressions, Clicks: m.Clicks, Cost: m.Cost, Orders: m.Orders, Sales: m.Sales}
		return err
	})
	return out, err
}

// The background duties of reports, run by Run: the roll-up of hours
// stored before the days were kept, and the purge past retention.

// rollUpBatch bounds the undated hours one transaction dates.
const rollUpBatch = 2000

// RollUpUndatedHours adds to their days the hourly rows stored without
// one (before migration 00033), dated in their account's zone now, and
// says how many it dated.
func (s *Service) RollUpUndatedHours(ctx context.Context) (int64, error) {
	var total int64
	for {
		var n int
		err := s.store.Write(ctx, func(tx store.Tx) error {
			rows, err := tx.UndatedHours(ctx, rollUpBatch)
			if err != nil || len(rows) == 0 {
				n = 0
				return err
			}
			n = len(rows)
			if err := datedRows(ctx, tx, rows); err != nil {
				return err
			}
			return tx.PutDelivery(ctx, rows, s.Now())
		})
		total += int64(n)
		if n > 0 {
			s.daysJournaled()
		}
		if err != nil || n < rollUpBatch || ctx.Err() != nil {
			return total, err
		}
	}
}

// dayOfHour is the day (YYYYMMDD) of delivery_days an hour starting at h
// goes to in zone loc.
func dayOfHour(h time.Time, loc *time.Location) int32 {
	y, m, d := h.In(loc).Date()
	return store.DayNumber(adcamp.Date{Year: y, Month: m, Day: d})
}

// PurgeReports folds the journal of days, then deletes the hourly
// figures older than HourRetention, the daily ones older than
// DayRetentionDays (counted back from today in UTC, a day earlier than
// the earliest account's today), and the names of entities deleted
// before that, in small transactions, and says how many rows it deleted.
func (s *Service) PurgeReports(ctx context.Context) (int64, error) {
	// The journal first: an entry folded after the purge would bring
	// back part of a day it deleted.
	if _, err := s.FoldDays(ctx); err != nil {
		return 0, err
	}
	now := s.Now()
	hours := now.Add(-HourRetention)
	day := store.DayNumber(addDays(adcamp.DateOf(now), -DayRetentionDays))
	var zones map[string]string
	if err := s.store.Read(ctx, func(tx store.Tx) (err error) {
		zones, err = tx.AccountZones(ctx)
		return err
	}); err != nil {
		return 0, err
	}
	var total int64
	for account := range zones {
		for _, env := range []adcamp.Environment{adcamp.Production, adcamp.Sandbox} {
			t := adcamp.Tenant{AccountID: account, Environment: env}
			for {
				var n int64
				err := s.store.Write(ctx, func(tx store.Tx) (err error) {
					n, err = tx.PurgeReports(ctx, t, hours, day, purgeBatch)
					return err
				})
				total += n
				if err != nil || ctx.Err() != nil {
					return total, err
				}
				if n == 0 {
					break
				}
			}
		}
	}
	for {
		var n int64
		err := s.store.Write(ctx, func(tx store.Tx) (err error) {
			n, err = tx.PurgeReportNames(ctx, now.Add(-reportNameRetention), purgeBatch)
			return err
		})
		total += n
		if err != nil || n < purgeBatch || ctx.Err() != nil {
			return total, err
		}
	}
}

// reportDuties runs the roll-up, and the purge once it is due
// (reportPurgeEvery after the one before).
func (s *Service) reportDuties(ctx context.Context) {
	if n, err := s.RollUpUndatedHours(ctx); err != nil {
		s.log.Error("roll up hourly figures into days", "err", err)
	} else if n > 0 {
		s.log.Info("rolled up hourly figures stored before the daily figures were kept", "n", n)
	}
	now := s.Now()
	if due := s.reportPurgeDue.Load(); due != nil && now.Before(*due) {
		return
	}
	next := now.Add(reportPurgeEvery)
	s.reportPurgeDue.Store(&next)
	if n, err := s.PurgeReports(ctx); err != nil {
		s.log.Error("purge delivery figures past their retention", "err", err)
	} else if n > 0 {
		s.log.Debug("purged delivery figures past their retention", "n", n)
	}
}
