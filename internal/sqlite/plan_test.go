package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adcamp/adcamp/internal/sqlite"
)

// Copies of the store's column lists (campaigns.go, adgroups.go,
// keywords.go, accounts.go). They matter to the plans: an index covers a
// query or not by the columns it reads.
const (
	planCampaignColumns = `id, name, budget_daily, marketplace, channel_account_id,
	start_date, end_date, status, version, created_at, updated_at`
	planAdGroupColumns = `id, campaign_id, account_id, environment, name, default_bid, status, version, created_at, updated_at`
	planKeywordColumns = `id, ad_group_id, account_id, environment, text, text_key, match_type, bid, status, version, created_at, updated_at`
	planKeyColumns     = `id, account_id, environment, secret, previous_secret, previous_expires_at, disabled, created_at, last_used_at,
	name, created_by_type, created_by_id`
	planChannelColumns = `id, account_id, marketplace, name, created_at`
)

// planCount, planKept and planPage build a list's queries as list.go's
// listPage and pageSQL do: the total, counted or kept, and the page,
// newest first, with LIMIT and OFFSET as the two parameters after the
// filter's. planPageKept is a page with its kept total as a last column.
func planCount(table, where string) string {
	return `SELECT count(*) FROM ` + table + ` WHERE ` + where
}

func planKept(counts, where string) string {
	return `SELECT coalesce(sum(n), 0) FROM ` + counts + ` WHERE ` + where
}

func planPageKept(table, counts, columns, where string) string {
	return planPage(table, columns+`, (`+planKept(counts, where)+`)`, where)
}

func planPage(table, columns, where string) string {
	n := planParams(where)
	return `SELECT ` + columns + ` FROM ` + table + ` WHERE ` + where +
		` ORDER BY created_at DESC, id DESC LIMIT $` + strconv.Itoa(n+1) + ` OFFSET $` + strconv.Itoa(n+2)
}

// planDeepPage builds a page query as list.go's pageSQL does from
// deepOffset on: the page's ids from the index first, then their rows,
// sorted again (a page's rows alone). extraParams counts the parameters
// extra has of its own, if any.
func planDeepPage(table, columns, extra, where string, extraParams ...int) string {
	n := planParams(where)
	for _, p := range extraParams {
		n += p // extra's own, numbered after where's
	}
	var qualified []string
	for _, c := range strings.Split(columns, ",") {
		qualified = append(qualified, "c."+strings.TrimSpace(c))
	}
	return `SELECT ` + strings.Join(qualified, ", ") + extra + ` FROM (SELECT id, created_at FROM ` + table + ` WHERE ` + where +
		` ORDER BY created_at DESC, id DESC LIMIT $` + strconv.Itoa(n+1) + ` OFFSET $` + strconv.Itoa(n+2) +
		`) AS p JOIN ` + table + ` AS c ON c.id = p.id ORDER BY p.created_at DESC, p.id DESC`
}

// planCampaignDue is the correction of campaignTotal (campaigns.go): the
// tenant's campaigns past their end date not yet stored as ended.
const planCampaignDue = `SELECT count(*) FROM campaigns INDEXED BY campaigns_due
		WHERE end_date < $4 AND status <> 'ended' AND end_date IS NOT NULL
		  AND account_id = $1 AND environment = $2 AND ($3 = 'ended' OR status = $3)`

// planQuery is one statement of the store.
type planQuery struct {
	name  string // the store method, and which variant
	query string
	list  bool // a page of a list: sorting it in a temporary B-tree fails too
	// deep: a page chosen by planDeepPage. An outer sort would be of the
	// page's rows alone and passes, and so does scanning the subquery of
	// its ids; the ids must come from an index that gives their order,
	// each skipped row read from the index alone (COVERING).
	deep bool
	// gap, when set, is a known shortfall of the schema: the case is
	// skipped with its plan shown, and fails once the shortfall is gone so
	// that the note is removed.
	gap string
}

// planQueries mirrors every lookup, list, update and delete statement the
// SQLite store issues, with the same tables, columns, WHERE and ORDER BY.
// The store builds its statements inside its methods, so these are
// copies: keep them in step with internal/sqlite/*.go when a query
// changes (and add one here for every new query). Inserts without a
// WHERE are left out: their plans are empty.
var planQueries = []planQuery{
	// accounts.go
	{name: "GetAccount", query: `SELECT id, name, email, created_at FROM accounts WHERE id = $1`},
	{name: "GetChannelAccount", query: `SELECT marketplace, name, created_at FROM channel_accounts WHERE account_id = $1 AND id = $2`},
	{name: "ListChannelAccounts/count", query: planCount("channel_accounts", `account_id = $1`)},
	{name: "ListChannelAccounts/page", query: planPage("channel_accounts",
		planChannelColumns+`, (`+planCount("channel_accounts", `account_id = $1`)+`)`, `account_id = $1`), list: true},
	{name: "GetKey", query: `SELECT ` + planKeyColumns + ` FROM api_keys WHERE id = $1`},
	{name: "ListKeys", query: `SELECT ` + planKeyColumns + ` FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`, list: true},
	{name: "UpdateKey", query: `UPDATE api_keys SET secret = $2, previous_secret = $3, previous_expires_at = $4, disabled = $5
		 WHERE id = $1`},
	{name: "DeleteKey", query: `DELETE FROM api_keys WHERE id = $1`},
	{name: "TouchKeys", query: `UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)`},

	// campaigns.go
	{name: "GetCampaign", query: `SELECT ` + planCampaignColumns + ` FROM campaigns WHERE id = $1 AND account_id = $2 AND environment = $3`},
	{name: "ListCampaigns/total", query: `SELECT coalesce(sum(n), 0) FROM campaign_counts
			WHERE account_id = $1 AND environment = $2`},
	{name: "ListCampaigns/total status", query: `SELECT coalesce((SELECT n FROM campaign_counts
			WHERE account_id = $1 AND environment = $2 AND status = $3), 0)`},
	{name: "ListCampaigns/due", query: planCampaignDue},
	{name: "ListCampaigns/page", list: true, query: `SELECT ` + planCampaignColumns + `, (SELECT coalesce(sum(n), 0) FROM campaign_counts
		WHERE account_id = $1 AND environment = $2) FROM campaigns WHERE account_id = $1 AND environment = $2
		ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`},
	{name: "ListCampaigns/deep page", list: true, deep: true, query: planDeepPage("campaigns", planCampaignColumns,
		`, (SELECT coalesce(sum(n), 0) FROM campaign_counts WHERE account_id = $1 AND environment = $2)`,
		`account_id = $1 AND environment = $2`)},
	{name: "ListCampaignsSpend/page", list: true, query: `SELECT ` + planCampaignColumns + `,
		(SELECT SUM(cost) FROM campaign_hour_spend s WHERE s.campaign_id = campaigns.id AND s.hour >= $3 AND s.hour < $4),
		(SELECT coalesce(sum(n), 0) FROM campaign_counts WHERE account_id = $1 AND environment = $2)
		FROM campaigns WHERE account_id = $1 AND environment = $2 ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`},
	{name: "ListCampaignsSpend/deep page status, none due", list: true, deep: true, query: planDeepPage("campaigns", planCampaignColumns,
		`, (SELECT SUM(cost) FROM campaign_hour_spend s WHERE s.campaign_id = c.id AND s.hour >= $4 AND s.hour < $5)`,
		`account_id = $1 AND environment = $2 AND status = $3`, 2)},
	{name: "ListCampaigns/deep page status, none due", list: true, deep: true, query: planDeepPage("campaigns", planCampaignColumns, "",
		`account_id = $1 AND environment = $2 AND status = $3`)},
	{name: "ListCampaigns/page status, none due", list: true, query: planPage("campaigns", planCampaignColumns,
		`account_id = $1 AND environment = $2 AND status = $3`)},
	{name: "ListCampaigns/page status active or paused", list: true, query: planPage("campaigns", planCampaignColumns,
		`account_id = $1 AND environment = $2 AND status = $3 AND (end_date IS NULL OR end_date >= $4)`)},
	{name: "ListCampaigns/page status ended", list: true, query: planPage("campaigns", planCampaignColumns,
		`account_id = $1 AND environment = $2 AND (status = $3 OR end_date < $4)`)},
	{name: "UpdateCampaign", query: `UPDATE campaigns SET version = $4, updated_at = $5, name = $6, budget_daily = $7, start_date = $8,
		 end_date = $9, status = $10
		 WHERE id = $1 AND account_id = $2 AND environment = $3 AND version = $4 - 1`},
	{name: "DeleteCampaign", query: `DELETE FROM campaigns WHERE id = $1 AND account_id = $2 AND environment = $3`},

	// The ON DELETE SET NULL of channel_account_id, as a channel account
	// is deleted: the partial index of migration 00006 serves it.
	{name: "foreign key campaigns.channel_account_id", query: `UPDATE campaigns SET channel_account_id = NULL
		WHERE channel_account_id = $1`},

	// The campaign_counts triggers of migration 00004.
	{name: "trigger campaigns_counted_delete", query: `UPDATE campaign_counts SET n = n - 1
		WHERE account_id = $1 AND environment = $2 AND status = $3`},
	{name: "trigger ad_groups_counted_delete", query: `DELETE FROM ad_group_counts
		WHERE campaign_id = $1 AND status = $2 AND n = 1`},
	{name: "trigger keywords_counted_delete", query: `UPDATE keyword_counts SET n = n - 1
		WHERE ad_group_id = $1 AND status = $2 AND match_type = $3`},

	// adgroups.go
	{name: "GetAdGroup", query: `SELECT ` + planAdGroupColumns + ` FROM ad_groups WHERE id = $1 AND account_id = $2 AND environment = $3`},
	{name: "ListAdGroups/total", query: planKept("ad_group_counts", `campaign_id = $1 AND account_id = $2 AND environment = $3`)},
	{name: "ListAdGroups/page", list: true, query: planPageKept("ad_groups", "ad_group_counts", planAdGroupColumns,
		`campaign_id = $1 AND account_id = $2 AND environment = $3`)},
	{name: "ListAdGroups/total status", query: planKept("ad_group_counts",
		`campaign_id = $1 AND account_id = $2 AND environment = $3 AND status = $4`)},
	{name: "ListAdGroups/page status", list: true, query: planPageKept("ad_groups", "ad_group_counts", planAdGroupColumns,
		`campaign_id = $1 AND account_id = $2 AND environment = $3 AND status = $4`)},
	{name: "UpdateAdGroup", query: `UPDATE ad_groups SET name = $4, default_bid = $5, status = $6, version = $7, updated_at = $8
		 WHERE id = $1 AND account_id = $2 AND environment = $3 AND version = $7 - 1`},
	{name: "DeleteAdGroup", query: `DELETE FROM ad_groups WHERE id = $1 AND account_id = $2 AND environment = $3`},
	{name: "CountChildren/campaign", query: `SELECT count(*), coalesce((SELECT count(*) FROM keywords k WHERE k.ad_group_id IN
			   (SELECT id FROM ad_groups WHERE campaign_id = $1 AND account_id = $2 AND environment = $3)), 0)
			 FROM ad_groups WHERE campaign_id = $1 AND account_id = $2 AND environment = $3`},
	{name: "CountChildren/ad group", query: `SELECT count(*) FROM keywords WHERE ad_group_id = $1 AND account_id = $2 AND environment = $3`},

	// keywords.go
	{name: "TakenKeywordKeys", query: `SELECT match_type, text_key FROM keywords
			WHERE ad_group_id = ? AND id <> ? AND text_key IN (?,?)`},
	{name: "GetKeyword", query: `SELECT ` + planKeywordColumns + ` FROM keywords WHERE id = $1 AND account_id = $2 AND environment = $3`},
	{name: "ListKeywords/total", query: planKept("keyword_counts", `ad_group_id = $1 AND account_id = $2 AND environment = $3`)},
	{name: "ListKeywords/page", list: true, query: planPageKept("keywords", "keyword_counts", planKeywordColumns,
		`ad_group_id = $1 AND account_id = $2 AND environment = $3`)},
	{name: "ListKeywords/total status", query: planKept("keyword_counts",
		`ad_group_id = $1 AND account_id = $2 AND environment = $3 AND status = $4`)},
	{name: "ListKeywords/page status", list: true, query: planPageKept("keywords", "keyword_counts", planKeywordColumns,
		`ad_group_id = $1 AND account_id = $2 AND environment = $3 AND status = $4`)},
	{name: "ListKeywords/total match type", query: planKept("keyword_counts",
		`ad_group_id = $1 AND account_id = $2 AND environment = $3 AND match_type = $4`)},
	{name: "ListKeywords/page match type", list: true, query: planPageKept("keywords", "keyword_counts", planKeywordColumns,
		`ad_group_id = $1 AND account_id = $2 AND environment = $3 AND match_type = $4`)},
	{name: "ListKeywords/total status and match type", query: planKept("keyword_counts",
		`ad_group_id = $1 AND account_id = $2 AND environment = $3 AND status = $4 AND match_type = $5`)},
	{name: "ListKeywords/page status and match type", list: true, query: planPageKept("keywords", "keyword_counts", planKeywordColumns,
		`ad_group_id = $1 AND account_id = $2 AND environment = $3 AND status = $4 AND match_type = $5`)},
	{name: "UpdateKeyword", query: `UPDATE keywords SET text = $4, text_key = $5, match_type = $6, bid = $7, status = $8, version = $9, updated_at = $10
		 WHERE id = $1 AND account_id = $2 AND environment = $3 AND version = $9 - 1`},
	{name: "DeleteKeyword", query: `DELETE FROM keywords WHERE id = $1 AND account_id = $2 AND environment = $3`},

	// records.go
	{name: "SaveRecord", query: `INSERT INTO request_records (scope, token, request_hash, status, header, body, created_at, expires_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		 ON CONFLICT (scope, token) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
		   header = excluded.header, body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at
		 WHERE request_records.expires_at <= excluded.created_at`},
	{name: "GetRecord", query: `SELECT request_hash, status, header, body, created_at, expires_at FROM request_records
		 WHERE scope = $1 AND token = $2 AND expires_at > $3`},
	{name: "PurgeRecords", query: `DELETE FROM request_records WHERE expires_at <= $1`},
	// operator.go
	{name: "CampaignSpend", query: `SELECT campaign_id, SUM(cost) FROM campaign_hour_spend
		WHERE campaign_id IN (SELECT value FROM json_each($1)) AND hour >= $2 AND hour < $3 GROUP BY campaign_id`},
	{name: "GetCampaignSpend", query: sqlite.CampaignWithSpend},
	{name: "CampaignSpend of one", query: `SELECT SUM(cost) FROM campaign_hour_spend WHERE campaign_id = $1 AND hour >= $2 AND hour < $3`},
	{name: "DeliveryKeywords", query: sqlite.DeliveryKeywordsSQL(3)},
	{name: "DeliveryKeywords/found", query: sqlite.KeywordsFoundSQL(3)},
	{name: "PutDelivery/stored", query: sqlite.StoredHoursSQL(3)},
	// feed.go
	{name: "Snapshot/campaigns", query: `SELECT c.id, c.account_id, c.budget_daily, c.marketplace, c.channel_account_id, c.start_date, c.end_date, a.time_zone
		FROM campaigns c JOIN accounts a ON a.id = c.account_id WHERE c.environment = $1 AND c.status = 'active'`},
	{name: "Snapshot/keywords", gap: "a snapshot reads every keyword: a scan of the table is its plan", query: `SELECT k.id, k.text, k.match_type, k.bid, k.ad_group_id, g.default_bid, g.campaign_id
		FROM keywords k JOIN ad_groups g ON g.id = k.ad_group_id
		WHERE k.environment = $1 AND k.status = 'active' AND g.status = 'active'`},
}

// TestQueryPlansUseIndexes checks that no statement of the store reads a
// whole table (or builds an index of its own to avoid it), and that no page
// of a list is sorted after reading: each must find its rows through an
// index, so that its cost does not grow with the table. The plans are those
// of the schema as migrated, without ANALYZE statistics, as a new data
// directory has it.
func TestQueryPlansUseIndexes(t *testing.T) {
	t.Parallel()
	db := openPlanDB(t)
	for _, q := range planQueries {
		t.Run(q.name, func(t *testing.T) {
			plan := explain(t, db, q.query)
			t.Logf("plan:\n%s", formatPlan(plan))
			var problems []string
			checked := plan
			if q.deep {
				problems, checked = deepPlanProblems(plan)
			}
			problems = append(problems, planProblems(checked, q.list && !q.deep)...)
			switch {
			case q.gap != "" && len(problems) == 0:
				t.Errorf("known gap %q is gone; remove the note from planQueries. Plan:\n%s", q.gap, formatPlan(plan))
			case q.gap != "":
				t.Skipf("known gap: %s: %s. Plan:\n%s", q.gap, strings.Join(problems, "; "), formatPlan(plan))
			case len(problems) > 0:
				t.Errorf("%s\nreads without an index: %s. Plan:\n%s", q.query, strings.Join(problems, "; "), formatPlan(plan))
			}
		})
	}
}

// TestTotalsDoNotScan checks that a campaign list's exact total comes from
// campaign_counts: the total of all statuses reads nothing of campaigns,
// and the total of one status reads campaigns only through campaigns_due,
// the index of those past their end date not yet stored as ended.
func TestTotalsDoNotScan(t *testing.T) {
	t.Parallel()
	db := openPlanDB(t)
	for _, name := range []string{"ListCampaigns/total", "ListCampaigns/total status",
		"ListCampaigns/due"} {
		t.Run(name, func(t *testing.T) {
			q := findPlanQuery(t, name)
			plan := explain(t, db, q.query)
			var counts, campaigns []string
			for _, step := range plan {
				switch {
				case regexp.MustCompile(`\bcampaign_counts\b`).MatchString(step.detail):
					counts = append(counts, step.detail)
				case regexp.MustCompile(`\bcampaigns\b`).MatchString(step.detail):
					campaigns = append(campaigns, step.detail)
				}
			}
			if strings.Contains(q.query, "campaign_counts") && len(counts) == 0 {
				t.Errorf("the total does not read campaign_counts. Plan:\n%s", formatPlan(plan))
			}
			for _, s := range campaigns {
				if !strings.HasPrefix(s, "SEARCH campaigns USING INDEX campaigns_due ") &&
					!strings.HasPrefix(s, "SEARCH campaigns USING COVERING INDEX campaigns_due ") {
					t.Errorf("the total reads campaigns other than by the index of end dates: %q. Plan:\n%s", s, formatPlan(plan))
				}
			}
			if q.name == "ListCampaigns/total" && len(campaigns) > 0 {
				t.Errorf("the total of all statuses reads campaigns. Plan:\n%s", formatPlan(plan))
			}
			if problems := planProblems(plan, false); len(problems) > 0 {
				t.Errorf("reads without an index: %s. Plan:\n%s", strings.Join(problems, "; "), formatPlan(plan))
			}
		})
	}
}

// TestForeignKeysIndexed checks that every foreign key's child columns lead
// an index: deleting or changing a parent row looks its children up (ON
// DELETE CASCADE, SET NULL), and EXPLAIN QUERY PLAN does not show those
// lookups.
func TestForeignKeysIndexed(t *testing.T) {
	t.Parallel()
	db := openPlanDB(t)
	tables := planStrings(t, db, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	for _, table := range tables {
		for _, from := range planStrings(t, db, `SELECT "from" FROM pragma_foreign_key_list(?)`, table) {
			leading := planStrings(t, db, `SELECT ii.name FROM pragma_index_list(?) il, pragma_index_info(il.name) ii
				WHERE ii.seqno = 0`, table)
			if !containsFold(leading, from) {
				t.Errorf("foreign key %s.%s leads no index (indexes lead with %v)", table, from, leading)
			}
		}
	}
}

// openPlanDB creates a store's database in a temporary directory with
// sqlite.Open, so that it has the migrated schema, and returns a
// read-only connection of its own to the same file.
func openPlanDB(t *testing.T) *sql.DB {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	db := openFile(t, dir, "_pragma=query_only(1)")
	t.Cleanup(func() { db.Close() })
	return db
}

// openFile opens the database file of the data directory dir with a
// connection pool of its own, beside any store that has it open (WAL
// allows it); params are DSN parameters of modernc.org/sqlite.
func openFile(tb testing.TB, dir, params string) *sql.DB {
	tb.Helper()
	path := filepath.Join(dir, sqlite.FileName)
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(10000)&"+params)
	if err != nil {
		tb.Fatalf("sql.Open: %v", err)
	}
	return db
}

// planStep is a row of EXPLAIN QUERY PLAN.
type planStep struct {
	id, parent int
	detail     string
}

// explain returns the plan of query, its parameters bound to NULL.
func explain(t *testing.T, db *sql.DB, query string) []planStep {
	t.Helper()
	rows, err := db.Query(`EXPLAIN QUERY PLAN `+query, make([]any, planParams(query))...)
	if err != nil {
		t.Fatalf("EXPLAIN QUERY PLAN %s: %v", query, err)
	}
	defer rows.Close()
	var plan []planStep
	for rows.Next() {
		var s planStep
		var unused int
		if err := rows.Scan(&s.id, &s.parent, &unused, &s.detail); err != nil {
			t.Fatalf("EXPLAIN QUERY PLAN %s: %v", query, err)
		}
		plan = append(plan, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("EXPLAIN QUERY PLAN %s: %v", query, err)
	}
	return plan
}

var (
	planParamRE = regexp.MustCompile(`\$(\d+)`)
	// fullScanRE is a step that reads a whole table: SCAN with no index
	// ("SCAN campaigns", "SCAN k"), unlike "SCAN campaigns USING INDEX ..."
	// and "SCAN CONSTANT ROW".
	fullScanRE = regexp.MustCompile(`^SCAN [^(\s]\S*( AS \S+)?$`)
)

// planParams returns how many arguments query takes: its highest $n
// placeholder, plus its anonymous ones (?).
func planParams(query string) int {
	n := 0
	for _, m := range planParamRE.FindAllStringSubmatch(query, -1) {
		i, _ := strconv.Atoi(m[1])
		n = max(n, i)
	}
	return n + strings.Count(query, "?") // anonymous ones, numbered by position
}

// planProblems returns the steps of plan that read a whole table or build
// an automatic index, and for a list, those that sort in a temporary
// B-tree for its ORDER BY.
func planProblems(plan []planStep, list bool) []string {
	var problems []string
	for _, s := range plan {
		d := s.detail
		switch {
		case fullScanRE.MatchString(d) && d != "SCAN CONSTANT ROW":
			problems = append(problems, "full scan: "+d)
		case strings.Contains(d, "AUTOMATIC"):
			problems = append(problems, "automatic index: "+d)
		case list && strings.Contains(d, "TEMP B-TREE") && strings.Contains(d, "ORDER BY"):
			problems = append(problems, "sort: "+d)
		}
	}
	return problems
}

// deepPlanProblems checks the plan of a planDeepPage query beyond
// planProblems: its ids come from one subquery (materialized, or a
// co-routine) that searches a covering index, with no sort below the top.
// It returns the plan without the step that scans that subquery, which
// is bounded by the page's LIMIT, for planProblems to check the rest.
func deepPlanProblems(plan []planStep) (problems []string, rest []planStep) {
	subqueries := map[int]string{}
	for _, s := range plan {
		for _, prefix := range []string{"MATERIALIZE ", "CO-ROUTINE "} {
			if name, ok := strings.CutPrefix(s.detail, prefix); ok {
				subqueries[s.id] = name
			}
		}
	}
	if len(subqueries) != 1 {
		return []string{fmt.Sprintf("%d subqueries giving the ids, want 1", len(subqueries))}, plan
	}
	for _, s := range plan {
		d := s.detail
		_, inner := subqueries[s.parent]
		switch {
		case inner && !(strings.HasPrefix(d, "SEARCH ") && strings.Contains(d, "USING COVERING INDEX")):
			problems = append(problems, "ids not from a covering index search: "+d)
		case s.parent != 0 && strings.Contains(d, "TEMP B-TREE"):
			problems = append(problems, "sort below the top: "+d)
		}
		if strings.HasPrefix(d, "SCAN ") && slices.Contains(slices.Collect(maps.Values(subqueries)), strings.TrimPrefix(d, "SCAN ")) {
			continue
		}
		rest = append(rest, s)
	}
	return problems, rest
}

// formatPlan indents the steps of plan as the sqlite3 shell does.
func formatPlan(plan []planStep) string {
	depth := map[int]int{0: 0}
	var b strings.Builder
	for _, s := range plan {
		depth[s.id] = depth[s.parent] + 1
		fmt.Fprintf(&b, "%s%s\n", strings.Repeat("  ", depth[s.id]), s.detail)
	}
	return b.String()
}

func findPlanQuery(t *testing.T, name string) planQuery {
	t.Helper()
	for _, q := range planQueries {
		if q.name == name {
			return q
		}
	}
	t.Fatalf("no query %q in planQueries", name)
	return planQuery{}
}

// planStrings returns the one text column of a query's rows.
func planStrings(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// TestPlanProblems checks the checker on plan steps of each kind.
func TestPlanProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		detail string
		list   bool
		want   bool // a problem
	}{
		{"SCAN campaigns", false, true},
		{"SCAN k", false, true},
		{"SCAN campaigns USING INDEX campaigns_tenant", true, false},
		{"SCAN campaigns USING COVERING INDEX campaigns_tenant", false, false},
		{"SEARCH campaigns USING INDEX campaigns_tenant (account_id=? AND environment=?)", true, false},
		{"SEARCH k USING AUTOMATIC COVERING INDEX (ad_group_id=?)", false, true},
		{"SCAN CONSTANT ROW", false, false},
		{"SCAN (subquery-1)", false, false},
		{"USE TEMP B-TREE FOR ORDER BY", true, true},
		{"USE TEMP B-TREE FOR LAST TERM OF ORDER BY", true, true},
		{"USE TEMP B-TREE FOR ORDER BY", false, false},
	}
	for _, tc := range tests {
		got := planProblems([]planStep{{id: 2, detail: tc.detail}}, tc.list)
		if (len(got) > 0) != tc.want {
			t.Errorf("planProblems(%q, list=%v) = %q, want a problem: %v", tc.detail, tc.list, got, tc.want)
		}
	}
}

// TestDeepPlanProblems checks the checker of deep pages on plans of
// each kind.
func TestDeepPlanProblems(t *testing.T) {
	t.Parallel()
	co := planStep{id: 2, parent: 0, detail: "CO-ROUTINE p"}
	scan := planStep{id: 5, parent: 0, detail: "SCAN p"}
	lookup := planStep{id: 6, parent: 0, detail: "SEARCH c USING PRIMARY KEY (id=?)"}
	tests := []struct {
		name string
		plan []planStep
		want bool // a problem
	}{
		{"covering", []planStep{co, {id: 3, parent: 2, detail: "SEARCH campaigns USING COVERING INDEX campaigns_tenant (account_id=?)"}, scan, lookup}, false},
		{"outer sort", []planStep{co, {id: 3, parent: 2, detail: "SEARCH campaigns USING COVERING INDEX campaigns_tenant (account_id=?)"}, scan, lookup,
			{id: 7, parent: 0, detail: "USE TEMP B-TREE FOR ORDER BY"}}, false},
		{"not covering", []planStep{co, {id: 3, parent: 2, detail: "SEARCH campaigns USING INDEX campaigns_tenant (account_id=?)"}, scan, lookup}, true},
		{"inner sort", []planStep{co, {id: 3, parent: 2, detail: "SEARCH campaigns USING COVERING INDEX campaigns_tenant (account_id=?)"},
			{id: 4, parent: 2, detail: "USE TEMP B-TREE FOR ORDER BY"}, scan, lookup}, true},
		{"no subquery", []planStep{{id: 3, parent: 0, detail: "SEARCH campaigns USING INDEX campaigns_tenant (account_id=?)"}}, true},
		{"table scanned", []planStep{co, {id: 3, parent: 2, detail: "SEARCH campaigns USING COVERING INDEX campaigns_tenant (account_id=?)"}, scan,
			{id: 6, parent: 0, detail: "SCAN c"}}, true},
	}
	for _, tc := range tests {
		problems, rest := deepPlanProblems(tc.plan)
		problems = append(problems, planProblems(rest, false)...)
		if (len(problems) > 0) != tc.want {
			t.Errorf("%s: problems %q, want a problem: %v", tc.name, problems, tc.want)
		}
	}
}
