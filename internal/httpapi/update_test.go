package httpapi_test

import (
	"github.com/google/go-cmp/cmp"

	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestUpdateCampaign(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	d := prod.createCampaign(`{"name":"a","budget_daily":1,"marketplace":"US","start_date":"2026-12-01","end_date":"2026-12-31"}`)
	id := d["id"].(string)
	e.clock.Advance(time.Minute)

	r := prod.do("PUT", "/campaigns/"+id, `{"name":"b","budget_daily":2.25,"end_date":null}`)
	want(t, r, 200, "")
	got := r.Data()
	wantData := map[string]any{
		"id": id, "name": "b", "budget_daily": 2.25, "marketplace": "US", "channel_account_id": nil,
		"start_date": "2026-12-01", "end_date": nil, "status": "active", "notes": nil, "version": float64(2),
		"serving_status": "not_started", "spend_today": float64(0),
		"created_at": "2026-11-22T09:30:00Z", "updated_at": "2026-11-22T09:31:00Z",
	}
	if diff := cmp.Diff(wantData, got); diff != "" {
		t.Errorf("updated (-want +got):\n%s", diff)
	}
	if r.Header.Get("ETag") != `"2"` {
		t.Errorf("ETag = %q, want \"2\"", r.Header.Get("ETag"))
	}
	if diff := cmp.Diff(wantData, prod.do("GET", "/campaigns/"+id, "").Data()); diff != "" {
		t.Errorf("get after update (-want +got):\n%s", diff)
	}
	r = prod.do("PUT", "/campaigns/"+id, `{"start_date":null}`)
	if r.Data()["start_date"] != nil || r.Data()["name"] != "b" {
		t.Errorf("after clearing start_date: %v", r.Data())
	}
}

// TestRejectedUpdatesChangeNothing: every refused update leaves the
// campaign exactly as it was.
func TestRejectedUpdatesChangeNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	d := prod.createCampaign(`{"name":"a","budget_daily":1,"marketplace":"US","start_date":"2026-12-01"}`)
	id := d["id"].(string)
	before := prod.do("GET", "/campaigns/"+id, "").Data()
	tests := []struct {
		body    string
		headers []string
		status  int
		code    string
	}{
		{`{}`, nil, 400, "VALIDATION_ERROR"},
		{`{"version":1}`, nil, 400, "VALIDATION_ERROR"},
		{`{"name":"ok","budget_daily":0}`, nil, 400, "VALIDATION_ERROR"},
		{`{"name":"ok","marketplace":"DE"}`, nil, 400, "VALIDATION_ERROR"},
		{`{"name":"ok","channel_account_id":1}`, nil, 400, "VALIDATION_ERROR"},
		{`{"name":"ok","id":"cmp_x"}`, nil, 400, "VALIDATION_ERROR"},
		{`{"name":"ok","created_at":"2026-01-01T00:00:00Z"}`, nil, 400, "VALIDATION_ERROR"},
		{`{"name":"ok","bogus":true}`, nil, 400, "VALIDATION_ERROR"},
		{`{"name":null}`, nil, 400, "VALIDATION_ERROR"},
		{`{"status":null}`, nil, 400, "VALIDATION_ERROR"},
		{`{"status":"deleted"}`, nil, 400, "VALIDATION_ERROR"},
		{`{"end_date":"2026-11-30"}`, nil, 400, "VALIDATION_ERROR"},                   // before start_date
		{`{"end_date":"2026-11-01","start_date":null}`, nil, 400, "VALIDATION_ERROR"}, // before today
		{`{"name":"ok","name":"ok"}`, nil, 400, "INVALID_JSON"},
		{`{"name":5}`, nil, 400, "INVALID_JSON"},
		{`{"name":"ok"}`, []string{`If-Match: "7"`}, 412, "PRECONDITION_FAILED"},
		{`{"name":"ok"}`, []string{`If-Match: W/"2", "3"`}, 412, "PRECONDITION_FAILED"},
		{`{"name":"ok","version":3}`, nil, 412, "PRECONDITION_FAILED"},
		{`{"name":"ok","version":1}`, []string{`If-Match: "2"`}, 412, "PRECONDITION_FAILED"},
		{`{"name":"ok"}`, []string{"Content-Type: text/plain"}, 415, "UNSUPPORTED_MEDIA_TYPE"},
	}
	for _, tt := range tests {
		r := prod.do("PUT", "/campaigns/"+id, tt.body, tt.headers...)
		if r.Status != tt.status || r.Code() != tt.code {
			t.Errorf("PUT %s %v = %d %s, want %d %s", tt.body, tt.headers, r.Status, r.Code(), tt.status, tt.code)
		}
		if diff := cmp.Diff(before, prod.do("GET", "/campaigns/"+id, "").Data()); diff != "" {
			t.Fatalf("PUT %s changed the campaign (-before +after):\n%s", tt.body, diff)
		}
	}
	r := prod.do("PUT", "/campaigns/"+id, `{"name":"","budget_daily":"x"}`)
	want(t, r, 400, "INVALID_JSON")
	r = prod.do("PUT", "/campaigns/"+id, `{"name":"","budget_daily":-1,"status":"gone","bogus":1}`)
	want(t, r, 400, "VALIDATION_ERROR")
	if f := fields(r); !reflect.DeepEqual(f, []string{"bogus", "name", "budget_daily", "status"}) {
		t.Errorf("fields = %v, want every bad field", f)
	}
}

func TestPreconditions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	id := prod.createCampaign(validCampaign)["id"].(string)
	want(t, prod.do("PUT", "/campaigns/"+id, `{"name":"v2"}`, `If-Match: "1"`), 200, "")
	want(t, prod.do("PUT", "/campaigns/"+id, `{"name":"v3"}`, `If-Match: "1"`), 412, "PRECONDITION_FAILED")
	// If-Match compares strongly (RFC 9110): a weak tag never matches.
	want(t, prod.do("PUT", "/campaigns/"+id, `{"name":"v3"}`, `If-Match: W/"2"`), 412, "PRECONDITION_FAILED")
	want(t, prod.do("DELETE", "/campaigns/"+id, "", `If-Match: W/"2"`), 412, "PRECONDITION_FAILED")
	want(t, prod.do("PUT", "/campaigns/"+id, `{"name":"v3"}`, `If-Match: W/"2", "2"`), 200, "")
	want(t, prod.do("PUT", "/campaigns/"+id, `{"name":"v4","version":3}`), 200, "")
	want(t, prod.do("PUT", "/campaigns/"+id, `{"name":"v5"}`, `If-Match: *`), 200, "")
	want(t, prod.do("PUT", "/campaigns/"+id, `{"name":"v6"}`, `If-Match: "1", "5"`), 200, "")
	want(t, prod.do("DELETE", "/campaigns/"+id, "", `If-Match: "5"`), 412, "PRECONDITION_FAILED")
	want(t, prod.do("GET", "/campaigns/"+id, ""), 200, "")
	want(t, prod.do("DELETE", "/campaigns/"+id, "", `If-Match: "6"`), 200, "")
}

func TestStatusTransitions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	tests := []struct {
		path   []string // statuses set in turn after create (active)
		status int      // answer to the last step
	}{
		{[]string{"paused"}, 200},
		{[]string{"paused", "active"}, 200},
		{[]string{"active"}, 200},
		{[]string{"ended"}, 200},
		{[]string{"paused", "ended"}, 200},
		{[]string{"paused", "paused"}, 200},
		{[]string{"ended", "active"}, 409},
		{[]string{"ended", "paused"}, 409},
		{[]string{"ended", "ended"}, 409},
	}
	for _, tt := range tests {
		id := prod.createCampaign(validCampaign)["id"].(string)
		var r *response
		for _, s := range tt.path {
			r = prod.do("PUT", "/campaigns/"+id, fmt.Sprintf(`{"status":%q}`, s))
		}
		if r.Status != tt.status {
			t.Errorf("active → %v: last answer %d %s, want %d", tt.path, r.Status, r.Code(), tt.status)
		}
		if tt.status == 409 && r.Code() != "INVALID_STATE_TRANSITION" {
			t.Errorf("active → %v: code %s, want INVALID_STATE_TRANSITION", tt.path, r.Code())
		}
		wantStatus := tt.path[len(tt.path)-1]
		if tt.status == 409 {
			wantStatus = "ended"
		}
		if got := prod.do("GET", "/campaigns/"+id, "").Data()["status"]; got != wantStatus {
			t.Errorf("active → %v: status %v, want %s", tt.path, got, wantStatus)
		}
	}
	// An ended campaign accepts no change at all, but can be deleted.
	id := prod.createCampaign(validCampaign)["id"].(string)
	prod.do("PUT", "/campaigns/"+id, `{"status":"ended"}`)
	want(t, prod.do("PUT", "/campaigns/"+id, `{"name":"new"}`), 409, "INVALID_STATE_TRANSITION")
	want(t, prod.do("DELETE", "/campaigns/"+id, ""), 200, "")
}

func TestValidateOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	r := prod.do("POST", "/campaigns?validate_only=true", validCampaign)
	want(t, r, 200, "")
	if r.Data()["name"] != "Spring sale" || r.Header.Get("Location") != "" {
		t.Errorf("dry-run create = %v (Location %q)", r.Data(), r.Header.Get("Location"))
	}
	want(t, prod.do("POST", "/campaigns?validate_only=true", `{"name":""}`), 400, "VALIDATION_ERROR")
	want(t, prod.do("POST", "/campaigns?validate_only=maybe", validCampaign), 400, "VALIDATION_ERROR")
	if n := prod.do("GET", "/campaigns", "").Data()["total_items"]; n != float64(0) {
		t.Fatalf("a dry run stored something: total_items = %v", n)
	}
	id := prod.createCampaign(validCampaign)["id"].(string)
	r = prod.do("PUT", "/campaigns/"+id+"?validate_only=true", `{"name":"renamed","status":"paused"}`)
	want(t, r, 200, "")
	if r.Data()["name"] != "renamed" || r.Data()["version"] != float64(2) {
		t.Errorf("dry-run update = %v, want the campaign as it would be", r.Data())
	}
	g := prod.do("GET", "/campaigns/"+id, "").Data()
	if g["name"] != "Spring sale" || g["status"] != "active" || g["version"] != float64(1) {
		t.Errorf("a dry-run update changed the campaign: %v", g)
	}
	want(t, prod.do("PUT", "/campaigns/"+id+"?validate_only=true", `{"status":"bad"}`), 400, "VALIDATION_ERROR")
	want(t, prod.do("POST", "/campaigns?validate_only=false", validCampaign), 201, "")
}

func TestDeleteCampaign(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	id := prod.createCampaign(validCampaign)["id"].(string)
	r := prod.do("DELETE", "/campaigns/"+id, "")
	want(t, r, 200, "")
	if !reflect.DeepEqual(r.Data(), map[string]any{"id": id, "deleted": true, "deleted_ad_groups": 0.0, "deleted_keywords": 0.0}) {
		t.Errorf("delete = %v", r.Data())
	}
	want(t, prod.do("GET", "/campaigns/"+id, ""), 404, "NOT_FOUND")
	want(t, prod.do("DELETE", "/campaigns/"+id, ""), 404, "NOT_FOUND")
	want(t, prod.do("PUT", "/campaigns/"+id, `{"name":"x"}`), 404, "NOT_FOUND")
}

// TestTenancy: another account's or environment's campaign is answered
// exactly as a missing one, on every route.
func TestTenancy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acme, acmeSandbox := e.account("Acme")
	other, _ := e.account("Other")
	id := acme.createCampaign(validCampaign)["id"].(string)
	sandboxID := acmeSandbox.createCampaign(validCampaign)["id"].(string)

	for _, c := range []struct {
		name   string
		client *apiClient
		id     string
	}{{"other account", other, id}, {"sandbox key, production campaign", acmeSandbox, id}, {"production key, sandbox campaign", acme, sandboxID}} {
		want(t, c.client.do("GET", "/campaigns/"+c.id, ""), 404, "NOT_FOUND")
		want(t, c.client.do("PUT", "/campaigns/"+c.id, `{"name":"stolen"}`), 404, "NOT_FOUND")
		want(t, c.client.do("DELETE", "/campaigns/"+c.id, ""), 404, "NOT_FOUND")
	}
	missing := other.do("GET", "/campaigns/cmp_01m80t2kkwsacm5qs1n4qnkzps", "")
	foreign := other.do("GET", "/campaigns/"+id, "")
	if missing.Error()["message"] != fmt.Sprintf("campaign %q not found", "cmp_01m80t2kkwsacm5qs1n4qnkzps") ||
		foreign.Error()["message"] != fmt.Sprintf("campaign %q not found", id) {
		t.Errorf("a foreign id is answered differently from a missing one: %s vs %s", foreign.Raw, missing.Raw)
	}
	for _, c := range []*apiClient{other} {
		if n := c.do("GET", "/campaigns", "").Data()["total_items"]; n != float64(0) {
			t.Errorf("another account lists %v campaigns, want 0", n)
		}
	}
	if n := acmeSandbox.do("GET", "/campaigns", "").Data()["total_items"]; n != float64(1) {
		t.Errorf("sandbox lists %v campaigns, want its own 1", n)
	}
	if g := acme.do("GET", "/campaigns/"+id, "").Data(); g["name"] != "Spring sale" {
		t.Errorf("the owner's campaign changed: %v", g)
	}
}
