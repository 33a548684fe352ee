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

func TestCreateCampaign(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	r := prod.do("POST", "/campaigns", `{"name":"  Spring sale ","budget_daily":12.5,"marketplace":"us","start_date":"2026-12-01","end_date":"2026-12-31"}`)
	want(t, r, 201, "")
	d := r.Data()
	id, _ := d["id"].(string)
	if !strings.HasPrefix(id, "cmp_") || len(id) != 30 {
		t.Errorf("id = %q, want cmp_ and 26 characters", id)
	}
	wantData := map[string]any{
		"id": id, "name": "Spring sale", "budget_daily": 12.5, "marketplace": "US", "channel_account_id": nil,
		"start_date": "2026-12-01", "end_date": "2026-12-31", "status": "active", "notes": nil, "version": float64(1),
		"serving_status": "not_started", "spend_today": float64(0),
		"created_at": "2026-11-22T09:30:00Z", "updated_at": "2026-11-22T09:30:00Z",
	}
	if diff := cmp.Diff(wantData, d); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(r.Raw), `"budget_daily":12.50`) {
		t.Errorf("budget_daily not written with two decimals: %s", r.Raw)
	}
	if got := r.Header.Get("Location"); got != "/api/v1/open/campaigns/"+id {
		t.Errorf("Location = %q", got)
	}
	if got := r.Header.Get("ETag"); got != `"1"` {
		t.Errorf("ETag = %q, want \"1\"", got)
	}
	g := prod.do("GET", "/campaigns/"+id, "")
	want(t, g, 200, "")
	if diff := cmp.Diff(wantData, g.Data()); diff != "" {
		t.Errorf("get (-want +got):\n%s", diff)
	}
}

// TestCreatedServingAsRead checks that a create answers the serving status
// and spend a read of the campaign answers: the create works them out
// without reading the spend (a new campaign has none).
func TestCreatedServingAsRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	for _, body := range []string{
		`{"name":"Now","budget_daily":5,"marketplace":"US"}`,
		`{"name":"Today","budget_daily":5,"marketplace":"US","start_date":"2026-11-22","end_date":"2026-11-22"}`,
		`{"name":"Later","budget_daily":5,"marketplace":"US","start_date":"2027-01-01"}`,
	} {
		r := prod.do("POST", "/campaigns", body)
		want(t, r, 201, "")
		created := r.Data()
		g := prod.do("GET", "/campaigns/"+created["id"].(string), "")
		want(t, g, 200, "")
		for _, field := range []string{"serving_status", "spend_today"} {
			if created[field] != g.Data()[field] {
				t.Errorf("%s: created with %s %v, read with %v", body, field, created[field], g.Data()[field])
			}
		}
	}
}

func TestCreateCampaignWithChannelAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	other, _ := e.account("Other")
	ctx := context.Background()
	ca, err := e.svc.CreateChannelAccount(ctx, prod.accountID, "DE", "Acme DE")
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := e.svc.CreateChannelAccount(ctx, other.accountID, "US", "Other US")
	if err != nil {
		t.Fatal(err)
	}
	d := prod.createCampaign(fmt.Sprintf(`{"name":"x","budget_daily":1,"channel_account_id":%d}`, ca.ID))
	if d["marketplace"] != "DE" || d["channel_account_id"] != float64(ca.ID) {
		t.Errorf("created %v, want marketplace DE from channel account %d", d, ca.ID)
	}
	prod.createCampaign(fmt.Sprintf(`{"name":"x","budget_daily":1,"channel_account_id":%d,"marketplace":"de"}`, ca.ID))

	tests := []struct{ body, field string }{
		{fmt.Sprintf(`{"name":"x","budget_daily":1,"channel_account_id":%d,"marketplace":"US"}`, ca.ID), "marketplace"},
		{fmt.Sprintf(`{"name":"x","budget_daily":1,"channel_account_id":%d}`, foreign.ID), "channel_account_id"},
		{`{"name":"x","budget_daily":1,"channel_account_id":999999}`, "channel_account_id"},
		{`{"name":"x","budget_daily":1}`, "marketplace"},
	}
	for _, tt := range tests {
		r := prod.do("POST", "/campaigns", tt.body)
		want(t, r, 400, "VALIDATION_ERROR")
		if f := fields(r); len(f) != 1 || f[0] != tt.field {
			t.Errorf("POST %s: fields %v, want [%s]", tt.body, f, tt.field)
		}
	}
}

// fields lists the field names of a VALIDATION_ERROR's details.
func fields(r *response) []string {
	var out []string
	ds, _ := r.Error()["details"].([]any)
	for _, d := range ds {
		out = append(out, d.(map[string]any)["field"].(string))
	}
	return out
}

func TestCreateCampaignValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	long := strings.Repeat("é", 201)
	tests := []struct {
		name   string
		body   string
		fields []string
	}{
		{"every field bad at once",
			`{"name":"","budget_daily":0,"marketplace":"XX","start_date":"2026-13-01","end_date":"2020-01-01","status":"active","id":"cmp_x","bogus":1}`,
			[]string{"id", "bogus", "status", "name", "budget_daily", "marketplace", "start_date", "end_date"}},
		{"missing required", `{}`, []string{"name", "budget_daily", "marketplace"}},
		{"nulls", `{"name":null,"budget_daily":null,"marketplace":"US"}`, []string{"name", "budget_daily"}},
		{"name too long", `{"name":"` + long + `","budget_daily":1,"marketplace":"US"}`, []string{"name"}},
		{"name blank after trim", `{"name":"   ","budget_daily":1,"marketplace":"US"}`, []string{"name"}},
		{"name control char", `{"name":"a\u0007b","budget_daily":1,"marketplace":"US"}`, []string{"name"}},
		{"three decimals", `{"name":"a","budget_daily":1.005,"marketplace":"US"}`, []string{"budget_daily"}},
		{"negative budget", `{"name":"a","budget_daily":-1,"marketplace":"US"}`, []string{"budget_daily"}},
		{"budget too large", `{"name":"a","budget_daily":1000000.01,"marketplace":"US"}`, []string{"budget_daily"}},
		{"end before start", `{"name":"a","budget_daily":1,"marketplace":"US","start_date":"2026-12-10","end_date":"2026-12-09"}`, []string{"end_date"}},
		{"end before today", `{"name":"a","budget_daily":1,"marketplace":"US","end_date":"2026-11-21"}`, []string{"end_date"}},
		{"date with time", `{"name":"a","budget_daily":1,"marketplace":"US","start_date":"2026-12-01T00:00:00Z"}`, []string{"start_date"}},
		{"version is read-only", `{"name":"a","budget_daily":1,"marketplace":"US","version":1}`, []string{"version"}},
		{"created_at is read-only", `{"name":"a","budget_daily":1,"marketplace":"US","created_at":"x"}`, []string{"created_at"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := prod.do("POST", "/campaigns", tt.body)
			want(t, r, 400, "VALIDATION_ERROR")
			if got := fields(r); !reflect.DeepEqual(got, tt.fields) {
				t.Errorf("fields = %v, want %v\n%s", got, tt.fields, r.Raw)
			}
		})
	}
	// The edges that are allowed.
	for _, body := range []string{
		`{"name":"` + strings.Repeat("é", 200) + `","budget_daily":0.01,"marketplace":"US"}`,
		`{"name":"a","budget_daily":1000000,"marketplace":"US","end_date":"2026-11-22"}`,
		`{"name":"a","budget_daily":1.50,"marketplace":"US","start_date":"2020-01-01","end_date":null}`,
	} {
		prod.createCampaign(body)
	}
	list := prod.do("GET", "/campaigns", "")
	if n := list.Data()["total_items"]; n != float64(3) {
		t.Errorf("total_items = %v after 3 good and %d bad creates, want 3", n, len(tests))
	}
}

func TestStrictJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	tests := []struct {
		name, body string
		headers    []string
		status     int
		code       string
	}{
		{"duplicate key", `{"name":"a","name":"b","budget_daily":1,"marketplace":"US"}`, nil, 400, "INVALID_JSON"},
		{"trailing data", validCampaign + `{}`, nil, 400, "INVALID_JSON"},
		{"trailing garbage", validCampaign + ` x`, nil, 400, "INVALID_JSON"},
		{"wrong type", `{"name":1,"budget_daily":"12","marketplace":"US"}`, nil, 400, "INVALID_JSON"},
		{"integer wanted", `{"name":"a","budget_daily":1,"channel_account_id":1.5}`, nil, 400, "INVALID_JSON"},
		{"array", `[` + validCampaign + `]`, nil, 400, "INVALID_JSON"},
		{"not JSON", `name=a`, nil, 400, "INVALID_JSON"},
		{"truncated", `{"name":"a"`, nil, 400, "INVALID_JSON"},
		{"invalid UTF-8", "{\"name\":\"a\xff\",\"budget_daily\":1,\"marketplace\":\"US\"}", nil, 400, "INVALID_JSON"},
		{"text/plain", validCampaign, []string{"Content-Type: text/plain"}, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"no content type", validCampaign, []string{"Content-Type:"}, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"latin-1", validCampaign, []string{"Content-Type: application/json; charset=latin1"}, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"utf-8 charset", validCampaign, []string{"Content-Type: application/json; charset=UTF-8"}, 201, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want(t, prod.do("POST", "/campaigns", tt.body, tt.headers...), tt.status, tt.code)
		})
	}
	big := `{"name":"` + strings.Repeat("a", 1<<20) + `","budget_daily":1,"marketplace":"US"}`
	want(t, prod.do("POST", "/campaigns", big), 413, "PAYLOAD_TOO_LARGE")
	if n := prod.do("GET", "/campaigns", "").Data()["total_items"]; n != float64(1) {
		t.Errorf("total_items = %v, want only the one good create", n)
	}
}

func TestRoutingErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	r := prod.do("PATCH", "/campaigns", "")
	want(t, r, 405, "METHOD_NOT_ALLOWED")
	if got := r.Header.Get("Allow"); got != "GET, HEAD, POST" {
		t.Errorf("Allow = %q, want GET, HEAD, POST", got)
	}
	r = prod.do("POST", "/campaigns/cmp_x", validCampaign)
	want(t, r, 405, "METHOD_NOT_ALLOWED")
	if got := r.Header.Get("Allow"); !strings.Contains(got, "PUT") || !strings.Contains(got, "DELETE") {
		t.Errorf("Allow = %q, want GET, PUT and DELETE among it", got)
	}
	want(t, prod.do("GET", "/nothing", ""), 404, "NOT_FOUND")
	want(t, prod.do("GET", "/campaigns/", ""), 404, "NOT_FOUND")
	for _, id := range []string{"cmp_x", "nope", "cmp_01m80t2kkwsacm5qs1n4qnkzps", "adg_01m80t2kkwsacm5qs1n4qnkzps"} {
		want(t, prod.do("GET", "/campaigns/"+id, ""), 404, "NOT_FOUND")
	}
}

func TestListCampaigns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	var ids []string
	for i := range 7 {
		d := prod.createCampaign(fmt.Sprintf(`{"name":"c%d","budget_daily":1,"marketplace":"US"}`, i))
		ids = append(ids, d["id"].(string))
		e.clock.Advance(time.Second)
	}
	prod.do("PUT", "/campaigns/"+ids[1], `{"status":"paused"}`)
	prod.do("PUT", "/campaigns/"+ids[2], `{"status":"ended"}`)

	page := func(q string) (items []string, d map[string]any) {
		t.Helper()
		r := prod.do("GET", "/campaigns"+q, "")
		want(t, r, 200, "")
		for _, it := range r.Data()["items"].([]any) {
			items = append(items, it.(map[string]any)["id"].(string))
		}
		return items, r.Data()
	}
	newest := []string{ids[6], ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]}
	tests := []struct {
		query        string
		items        []string
		total, pages float64
	}{
		{"", newest, 7, 1},
		{"?page=1&page_size=3", newest[:3], 7, 3},
		{"?page=3&page_size=3", newest[6:], 7, 3},
		{"?page=4&page_size=3", nil, 7, 3},
		{"?page_size=100", newest, 7, 1},
		{"?page_size=1&page=7", newest[6:], 7, 7},
		{"?status=active", []string{ids[6], ids[5], ids[4], ids[3], ids[0]}, 5, 1},
		{"?status=paused", []string{ids[1]}, 1, 1},
		{"?status=ended&page_size=5", []string{ids[2]}, 1, 1},
	}
	for _, tt := range tests {
		items, d := page(tt.query)
		if !reflect.DeepEqual(items, tt.items) || d["total_items"] != tt.total || d["total_pages"] != tt.pages {
			t.Errorf("GET /campaigns%s = %v (total %v, pages %v), want %v (total %v, pages %v)",
				tt.query, items, d["total_items"], d["total_pages"], tt.items, tt.total, tt.pages)
		}
	}
	if _, d := page("?page=2&page_size=3"); d["page"] != float64(2) || d["page_size"] != float64(3) {
		t.Errorf("page fields = %v", d)
	}
	for _, q := range []string{"?page=0", "?page=-1", "?page=x", "?page_size=0", "?page_size=101", "?status=deleted",
		"?sort=name", "?page=1&page=2", "?page=1.5", "?page=99999999999"} {
		r := prod.do("GET", "/campaigns"+q, "")
		want(t, r, 400, "VALIDATION_ERROR")
		name := strings.SplitN(strings.TrimPrefix(q, "?"), "=", 2)[0]
		if f := fields(r); len(f) != 1 || f[0] != name {
			t.Errorf("GET /campaigns%s: fields %v, want [%s]", q, f, name)
		}
	}
}

// TestEndDatePassedIsEnded: a campaign whose end_date has passed reads as
// ended, is listed as ended, and accepts no change.
func TestEndDatePassedIsEnded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	d := prod.createCampaign(`{"name":"a","budget_daily":1,"marketplace":"US","end_date":"2026-11-23"}`)
	id := d["id"].(string)
	e.clock.Advance(24 * time.Hour)
	if s := prod.do("GET", "/campaigns/"+id, "").Data()["status"]; s != "active" {
		t.Fatalf("status on its end date = %v, want active", s)
	}
	e.clock.Advance(24 * time.Hour)
	if s := prod.do("GET", "/campaigns/"+id, "").Data()["status"]; s != "ended" {
		t.Errorf("status after end_date = %v, want ended", s)
	}
	if n := prod.do("GET", "/campaigns?status=ended", "").Data()["total_items"]; n != float64(1) {
		t.Errorf("ended filter total = %v, want 1", n)
	}
	if n := prod.do("GET", "/campaigns?status=active", "").Data()["total_items"]; n != float64(0) {
		t.Errorf("active filter total = %v, want 0", n)
	}
	before := prod.do("GET", "/campaigns/"+id, "")

	// The sweep stores the status; nothing a client sees changes.
	if n, err := e.svc.EndDueCampaigns(context.Background()); n != 1 || err != nil {
		t.Errorf("EndDueCampaigns() = %d, %v; want 1, nil", n, err)
	}
	after := prod.do("GET", "/campaigns/"+id, "")
	if string(after.Raw) != string(before.Raw) || after.Header.Get("ETag") != before.Header.Get("ETag") {
		t.Errorf("after the sweep GET answers %s (ETag %s), before %s (ETag %s)", after.Raw, after.Header.Get("ETag"),
			before.Raw, before.Header.Get("ETag"))
	}
	if n := prod.do("GET", "/campaigns?status=ended", "").Data()["total_items"]; n != float64(1) {
		t.Errorf("after the sweep, ended filter total = %v, want 1", n)
	}
	if n := prod.do("GET", "/campaigns?status=active", "").Data()["total_items"]; n != float64(0) {
		t.Errorf("after the sweep, active filter total = %v, want 0", n)
	}
	want(t, prod.do("PUT", "/campaigns/"+id, `{"end_date":"2027-01-01"}`), 409, "INVALID_STATE_TRANSITION")
	want(t, prod.do("DELETE", "/campaigns/"+id, ""), 200, "")
}

// TestCampaignNotes: notes are the account holder's free text, up to
// 1,000 characters with line breaks, written as null when there are none.
func TestCampaignNotes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	d := prod.createCampaign(`{"name":"x","budget_daily":1,"marketplace":"US","notes":"  Agreed with finance.\nReview in May.\t "}`)
	id := d["id"].(string)
	if d["notes"] != "Agreed with finance.\nReview in May." {
		t.Errorf("notes = %q, want them without the surrounding white space", d["notes"])
	}
	long := strings.Repeat("é", 1000)
	r := prod.do("PUT", "/campaigns/"+id, `{"notes":"`+long+`"}`)
	want(t, r, 200, "")
	if r.Data()["notes"] != long {
		t.Errorf("1,000 characters of notes were not kept whole")
	}
	for _, body := range []string{`{"notes":"` + long + `x"}`, `{"notes":"bell\u0007"}`, `{"notes":12}`} {
		r := prod.do("PUT", "/campaigns/"+id, body)
		if r.Status != 400 {
			t.Errorf("PUT %.40s... = %d, want 400", body, r.Status)
		}
	}
	for _, clear := range []string{`{"notes":null}`, `{"notes":"   "}`} {
		prod.do("PUT", "/campaigns/"+id, `{"notes":"again"}`)
		r := prod.do("PUT", "/campaigns/"+id, clear)
		want(t, r, 200, "")
		if v, ok := r.Data()["notes"]; !ok || v != nil {
			t.Errorf("after %s: notes = %v (present %v), want null", clear, v, ok)
		}
	}
	if got := prod.do("GET", "/campaigns/"+id, "").Data()["notes"]; got != nil {
		t.Errorf("GET after clearing: notes = %v, want null", got)
	}
}
