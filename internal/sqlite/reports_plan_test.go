package sqlite_test

import (
	"strings"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// TestReportPlans checks how the report's statements (store.ReportSQL,
// store.ReportTotalsSQL, as the SQLite store sends them) read their rows:
// each through an index, and those that must not sort what they read
// (a page of a summary in its natural order, which stops at its last
// entity; a daily or hourly keyword report, which a job streams) without
// a temporary B-tree below the page. A sort of the page's own rows (at
// most the LIMIT) at the top is allowed; so is reading the page's
// subquery (SCAN a).
func TestReportPlans(t *testing.T) {
	t.Parallel()
	db := openPlanDB(t)
	tn := adcamp.Tenant{AccountID: "acc_1", Environment: adcamp.Production}
	hour := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	base := store.ReportQuery{Tenant: tn, FromDay: 20260825, ToDay: 20261122, FromHour: hour, ToHour: hour.Add(24 * time.Hour)}
	with := func(f func(*store.ReportQuery)) store.ReportQuery {
		q := base
		f(&q)
		return q
	}
	for _, c := range []struct {
		name   string
		q      store.ReportQuery
		totals bool
		// sorts: the statement may sort everything it reads (a sort by a
		// metric sums every entity first).
		sorts bool
		// index: the index delivery_days is read through, if not its
		// primary key.
		index string
		// keyset: the start of the range a chunk of a job reads (its
		// figures without names, after a row: ReportFiguresSQL).
		keyset string
	}{
		{name: "keyword summary page", q: with(func(q *store.ReportQuery) { q.Level, q.Limit = store.LevelKeyword, 101 }), index: "delivery_days_entity"},
		{name: "campaign summary page", q: with(func(q *store.ReportQuery) { q.Level, q.Limit = store.LevelCampaign, 101 }), index: "delivery_days_entity"},
		{name: "keyword summary of a campaign", q: with(func(q *store.ReportQuery) {
			q.Level, q.Limit, q.CampaignID = store.LevelKeyword, 101, "cmp_1"
		}), sorts: true},
		{name: "keyword summary status", q: with(func(q *store.ReportQuery) {
			q.Level, q.Limit, q.Status = store.LevelKeyword, 101, "active"
		}), index: "delivery_days_entity"},
		{name: "keyword summary by cost", q: with(func(q *store.ReportQuery) {
			q.Level, q.Limit, q.Sort, q.Desc = store.LevelKeyword, 101, "cost", true
		}), sorts: true},
		{name: "keyword by day, a job", q: with(func(q *store.ReportQuery) { q.Level, q.Granularity = store.LevelKeyword, store.Daily })},
		{name: "keyword by day page", q: with(func(q *store.ReportQuery) { q.Level, q.Granularity, q.Limit = store.LevelKeyword, store.Daily, 101 })},
		{name: "ad group by day of a campaign", q: with(func(q *store.ReportQuery) {
			q.Level, q.Granularity, q.CampaignID = store.LevelAdGroup, store.Daily, "cmp_1"
		})},
		{name: "keyword by hour, a job", q: with(func(q *store.ReportQuery) { q.Level, q.Granularity = store.LevelKeyword, store.Hourly })},
		{name: "keyword by hour page", q: with(func(q *store.ReportQuery) { q.Level, q.Granularity, q.Limit = store.LevelKeyword, store.Hourly, 101 })},
		{name: "campaign by hour", q: with(func(q *store.ReportQuery) { q.Level, q.Granularity = store.LevelCampaign, store.Hourly }), sorts: true},
		{name: "keyword by day, a job's chunk", q: with(func(q *store.ReportQuery) {
			q.Level, q.Granularity, q.Limit, q.After = store.LevelKeyword, store.Daily, 8192, &store.ReportKey{T: 20260901, Entity: "kw_1"}
		}), keyset: "(day,entity_id)>(?,?)"},
		{name: "keyword by hour, a job's chunk", q: with(func(q *store.ReportQuery) {
			q.Level, q.Granularity, q.Limit, q.After = store.LevelKeyword, store.Hourly, 8192, &store.ReportKey{T: hour.UnixMicro(), Entity: "kw_1"}
		}), keyset: "(hour,keyword_id)>(?,?)"},
		{name: "totals", q: with(func(q *store.ReportQuery) { q.Level = store.LevelKeyword }), totals: true},
		{name: "totals of an ad group", q: with(func(q *store.ReportQuery) { q.Level, q.AdGroupID = store.LevelKeyword, "adg_1" }), totals: true,
			index: "delivery_days_entity"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, _, err := store.ReportSQL(c.q, true)
			if c.totals {
				text, _, err = store.ReportTotalsSQL(c.q)
			}
			if c.keyset != "" {
				text, _, err = store.ReportFiguresSQL(c.q, true)
			}
			if err != nil {
				t.Fatal(err)
			}
			plan := explain(t, db, text)
			subqueries := map[int]bool{}
			var checked []planStep
			for _, s := range plan {
				if strings.HasPrefix(s.detail, "CO-ROUTINE ") || strings.HasPrefix(s.detail, "MATERIALIZE ") {
					subqueries[s.id] = true
				}
				if s.detail == "SCAN a" || s.detail == "SCAN s" {
					continue
				}
				checked = append(checked, s)
			}
			problems := planProblems(checked, false)
			read := false
			for _, s := range plan {
				d := s.detail
				if strings.Contains(d, " delivery_days ") {
					read = true
					want := "USING PRIMARY KEY"
					if c.index != "" {
						want = "INDEX " + c.index + " " // covering, on SQLite
					}
					if !strings.Contains(d, want) {
						problems = append(problems, "delivery_days not read "+want+": "+d)
					}
				}
				if strings.Contains(d, " delivery_hours ") {
					read = true
				}
				if c.keyset != "" && (strings.Contains(d, " delivery_days ") || strings.Contains(d, " delivery_hours ")) &&
					!strings.Contains(d, c.keyset) {
					problems = append(problems, "the chunk does not start its range at the row after the last: "+d)
				}
				// A sort below the top is of every row read; at the top,
				// of the page's (a LIMIT) or, without one, of rows that
				// must already be in order.
				top := s.parent == 0
				if strings.Contains(d, "TEMP B-TREE") && !c.sorts && (!top || c.q.Limit == 0) {
					problems = append(problems, "sort: "+d)
				}
			}
			if !read {
				problems = append(problems, "reads no figures")
			}
			if len(problems) > 0 {
				t.Errorf("%s\n%s. Plan:\n%s", text, strings.Join(problems, "; "), formatPlan(plan))
			}
		})
	}
}

// TestReportNamePlans checks that a streamed report's look-up of an
// entity's names (store.ReportNameSQL) searches by primary key.
func TestReportNamePlans(t *testing.T) {
	t.Parallel()
	db := openPlanDB(t)
	for _, level := range []store.ReportLevel{store.LevelCampaign, store.LevelAdGroup, store.LevelKeyword} {
		text := store.ReportNameSQL(level)
		plan := explain(t, db, text)
		var searches int
		var checked []planStep
		for _, s := range plan {
			if strings.HasPrefix(s.detail, "SEARCH ") {
				searches++
			}
			if s.detail != "SCAN o" { // the one row the joins hang on
				checked = append(checked, s)
			}
		}
		if problems := planProblems(checked, false); len(problems) > 0 || searches != 2 {
			t.Errorf("%s\n%d searches, want 2; %s. Plan:\n%s", text, searches, strings.Join(problems, "; "), formatPlan(plan))
		}
	}
}
