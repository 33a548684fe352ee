package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/postgres/pgtest"
	"github.com/adcamp/adcamp/internal/store"
)

// seedHistory is 50,000 records of one account, oldest first (ids
// chg_ and the number, zero-padded): six in ten of keywords, two of ad
// groups, one of campaigns, the rest of the other types in turn (members'
// in the environment ""), one in fifty in the sandbox. Keyword i lies under
// ad group adg_<i/10 % 500>, which lies under campaign cmp_<its number %
// 100>. The oldest 500 are deletions by the system; of the rest three in
// four are by API keys (ak_0 to ak_2), one in five by people (usr_0 to
// usr_4), one in twenty by admins. So a filter may match a record in a
// thousand, or only records at the far end of the history.
const seedHistory = `INSERT INTO changes (id, occurred_at, account_id, environment, entity_type, entity_id,
	campaign_id, ad_group_id, operation, changes, actor_type, actor_id, request_id, idempotency_key, transaction_id)
SELECT 'chg_' || lpad(i::text, 26, '0'), i, 'acc_big',
	CASE WHEN et = 'member' THEN '' WHEN i % 50 = 1 THEN 'sandbox' ELSE 'production' END,
	et, CASE et WHEN 'keyword' THEN 'kw_' || i WHEN 'ad_group' THEN 'adg_' || g WHEN 'campaign' THEN 'cmp_' || i / 10 % 100
		ELSE et || '_' || i % 7 END,
	CASE WHEN et IN ('keyword', 'ad_group') THEN 'cmp_' || g % 100 WHEN et = 'campaign' THEN 'cmp_' || i / 10 % 100 END,
	CASE WHEN et IN ('keyword', 'ad_group') THEN 'adg_' || g END,
	CASE WHEN i <= 500 THEN 'delete' ELSE 'update' END, '{"name":{"old":"Spring","new":"Summer"}}',
	at, CASE at WHEN 'api_key' THEN 'ak_' || i % 3 WHEN 'user' THEN 'usr_' || i % 5 WHEN 'admin' THEN 'adm_1' ELSE 'system' END,
	'req_' || i, '', 'txn_' || i
FROM generate_series(1, 50000) AS i,
	LATERAL (SELECT i / 10 % 500 AS g,
		CASE WHEN i % 10 < 6 THEN 'keyword' WHEN i % 10 < 8 THEN 'ad_group' WHEN i % 10 = 8 THEN 'campaign'
			ELSE (ARRAY['api_key', 'member', 'account', 'negative_keyword', 'negative_keyword_list',
				'webhook_endpoint'])[i / 10 % 6 + 1] END AS et,
		CASE WHEN i <= 500 THEN 'system' WHEN i % 20 < 15 THEN 'api_key' WHEN i % 20 < 19 THEN 'user' ELSE 'admin' END AS at) AS k`

// historyID is the id of the seed's record i.
func historyID(i int) string { return fmt.Sprintf("chg_%026d", i) }

// planNode is a node of a plan in EXPLAIN's JSON.
type planNode struct {
	Type       string     `json:"Node Type"`
	Relation   string     `json:"Relation Name"`
	Rows       float64    `json:"Actual Rows"`
	Loops      float64    `json:"Actual Loops"`
	SharedHit  int64      `json:"Shared Hit Blocks"`
	SharedRead int64      `json:"Shared Read Blocks"`
	Plans      []planNode `json:"Plans"`
}

// walk calls fn on n and every node under it.
func (n *planNode) walk(fn func(*planNode)) {
	fn(n)
	for i := range n.Plans {
		n.Plans[i].walk(fn)
	}
}

// pageProblems is what is wrong with the plan of a page of the history
// that merges parts ranges of at most limit records each: more than
// maxBlocks blocks read, a table read whole, or a sort of more rows than
// the parts' pages hold (a few records found by a bitmap may be sorted).
// nil when none.
func pageProblems(plan *planNode, parts, limit int, maxBlocks int64) []string {
	var problems []string
	if blocks := plan.SharedHit + plan.SharedRead; blocks > maxBlocks {
		problems = append(problems, fmt.Sprintf("%d blocks read, want at most %d", blocks, maxBlocks))
	}
	plan.walk(func(n *planNode) {
		switch {
		case n.Type == "Seq Scan":
			problems = append(problems, fmt.Sprintf("%s on %s", n.Type, n.Relation))
		case n.Type == "Sort":
			in := 0.0
			for _, c := range n.Plans {
				in += c.Rows * c.Loops
			}
			if in > float64(parts*limit) {
				problems = append(problems, fmt.Sprintf("a Sort of %.0f rows, more than %d parts of %d", in, parts, limit))
			}
		}
	})
	return problems
}

// explainPage runs sql with args under EXPLAIN (ANALYZE, BUFFERS), planned
// for these values as ListChanges has it planned (see planned), and
// returns its plan, as text and as a tree.
func explainPage(t *testing.T, conn *pgx.Conn, sql string, args []any) (string, *planNode) {
	t.Helper()
	var out [][]byte
	for _, format := range []string{"TEXT", "JSON"} {
		rows, err := conn.Query(context.Background(), `EXPLAIN (ANALYZE, BUFFERS, FORMAT `+format+`) `+sql, args...)
		if err != nil {
			t.Fatalf("EXPLAIN %s: %v", sql, err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("EXPLAIN %s: %v", sql, err)
		}
		out = append(out, []byte(strings.Join(lines, "\n")))
	}
	var plans []struct{ Plan planNode }
	if err := json.Unmarshal(out[1], &plans); err != nil || len(plans) != 1 {
		t.Fatalf("EXPLAIN (FORMAT JSON) %s = %s: %v", sql, out[1], err)
	}
	return string(out[0]), &plans[0].Plan
}

// TestChangePagesReadAPage: a page of 50 of a history of 50,000 records,
// under every filter of ListChanges (those of SQLite's
// TestChangeQueryPlans), planned for its values as ListChanges has it,
// reads a few ranges of an index in id order, a page from each at most:
// fewer than 200 blocks, and no sort of more than those pages. A plan
// that reads the tenant's history to sort it or to filter it reads
// thousands (the first cases check that the check sees it).
func TestChangePagesReadAPage(t *testing.T) {
	t.Parallel()
	s := pgtest.NewSchema(t)
	openCounts(t, s.URL)
	conn := connect(t, s.URL)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, seedHistory); err != nil {
		t.Fatalf("seed: %v", err)
	}
	if _, err := conn.Exec(ctx, `ANALYZE changes`); err != nil {
		t.Fatal(err)
	}
	const limit, maxBlocks = 51, 200

	// The check itself: the newest deletions (the oldest records) found
	// through the tenant's history, and a kind's records sorted.
	for name, sql := range map[string]string{
		"scan": `SELECT ` + changeColumns + ` FROM changes WHERE account_id = $1 AND environment = $2
			AND operation = 'delete' ORDER BY id DESC LIMIT $3`,
		"sort": `SELECT ` + changeColumns + ` FROM changes WHERE account_id = $1 AND environment = $2
			AND entity_type = 'campaign' ORDER BY occurred_at DESC LIMIT $3`,
	} {
		text, plan := explainPage(t, conn, sql, []any{"acc_big", "production", limit})
		if pageProblems(plan, 1, limit, maxBlocks) == nil {
			t.Errorf("control %q: no problem found in a plan of the whole history:\n%s", name, text)
		}
	}

	one := []adcamp.Environment{adcamp.Production}
	both := []adcamp.Environment{adcamp.Production, ""}
	for _, c := range []struct {
		name string
		q    store.ChangeQuery
	}{
		{"tenant", store.ChangeQuery{Environments: one}},
		{"tenant and members", store.ChangeQuery{Environments: both}},
		{"tenant, cursor", store.ChangeQuery{Environments: one, Before: historyID(30_000)}},
		{"tenant and members, since, until", store.ChangeQuery{Environments: both, From: historyID(1000), Before: historyID(20_000)}},
		{"entity", store.ChangeQuery{Environments: one, EntityID: "cmp_5"}},
		{"entity, cursor", store.ChangeQuery{Environments: one, EntityID: "adg_105", Before: historyID(40_000)}},
		{"entity and members", store.ChangeQuery{Environments: both, EntityID: "member_3"}},
		{"campaign", store.ChangeQuery{Environments: one, CampaignID: "cmp_5"}},
		{"campaign, cursor", store.ChangeQuery{Environments: one, CampaignID: "cmp_5", Before: historyID(40_000)}},
		{"campaign, entity type", store.ChangeQuery{Environments: one, CampaignID: "cmp_5", EntityType: adcamp.EntityKeyword}},
		{"campaign, own type", store.ChangeQuery{Environments: one, CampaignID: "cmp_5", EntityType: adcamp.EntityCampaign}},
		{"campaign, actor", store.ChangeQuery{Environments: one, CampaignID: "cmp_5", ActorType: adcamp.ActorUser, ActorID: "usr_1"}},
		{"campaign in both environments", store.ChangeQuery{Environments: []adcamp.Environment{adcamp.Production, adcamp.Sandbox},
			CampaignID: "cmp_5", Before: historyID(45_000)}},
		{"ad group", store.ChangeQuery{Environments: one, AdGroupID: "adg_105", CampaignID: "cmp_5"}},
		{"ad group alone, since", store.ChangeQuery{Environments: one, AdGroupID: "adg_105", From: historyID(10_000)}},
		{"entity type", store.ChangeQuery{Environments: one, EntityType: adcamp.EntityAdGroup}},
		{"rare entity type", store.ChangeQuery{Environments: one, EntityType: adcamp.EntityWebhookEndpoint}},
		{"entity type, cursor", store.ChangeQuery{Environments: one, EntityType: adcamp.EntityCampaign, Before: historyID(25_000)}},
		{"entity type and actor type", store.ChangeQuery{Environments: one, EntityType: adcamp.EntityCampaign, ActorType: adcamp.ActorUser}},
		{"old entity type and actor type", store.ChangeQuery{Environments: one, EntityType: adcamp.EntityKeyword, ActorType: adcamp.ActorSystem}},
		{"members", store.ChangeQuery{Environments: []adcamp.Environment{""}, EntityType: adcamp.EntityMember}},
		{"actor type", store.ChangeQuery{Environments: both, ActorType: adcamp.ActorAPIKey}},
		{"rare actor type", store.ChangeQuery{Environments: one, ActorType: adcamp.ActorAdmin}},
		{"old actor type", store.ChangeQuery{Environments: both, ActorType: adcamp.ActorSystem}},
		{"actor", store.ChangeQuery{Environments: both, ActorType: adcamp.ActorAPIKey, ActorID: "ak_1", Before: historyID(30_000)}},
		{"actor alone", store.ChangeQuery{Environments: one, ActorID: "adm_1"}},
		{"actor, entity type", store.ChangeQuery{Environments: one, ActorType: adcamp.ActorAPIKey, ActorID: "ak_1",
			EntityType: adcamp.EntityCampaign}},
	} {
		c.q.AccountID, c.q.Limit = "acc_big", limit
		sql, args := changeListSQL(c.q)
		parts := strings.Count(sql, "SELECT ")
		t.Run(c.name, func(t *testing.T) {
			text, plan := explainPage(t, conn, sql, args)
			t.Logf("%d parts, plan:\n%s", parts, text)
			if problems := pageProblems(plan, parts, limit, maxBlocks); problems != nil {
				t.Errorf("%s\n%s. Plan:\n%s", sql, strings.Join(problems, "; "), text)
			}
			if plan.Rows == 0 {
				t.Errorf("the page is empty: the seed has records for every filter here")
			}
		})
	}
}
