package httpapi_test

import (
	"strings"
	"testing"
)

// TestChanges: the history over HTTP names the key and the request of
// each change, pages by cursor while changes keep coming, reads a deleted
// campaign's records, and refuses bad parameters.
func TestChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, sandbox := e.account("Acme")
	other, _ := e.account("Other")
	cid, gid := prod.tree()
	r := prod.do("PUT", "/campaigns/"+cid, `{"budget_daily":40,"status":"paused"}`)
	want(t, r, 200, "")
	updateRequest := r.Header.Get("X-Request-Id")
	kw := prod.do("POST", "/ad-groups/"+gid+"/keywords", `{"items":[{"text":"red","match_type":"exact"},{"text":"blue","match_type":"broad","bid":1.1}]}`,
		"Idempotency-Key: batch-1")
	want(t, kw, 201, "")

	page := prod.do("GET", "/changes?limit=2", "")
	want(t, page, 200, "")
	items := page.Data()["items"].([]any)
	first := items[0].(map[string]any)
	if len(items) != 2 || first["operation"] != "create" || first["entity_type"] != "keyword" || first["idempotency_key"] != "batch-1" ||
		first["campaign_id"] != cid || first["ad_group_id"] != gid || first["environment"] != "production" ||
		first["actor"].(map[string]any)["id"] != prod.key || first["transaction_id"] != items[1].(map[string]any)["transaction_id"] {
		t.Errorf("first page = %s", page.Raw)
	}
	// More changes while paging: they come in above, the pages go on.
	prod.do("PUT", "/ad-groups/"+gid, `{"name":"Boots"}`)
	next := page.Data()["next_cursor"].(string)
	page = prod.do("GET", "/changes?limit=2&cursor="+next, "")
	items = page.Data()["items"].([]any)
	upd := items[0].(map[string]any)
	// Money as the entity shows it: a number with two decimals.
	if len(items) != 2 || upd["request_id"] != updateRequest ||
		!strings.Contains(string(page.Raw), `"changes":{"budget_daily":{"old":12.50,"new":40.00},"status":{"old":"active","new":"paused"}}`) {
		t.Errorf("second page = %s", page.Raw)
	}
	page = prod.do("GET", "/changes?limit=2&cursor="+page.Data()["next_cursor"].(string), "")
	// The campaign's create, and the key's (by the system: made in the test's setup).
	if items := page.Data()["items"].([]any); len(items) != 2 || page.Data()["next_cursor"] != nil {
		t.Errorf("last page = %s", page.Raw)
	}

	want(t, prod.do("DELETE", "/campaigns/"+cid, ""), 200, "")
	for p, wantN := range map[string]int{
		"/campaigns/" + cid + "/changes": 10, "/campaigns/" + cid + "/changes?entity_type=keyword": 4,
		"/ad-groups/" + gid + "/changes": 7, "/changes?campaign_id=" + cid + "&actor_type=api_key": 10,
	} {
		r := prod.do("GET", p, "")
		want(t, r, 200, "")
		if n := len(r.Data()["items"].([]any)); n != wantN {
			t.Errorf("GET %s = %d records, want %d: %s", p, n, wantN, r.Raw)
		}
	}
	// Another account, and the sandbox, see none of it.
	for _, c := range []*apiClient{other, sandbox} {
		if r := c.do("GET", "/campaigns/"+cid+"/changes", ""); len(r.Data()["items"].([]any)) != 0 {
			t.Errorf("another tenant's view = %s", r.Raw)
		}
		if r := c.do("GET", "/changes?campaign_id="+cid, ""); len(r.Data()["items"].([]any)) != 0 {
			t.Errorf("another tenant's view = %s", r.Raw)
		}
	}
	want(t, prod.do("GET", "/campaigns/"+gid+"/changes", ""), 404, "NOT_FOUND")
	for _, q := range []string{"limit=0", "limit=201", "limit=x", "cursor=abc", "entity_type=widget", "actor_type=robot",
		"since=yesterday", "since=2026-11-23T00:00:00Z&until=2026-11-22T00:00:00Z", "sort=id", "limit=1&limit=2", "actor_id="} {
		want(t, prod.do("GET", "/changes?"+q, ""), 400, "VALIDATION_ERROR")
	}
}
