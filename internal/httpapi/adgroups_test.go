package httpapi_test

import (
	"github.com/google/go-cmp/cmp"

	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// tree creates a campaign with one ad group and returns their ids.
func (c *apiClient) tree() (campaignID, adGroupID string) {
	c.t.Helper()
	campaignID = c.createCampaign(validCampaign)["id"].(string)
	r := c.do("POST", "/campaigns/"+campaignID+"/ad-groups", `{"name":"Shoes","default_bid":0.75}`)
	want(c.t, r, 201, "")
	return campaignID, r.Data()["id"].(string)
}

func TestAdGroupLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	cid := prod.createCampaign(validCampaign)["id"].(string)

	r := prod.do("POST", "/campaigns/"+cid+"/ad-groups", `{"name":" Shoes ","default_bid":0.75}`)
	want(t, r, 201, "")
	id := r.Data()["id"].(string)
	wantData := map[string]any{"id": id, "campaign_id": cid, "name": "Shoes", "default_bid": 0.75, "status": "active",
		"version": 1.0, "created_at": "2026-11-22T09:30:00Z", "updated_at": "2026-11-22T09:30:00Z"}
	if diff := cmp.Diff(wantData, r.Data()); !strings.HasPrefix(id, "adg_") || diff != "" {
		t.Errorf("created %s (-want +got):\n%s", id, diff)
	}
	if r.Header.Get("Location") != "/api/v1/open/ad-groups/"+id || r.Header.Get("ETag") != `"1"` {
		t.Errorf("Location %q ETag %q", r.Header.Get("Location"), r.Header.Get("ETag"))
	}
	if diff := cmp.Diff(wantData, prod.do("GET", "/ad-groups/"+id, "").Data()); diff != "" {
		t.Errorf("get (-want +got):\n%s", diff)
	}
	e.clock.Advance(time.Second)
	r = prod.do("PUT", "/ad-groups/"+id, `{"default_bid":1,"status":"paused"}`, `If-Match: "1"`)
	want(t, r, 200, "")
	if d := r.Data(); d["default_bid"] != 1.0 || d["status"] != "paused" || d["name"] != "Shoes" || d["version"] != 2.0 {
		t.Errorf("updated = %v", d)
	}
	want(t, prod.do("PUT", "/ad-groups/"+id, `{"name":"x"}`, `If-Match: "1"`), 412, "PRECONDITION_FAILED")
	want(t, prod.do("PUT", "/ad-groups/"+id, `{"status":"active"}`), 200, "")

	prod.do("POST", "/campaigns/"+cid+"/ad-groups", `{"name":"Hats","default_bid":0.5,"status":"paused"}`)
	list := prod.do("GET", "/campaigns/"+cid+"/ad-groups", "")
	want(t, list, 200, "")
	if list.Data()["total_items"] != 2.0 {
		t.Errorf("list = %v", list.Data())
	}
	paused := prod.do("GET", "/campaigns/"+cid+"/ad-groups?status=paused&page_size=1", "").Data()
	items := paused["items"].([]any)
	if paused["total_items"] != 1.0 || len(items) != 1 || items[0].(map[string]any)["name"] != "Hats" {
		t.Errorf("paused filter = %v", paused)
	}
	want(t, prod.do("GET", "/campaigns/"+cid+"/ad-groups?status=ended", ""), 400, "VALIDATION_ERROR")
	want(t, prod.do("GET", "/campaigns/"+cid+"/ad-groups?page_size=101", ""), 400, "VALIDATION_ERROR")

	r = prod.do("DELETE", "/ad-groups/"+id, "")
	want(t, r, 200, "")
	if !reflect.DeepEqual(r.Data(), map[string]any{"id": id, "deleted": true, "deleted_keywords": 0.0}) {
		t.Errorf("delete = %v", r.Data())
	}
	want(t, prod.do("GET", "/ad-groups/"+id, ""), 404, "NOT_FOUND")
}

func TestAdGroupValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	cid, id := prod.tree()
	tests := []struct {
		method, path, body string
		fields             []string
	}{
		{"POST", "/campaigns/" + cid + "/ad-groups", `{}`, []string{"name", "default_bid"}},
		{"POST", "/campaigns/" + cid + "/ad-groups", `{"name":"","default_bid":0,"status":"ended","version":1,"campaign_id":"x","foo":1}`,
			[]string{"campaign_id", "foo", "version", "name", "default_bid", "status"}},
		{"POST", "/campaigns/" + cid + "/ad-groups", `{"name":"` + strings.Repeat("n", 201) + `","default_bid":1.001}`, []string{"name", "default_bid"}},
		{"PUT", "/ad-groups/" + id, `{}`, []string{"body"}},
		{"PUT", "/ad-groups/" + id, `{"name":null,"default_bid":null,"status":null}`, []string{"name", "default_bid", "status"}},
		{"PUT", "/ad-groups/" + id, `{"default_bid":-1,"id":"adg_x"}`, []string{"id", "default_bid"}},
	}
	before := prod.do("GET", "/ad-groups/"+id, "").Data()
	for _, tt := range tests {
		r := prod.do(tt.method, tt.path, tt.body)
		want(t, r, 400, "VALIDATION_ERROR")
		if got := fields(r); !reflect.DeepEqual(got, tt.fields) {
			t.Errorf("%s %s %s: fields %v, want %v", tt.method, tt.path, tt.body, got, tt.fields)
		}
	}
	want(t, prod.do("POST", "/campaigns/"+cid+"/ad-groups", `{"name":1,"default_bid":1}`), 400, "INVALID_JSON")
	if diff := cmp.Diff(before, prod.do("GET", "/ad-groups/"+id, "").Data()); diff != "" {
		t.Errorf("refused updates changed the ad group (-before +after):\n%s", diff)
	}
	if n := prod.do("GET", "/campaigns/"+cid+"/ad-groups", "").Data()["total_items"]; n != 1.0 {
		t.Errorf("refused creates stored ad groups: total %v", n)
	}
	want(t, prod.do("POST", "/campaigns/cmp_01m80t2kkwsacm5qs1n4qnkzps/ad-groups", `{"name":"a","default_bid":1}`), 404, "NOT_FOUND")
	want(t, prod.do("GET", "/campaigns/cmp_01m80t2kkwsacm5qs1n4qnkzps/ad-groups", ""), 404, "NOT_FOUND")
	r := prod.do("POST", "/campaigns/"+cid+"/ad-groups?validate_only=true", `{"name":"dry","default_bid":1}`)
	want(t, r, 200, "")
	if n := prod.do("GET", "/campaigns/"+cid+"/ad-groups", "").Data()["total_items"]; n != 1.0 {
		t.Errorf("validate_only stored an ad group: total %v", n)
	}
}

// TestEndedCampaignIsFrozen: nothing under an ended campaign can be
// created or changed (409), reads still work, and the campaign can go.
func TestEndedCampaignIsFrozen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	cid, gid := prod.tree()
	kid := prod.do("POST", "/ad-groups/"+gid+"/keywords", `{"text":"red shoes","match_type":"exact"}`).Data()["id"].(string)
	want(t, prod.do("PUT", "/campaigns/"+cid, `{"status":"ended"}`), 200, "")
	for _, req := range []struct{ method, path, body string }{
		{"POST", "/campaigns/" + cid + "/ad-groups", `{"name":"a","default_bid":1}`},
		{"PUT", "/ad-groups/" + gid, `{"name":"b"}`},
		{"DELETE", "/ad-groups/" + gid, ""},
		{"POST", "/ad-groups/" + gid + "/keywords", `{"text":"blue shoes","match_type":"exact"}`},
		{"POST", "/ad-groups/" + gid + "/keywords?partial_failure=true", `{"items":[{"text":"blue shoes","match_type":"exact"}]}`},
		{"PUT", "/keywords/" + kid, `{"bid":2}`},
		{"DELETE", "/keywords/" + kid, ""},
	} {
		r := prod.do(req.method, req.path, req.body)
		if r.Status != 409 || r.Code() != "INVALID_STATE_TRANSITION" {
			t.Errorf("%s %s under an ended campaign = %d %s, want 409 INVALID_STATE_TRANSITION", req.method, req.path, r.Status, r.Code())
		}
	}
	want(t, prod.do("GET", "/ad-groups/"+gid, ""), 200, "")
	want(t, prod.do("GET", "/ad-groups/"+gid+"/keywords", ""), 200, "")
	want(t, prod.do("GET", "/keywords/"+kid, ""), 200, "")
	want(t, prod.do("DELETE", "/campaigns/"+cid, ""), 200, "")
}

// TestCascades: deleting a campaign takes its ad groups and keywords in
// one transaction; deleting an ad group takes its keywords.
func TestCascades(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	cid := prod.createCampaign(validCampaign)["id"].(string)
	other, otherGroup := prod.tree()
	var groups, kws []string
	for g := range 3 {
		r := prod.do("POST", "/campaigns/"+cid+"/ad-groups", fmt.Sprintf(`{"name":"g%d","default_bid":1}`, g))
		gid := r.Data()["id"].(string)
		groups = append(groups, gid)
		r = prod.do("POST", "/ad-groups/"+gid+"/keywords", batchBody(5, "kw", "exact"))
		want(t, r, 201, "")
		for _, it := range r.Data()["items"].([]any) {
			kws = append(kws, it.(map[string]any)["id"].(string))
		}
	}
	prod.do("POST", "/ad-groups/"+otherGroup+"/keywords", batchBody(2, "kw", "exact"))

	r := prod.do("DELETE", "/ad-groups/"+groups[0], "")
	if r.Data()["deleted_keywords"] != 5.0 {
		t.Errorf("ad group delete = %v, want 5 keywords deleted", r.Data())
	}
	for _, k := range kws[:5] {
		want(t, prod.do("GET", "/keywords/"+k, ""), 404, "NOT_FOUND")
	}
	want(t, prod.do("GET", "/keywords/"+kws[5], ""), 200, "")

	r = prod.do("DELETE", "/campaigns/"+cid, "")
	if r.Data()["deleted_ad_groups"] != 2.0 || r.Data()["deleted_keywords"] != 10.0 {
		t.Errorf("campaign delete = %v, want 2 ad groups and 10 keywords", r.Data())
	}
	for _, g := range groups {
		want(t, prod.do("GET", "/ad-groups/"+g, ""), 404, "NOT_FOUND")
	}
	for _, k := range kws {
		want(t, prod.do("GET", "/keywords/"+k, ""), 404, "NOT_FOUND")
	}
	// The other campaign's tree is untouched.
	want(t, prod.do("GET", "/campaigns/"+other, ""), 200, "")
	if n := prod.do("GET", "/ad-groups/"+otherGroup+"/keywords", "").Data()["total_items"]; n != 2.0 {
		t.Errorf("other ad group has %v keywords, want 2", n)
	}
}

func TestChannelAccountsList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, sandbox := e.account("Acme")
	other, _ := e.account("Other")
	ctx := context.Background()
	for i, m := range []string{"US", "DE", "JP"} {
		if _, err := e.svc.CreateChannelAccount(ctx, prod.accountID, m, fmt.Sprintf("Acme %d", i)); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(time.Second)
	}
	if _, err := e.svc.CreateChannelAccount(ctx, other.accountID, "US", "Other US"); err != nil {
		t.Fatal(err)
	}
	r := prod.do("GET", "/channel-accounts?page_size=2", "")
	want(t, r, 200, "")
	d := r.Data()
	items := d["items"].([]any)
	if d["total_items"] != 3.0 || d["total_pages"] != 2.0 || len(items) != 2 {
		t.Fatalf("channel accounts = %v", d)
	}
	first := items[0].(map[string]any)
	if first["marketplace"] != "JP" || first["name"] != "Acme 2" || first["id"] == nil || first["created_at"] == nil {
		t.Errorf("first channel account = %v, want the newest (JP) with id, marketplace, name", first)
	}
	if n := sandbox.do("GET", "/channel-accounts", "").Data()["total_items"]; n != 3.0 {
		t.Errorf("sandbox sees %v channel accounts, want the account's 3", n)
	}
	if n := other.do("GET", "/channel-accounts", "").Data()["total_items"]; n != 1.0 {
		t.Errorf("other account sees %v channel accounts, want its 1", n)
	}
	want(t, prod.do("GET", "/channel-accounts?page=0", ""), 400, "VALIDATION_ERROR")
	want(t, prod.do("GET", "/channel-accounts?status=active", ""), 400, "VALIDATION_ERROR")
}
