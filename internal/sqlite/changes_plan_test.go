package sqlite_test

import (
	"strings"
	"testing"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// changePlanQueries are the statements of changes.go: every filter of the
// history, built by the store's own builder, and the purge, cascade and
// ending statements (copies, as planQueries holds).
func changePlanQueries() []planQuery {
	one := []adcamp.Environment{adcamp.Production}
	both := []adcamp.Environment{adcamp.Production, ""}
	var qs []planQuery
	for _, c := range []struct {
		name string
		q    store.ChangeQuery
	}{
		{"tenant", store.ChangeQuery{Environments: one}},
		{"tenant and members", store.ChangeQuery{Environments: both}},
		{"tenant, cursor", store.ChangeQuery{Environments: one, Before: "chg_x"}},
		{"tenant and members, since, until", store.ChangeQuery{Environments: both, From: "chg_a", Before: "chg_x"}},
		{"entity", store.ChangeQuery{Environments: one, EntityID: "cmp_x"}},
		{"entity and members", store.ChangeQuery{Environments: both, EntityID: "usr_x", Before: "chg_x"}},
		{"campaign", store.ChangeQuery{Environments: one, CampaignID: "cmp_x", Before: "chg_x"}},
		{"campaign, entity type", store.ChangeQuery{Environments: one, CampaignID: "cmp_x", EntityType: adcamp.EntityKeyword}},
		{"campaign, actor", store.ChangeQuery{Environments: one, CampaignID: "cmp_x", ActorType: adcamp.ActorUser, ActorID: "usr_x"}},
		{"ad group", store.ChangeQuery{Environments: one, AdGroupID: "adg_x", CampaignID: "cmp_x"}},
		{"ad group alone, since", store.ChangeQuery{Environments: one, AdGroupID: "adg_x", From: "chg_a"}},
		{"campaign in both environments", store.ChangeQuery{Environments: []adcamp.Environment{adcamp.Production, adcamp.Sandbox},
			CampaignID: "cmp_x", Before: "chg_x"}},
		{"entity type", store.ChangeQuery{Environments: one, EntityType: adcamp.EntityAdGroup}},
		{"entity type and actor type", store.ChangeQuery{Environments: one, EntityType: adcamp.EntityCampaign, ActorType: adcamp.ActorUser}},
		{"members", store.ChangeQuery{Environments: []adcamp.Environment{""}, EntityType: adcamp.EntityMember}},
		{"actor type", store.ChangeQuery{Environments: both, ActorType: adcamp.ActorAPIKey}},
		{"actor", store.ChangeQuery{Environments: both, ActorType: adcamp.ActorAPIKey, ActorID: "ak_x", Before: "chg_x"}},
		{"actor, entity type", store.ChangeQuery{Environments: one, ActorType: adcamp.ActorAPIKey, ActorID: "ak_x",
			EntityType: adcamp.EntityCampaign}},
	} {
		c.q.AccountID, c.q.Limit = "acc_x", 51
		query, _ := sqlite.ChangeListSQL(c.q)
		qs = append(qs, planQuery{name: "ListChanges/" + c.name, query: query, list: true})
	}
	return append(qs,
		planQuery{name: "PurgeChanges", query: `DELETE FROM changes WHERE id IN (
		SELECT id FROM changes WHERE id < $1 ORDER BY id LIMIT $2)`},
		planQuery{name: "Subtree/ad groups", query: `SELECT ` + planAdGroupColumns + ` FROM ad_groups
			WHERE campaign_id = $1 AND account_id = $2 AND environment = $3 ORDER BY id`},
		planQuery{name: "Subtree/keywords of a campaign", query: `SELECT ` + planKeywordColumns + ` FROM keywords
			WHERE ad_group_id IN (SELECT id FROM ad_groups WHERE campaign_id = $1)
			AND account_id = $2 AND environment = $3 ORDER BY id`},
		planQuery{name: "Subtree/keywords of an ad group", query: `SELECT ` + planKeywordColumns + ` FROM keywords
			WHERE ad_group_id = $1 AND account_id = $2 AND environment = $3 ORDER BY id`},
		planQuery{name: "DueCampaigns", query: `SELECT id, account_id, environment, name, budget_daily, marketplace,
			channel_account_id, start_date, end_date, status, version, created_at, updated_at, notes
			FROM campaigns INDEXED BY campaigns_due
			WHERE end_date < $1 AND status <> 'ended' AND end_date IS NOT NULL LIMIT $2`},
		planQuery{name: "SetCampaignsEnded", query: `UPDATE campaigns SET status = 'ended'
			WHERE id IN (?,?) AND status <> 'ended'`},
	)
}

// TestChangeQueryPlans: no statement of the history reads a table whole
// or sorts a page after reading it, whatever its filters: each takes the
// index of its most selective filter, in id order, and a filtered one
// never reads the tenant's whole history (changes_tenant).
func TestChangeQueryPlans(t *testing.T) {
	t.Parallel()
	db := openPlanDB(t)
	for _, q := range changePlanQueries() {
		t.Run(q.name, func(t *testing.T) {
			plan := explain(t, db, q.query)
			t.Logf("plan:\n%s", formatPlan(plan))
			// The parts of a query merged in id order (environments,
			// branches) come in order too: nothing is sorted.
			if problems := planProblems(plan, q.list); len(problems) > 0 {
				t.Errorf("%s\nreads without an index: %s. Plan:\n%s", q.query, strings.Join(problems, "; "), formatPlan(plan))
			}
			// The sweep of campaigns past their end date searches the
			// partial index of those not stored as ended, not the table.
			if text := formatPlan(plan); q.name == "DueCampaigns" && !strings.Contains(text, "SEARCH campaigns USING INDEX campaigns_due ") &&
				!strings.Contains(text, "SEARCH campaigns USING COVERING INDEX campaigns_due ") {
				t.Errorf("DueCampaigns does not search campaigns_due. Plan:\n%s", text)
			}
			if q.list && strings.Contains(formatPlan(plan), "changes_tenant") && !strings.HasPrefix(q.name, "ListChanges/tenant") {
				t.Errorf("a filtered history reads the whole tenant's index. Plan:\n%s", formatPlan(plan))
			}
		})
	}
}
