package httpapi_test

import (
	"github.com/google/go-cmp/cmp"

	"fmt"
	"reflect"
	"strings"
	"testing"
)

// batchBody builds {"items": [...]} with n keywords prefix0..prefixN-1.
func batchBody(n int, prefix, matchType string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"text":"%s %d","match_type":%q}`, prefix, i, matchType)
	}
	return `{"items":[` + strings.Join(items, ",") + `]}`
}

func TestKeywordLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	_, gid := prod.tree()
	r := prod.do("POST", "/ad-groups/"+gid+"/keywords", `{"text":"  red shoes ","match_type":"phrase","bid":1.2}`)
	want(t, r, 201, "")
	id := r.Data()["id"].(string)
	wantData := map[string]any{"id": id, "ad_group_id": gid, "text": "red shoes", "match_type": "phrase", "bid": 1.2,
		"status": "active", "version": 1.0, "created_at": "2026-11-22T09:30:00Z", "updated_at": "2026-11-22T09:30:00Z"}
	if diff := cmp.Diff(wantData, r.Data()); !strings.HasPrefix(id, "kw_") || diff != "" {
		t.Errorf("created %s (-want +got):\n%s", id, diff)
	}
	if r.Header.Get("Location") != "/api/v1/open/keywords/"+id {
		t.Errorf("Location = %q", r.Header.Get("Location"))
	}
	if diff := cmp.Diff(wantData, prod.do("GET", "/keywords/"+id, "").Data()); diff != "" {
		t.Errorf("get (-want +got):\n%s", diff)
	}
	r = prod.do("PUT", "/keywords/"+id, `{"bid":null,"status":"paused"}`)
	want(t, r, 200, "")
	if d := r.Data(); d["bid"] != nil || d["status"] != "paused" || d["version"] != 2.0 || !strings.Contains(string(r.Raw), `"bid":null`) {
		t.Errorf("after bid null = %s", r.Raw)
	}
	want(t, prod.do("PUT", "/keywords/"+id, `{"text":"RED shoes","match_type":"exact"}`, `If-Match: "2"`), 200, "")
	want(t, prod.do("PUT", "/keywords/"+id, `{"bid":3}`, `If-Match: "2"`), 412, "PRECONDITION_FAILED")
	want(t, prod.do("DELETE", "/keywords/"+id, "", `If-Match: "2"`), 412, "PRECONDITION_FAILED")
	want(t, prod.do("DELETE", "/keywords/"+id, ""), 200, "")
	want(t, prod.do("GET", "/keywords/"+id, ""), 404, "NOT_FOUND")
}

func TestKeywordValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	_, gid := prod.tree()
	path := "/ad-groups/" + gid + "/keywords"
	tests := []struct {
		body   string
		fields []string
	}{
		{`{}`, []string{"text", "match_type"}},
		{`{"text":"   ","match_type":"fuzzy","bid":0,"status":"ended"}`, []string{"text", "match_type", "bid", "status"}},
		{`{"text":"` + strings.Repeat("k", 81) + `","match_type":"exact"}`, []string{"text"}},
		{`{"text":"tab\there","match_type":"exact"}`, []string{"text"}},
		{`{"text":"a","match_type":"exact","bid":1.001,"version":2,"ad_group_id":"x","colour":"red"}`, []string{"ad_group_id", "colour", "version", "bid"}},
		{`{"items":[]}`, []string{"items"}},
		{`{"items":[{"text":"a","match_type":"exact"}],"extra":1}`, []string{"extra"}},
		{`{"items":[{"text":"ok","match_type":"exact"},{"text":"","match_type":"exact"},5,{"text":1,"match_type":"broad","x":1}]}`,
			[]string{"items[1].text", "items[2].item", "items[3].x", "items[3].text"}},
	}
	for _, tt := range tests {
		r := prod.do("POST", path, tt.body)
		want(t, r, 400, "VALIDATION_ERROR")
		if got := fields(r); !reflect.DeepEqual(got, tt.fields) {
			t.Errorf("POST %.80s: fields %v, want %v", tt.body, got, tt.fields)
		}
	}
	want(t, prod.do("POST", path, `{"text":1,"match_type":"exact"}`), 400, "INVALID_JSON")
	want(t, prod.do("POST", path, `{"items":{"text":"a"}}`), 400, "INVALID_JSON")
	want(t, prod.do("POST", path, `{"items":[{"text":"a","text":"b"}]}`), 400, "INVALID_JSON")
	want(t, prod.do("POST", path, batchBody(1001, "k", "broad")), 400, "VALIDATION_ERROR")
	want(t, prod.do("POST", path, `{"text":"ok","match_type":"exact"}`, "Content-Type: text/csv"), 415, "UNSUPPORTED_MEDIA_TYPE")
	if n := prod.do("GET", path, "").Data()["total_items"]; n != 0.0 {
		t.Errorf("refused creates stored %v keywords", n)
	}
	// The edges that are allowed: 80 characters (code points), a bid of a cent.
	want(t, prod.do("POST", path, `{"text":"`+strings.Repeat("é", 80)+`","match_type":"exact","bid":0.01}`), 201, "")
}

// TestDuplicateKeywords: text is unique per ad group and match type,
// case-insensitively with Unicode folding, within a batch too.
func TestDuplicateKeywords(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	_, gid := prod.tree()
	_, otherGroup := prod.tree()
	path := "/ad-groups/" + gid + "/keywords"
	for _, body := range []string{
		`{"text":"Red Shoes","match_type":"exact"}`,
		`{"text":"Straße","match_type":"exact"}`,
		`{"text":"Café","match_type":"exact"}`,
		`{"text":"ΣΊΣΥΦΟΣ","match_type":"exact"}`,
	} {
		want(t, prod.do("POST", path, body), 201, "")
	}
	for _, text := range []string{"red shoes", "RED SHOES", " red shoes ", "STRASSE", "strasse", "CAFÉ", "Cafe\u0301", "σίσυφος",
		"red\u00a0shoes", "red  shoes", "red \u3000 shoes", "ＲＥＤ ｓｈｏｅｓ"} {
		r := prod.do("POST", path, fmt.Sprintf(`{"text":%q,"match_type":"exact"}`, text))
		if r.Status != 409 || r.Code() != "DUPLICATE_KEYWORD" {
			t.Errorf("POST %q = %d %s, want 409 DUPLICATE_KEYWORD", text, r.Status, r.Code())
		}
	}
	// Another match type or another ad group is not a duplicate.
	want(t, prod.do("POST", path, `{"text":"red shoes","match_type":"phrase"}`), 201, "")
	want(t, prod.do("POST", "/ad-groups/"+otherGroup+"/keywords", `{"text":"red shoes","match_type":"exact"}`), 201, "")

	// Inside one batch, and against stored keywords: nothing is stored.
	r := prod.do("POST", path, `{"items":[{"text":"blue","match_type":"broad"},{"text":"BLUE","match_type":"broad"},{"text":"red shoes","match_type":"exact"}]}`)
	want(t, r, 409, "DUPLICATE_KEYWORD")
	if got := fields(r); !reflect.DeepEqual(got, []string{"items[1].text", "items[2].text"}) {
		t.Errorf("duplicate fields = %v", got)
	}
	if n := prod.do("GET", path+"?match_type=broad", "").Data()["total_items"]; n != 0.0 {
		t.Errorf("a refused batch stored %v keywords", n)
	}
	// An update onto another keyword's text is a duplicate too.
	id := prod.do("POST", path, `{"text":"green","match_type":"exact"}`).Data()["id"].(string)
	want(t, prod.do("PUT", "/keywords/"+id, `{"text":"RED SHOES"}`), 409, "DUPLICATE_KEYWORD")
	want(t, prod.do("PUT", "/keywords/"+id, `{"text":"GREEN"}`), 200, "")
}

// TestKeywordBatch: 1,000 keywords in one request, stored atomically.
func TestKeywordBatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	_, gid := prod.tree()
	path := "/ad-groups/" + gid + "/keywords"
	r := prod.do("POST", path, batchBody(1000, "shoe", "broad"))
	want(t, r, 201, "")
	items := r.Data()["items"].([]any)
	if len(items) != 1000 || items[999].(map[string]any)["text"] != "shoe 999" {
		t.Fatalf("batch answered %d items", len(items))
	}
	list := prod.do("GET", path+"?page_size=100&page=10", "").Data()
	if list["total_items"] != 1000.0 || list["total_pages"] != 10.0 || len(list["items"].([]any)) != 100 {
		t.Errorf("after the batch: total %v pages %v", list["total_items"], list["total_pages"])
	}
	// One bad item at the end refuses the whole batch.
	body := strings.TrimSuffix(batchBody(999, "boot", "exact"), "]}") + `,{"text":"","match_type":"exact"}]}`
	r = prod.do("POST", path, body)
	want(t, r, 400, "VALIDATION_ERROR")
	if got := fields(r); !reflect.DeepEqual(got, []string{"items[999].text"}) {
		t.Errorf("fields = %v", got)
	}
	if n := prod.do("GET", path+"?match_type=exact", "").Data()["total_items"]; n != 0.0 {
		t.Errorf("a refused batch stored %v keywords", n)
	}
	// validate_only checks the batch and stores nothing.
	want(t, prod.do("POST", path+"?validate_only=true", batchBody(10, "sandal", "phrase")), 200, "")
	if n := prod.do("GET", path+"?match_type=phrase", "").Data()["total_items"]; n != 0.0 {
		t.Errorf("validate_only stored %v keywords", n)
	}
}

func TestKeywordPartialFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	_, gid := prod.tree()
	path := "/ad-groups/" + gid + "/keywords"
	want(t, prod.do("POST", path, `{"text":"taken","match_type":"exact"}`), 201, "")
	r := prod.do("POST", path+"?partial_failure=true", `{"items":[
		{"text":"one","match_type":"exact"},
		{"text":"","match_type":"exact"},
		{"text":"TAKEN","match_type":"exact"},
		{"text":"two","match_type":"exact","bid":"x"},
		{"text":"One","match_type":"exact"},
		{"text":"three","match_type":"broad","bid":2}]}`)
	want(t, r, 207, "")
	results := r.Data()["items"].([]any)
	wantStatus := []float64{201, 400, 409, 400, 409, 201}
	wantCode := []string{"", "VALIDATION_ERROR", "DUPLICATE_KEYWORD", "VALIDATION_ERROR", "DUPLICATE_KEYWORD", ""}
	if len(results) != len(wantStatus) {
		t.Fatalf("%d results, want %d: %s", len(results), len(wantStatus), r.Raw)
	}
	for i, res := range results {
		m := res.(map[string]any)
		code := ""
		if e, ok := m["error"].(map[string]any); ok {
			code = e["code"].(string)
		}
		if m["index"] != float64(i) || m["status"] != wantStatus[i] || code != wantCode[i] || m["success"] != (wantStatus[i] == 201) {
			t.Errorf("result %d = %v, want status %v code %q", i, m, wantStatus[i], wantCode[i])
		}
	}
	if r.Data()["created"] != 2.0 || r.Data()["failed"] != 4.0 {
		t.Errorf("created %v failed %v, want 2 and 4", r.Data()["created"], r.Data()["failed"])
	}
	if n := prod.do("GET", path, "").Data()["total_items"]; n != 3.0 {
		t.Errorf("after the partial batch: %v keywords, want 3", n)
	}
}

func TestKeywordListFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	_, gid := prod.tree()
	path := "/ad-groups/" + gid + "/keywords"
	prod.do("POST", path, batchBody(3, "e", "exact"))
	prod.do("POST", path, batchBody(2, "p", "phrase"))
	r := prod.do("POST", path, `{"text":"paused one","match_type":"broad","status":"paused"}`)
	want(t, r, 201, "")
	for q, n := range map[string]float64{"": 6, "?match_type=exact": 3, "?match_type=phrase": 2, "?status=paused": 1,
		"?status=active&match_type=broad": 0, "?status=paused&match_type=broad": 1} {
		if got := prod.do("GET", path+q, "").Data()["total_items"]; got != n {
			t.Errorf("GET keywords%s: total %v, want %v", q, got, n)
		}
	}
	for _, q := range []string{"?match_type=fuzzy", "?status=ended", "?page=0"} {
		want(t, prod.do("GET", path+q, ""), 400, "VALIDATION_ERROR")
	}
	want(t, prod.do("GET", "/ad-groups/adg_01m80t2kkwsacm5qs1n4qnkzps/keywords", ""), 404, "NOT_FOUND")
}

// TestChildTenancy: another account's or environment's ad group or
// keyword is a 404 on every route.
func TestChildTenancy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acme, acmeSandbox := e.account("Acme")
	other, _ := e.account("Other")
	cid, gid := acme.tree()
	kid := acme.do("POST", "/ad-groups/"+gid+"/keywords", `{"text":"mine","match_type":"exact"}`).Data()["id"].(string)
	for _, c := range []*apiClient{other, acmeSandbox} {
		for _, req := range []struct{ method, path, body string }{
			{"POST", "/campaigns/" + cid + "/ad-groups", `{"name":"a","default_bid":1}`},
			{"GET", "/campaigns/" + cid + "/ad-groups", ""},
			{"GET", "/ad-groups/" + gid, ""},
			{"PUT", "/ad-groups/" + gid, `{"name":"stolen"}`},
			{"DELETE", "/ad-groups/" + gid, ""},
			{"POST", "/ad-groups/" + gid + "/keywords", `{"text":"x","match_type":"exact"}`},
			{"POST", "/ad-groups/" + gid + "/keywords?partial_failure=true", `{"items":[{"text":"x","match_type":"exact"}]}`},
			{"GET", "/ad-groups/" + gid + "/keywords", ""},
			{"GET", "/keywords/" + kid, ""},
			{"PUT", "/keywords/" + kid, `{"text":"stolen"}`},
			{"DELETE", "/keywords/" + kid, ""},
		} {
			if r := c.do(req.method, req.path, req.body); r.Status != 404 || r.Code() != "NOT_FOUND" {
				t.Errorf("%s %s by a stranger = %d %s, want 404 NOT_FOUND", req.method, req.path, r.Status, r.Code())
			}
		}
	}
	if d := acme.do("GET", "/keywords/"+kid, "").Data(); d["text"] != "mine" {
		t.Errorf("the owner's keyword changed: %v", d)
	}
	if n := acme.do("GET", "/campaigns/"+cid+"/ad-groups", "").Data()["total_items"]; n != 1.0 {
		t.Errorf("the owner's campaign has %v ad groups, want 1", n)
	}
}
