package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestNegativesOverHTTP goes through every route of negatives and shared
// lists, each answer checked against openapi.yaml by the harness.
func TestNegativesOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	other, _ := e.account("Other")
	cid, gid := prod.tree()
	kw := prod.do("POST", "/ad-groups/"+gid+"/keywords", `{"items":[{"text":"free running shoes","match_type":"broad"},{"text":"red shoes","match_type":"exact"}]}`)
	want(t, kw, 201, "")
	kwID := kw.Data()["items"].([]any)[0].(map[string]any)["id"].(string)

	// One negative that blocks a keyword: 201 with a warning.
	r := prod.do("POST", "/ad-groups/"+gid+"/negative-keywords", `{"text":" FREE ","match_type":"phrase"}`)
	want(t, r, 201, "")
	nid := r.Data()["id"].(string)
	if w := r.Data()["warnings"].([]any); len(w) != 1 || w[0].(map[string]any)["keyword_id"] != kwID {
		t.Errorf("warnings = %v, want the keyword %s", w, kwID)
	}
	if r.Data()["text"] != "FREE" || r.Data()["level"] != "ad_group" || r.Header.Get("Location") != "/api/v1/open/negative-keywords/"+nid {
		t.Errorf("created = %s, Location %q", r.Raw, r.Header.Get("Location"))
	}
	// Look-alike, broad, another account's ad group.
	want(t, prod.do("POST", "/ad-groups/"+gid+"/negative-keywords", `{"text":"ｆｒｅｅ","match_type":"phrase"}`), 409, "DUPLICATE_KEYWORD")
	want(t, prod.do("POST", "/ad-groups/"+gid+"/negative-keywords", `{"text":"x","match_type":"broad"}`), 400, "VALIDATION_ERROR")
	want(t, other.do("POST", "/ad-groups/"+gid+"/negative-keywords", `{"text":"x","match_type":"exact"}`), 404, "NOT_FOUND")
	want(t, other.do("GET", "/negative-keywords/"+nid, ""), 404, "NOT_FOUND")

	// A batch, whole or nothing, then partial.
	want(t, prod.do("POST", "/campaigns/"+cid+"/negative-keywords", `{"items":[{"text":"cheap","match_type":"exact"},{"text":"CHEAP","match_type":"exact"}]}`), 409, "DUPLICATE_KEYWORD")
	r = prod.do("POST", "/campaigns/"+cid+"/negative-keywords?partial_failure=true", `{"items":[{"text":"cheap","match_type":"exact"},{"text":"CHEAP","match_type":"exact"},{"text":"red shoes","match_type":"exact"}]}`)
	want(t, r, 207, "")
	if d := r.Data(); d["created"] != 2.0 || d["failed"] != 1.0 || len(d["warnings"].([]any)) != 1 {
		t.Errorf("207 = %s", r.Raw)
	}
	r = prod.do("GET", "/campaigns/"+cid+"/negative-keywords?match_type=exact&page_size=1", "")
	want(t, r, 200, "")
	if r.Data()["total_items"] != 2.0 || len(r.Data()["items"].([]any)) != 1 {
		t.Errorf("list = %s", r.Raw)
	}
	r = prod.do("GET", "/ad-groups/"+gid+"/keywords?blocked=true", "")
	want(t, r, 200, "")
	if r.Data()["total_items"] != 2.0 {
		t.Errorf("blocked keywords = %s, want both", r.Raw)
	}

	// Update the status; text is fixed.
	want(t, prod.do("PUT", "/negative-keywords/"+nid, `{"text":"gratis"}`), 400, "VALIDATION_ERROR")
	r = prod.do("PUT", "/negative-keywords/"+nid, `{"status":"paused"}`, `If-Match: "1"`)
	want(t, r, 200, "")
	if r.Header.Get("ETag") != `"2"` {
		t.Errorf("ETag = %q", r.Header.Get("ETag"))
	}

	// A shared list with entries, attached with a warning, then removed.
	r = prod.do("POST", "/negative-keyword-lists", `{"name":"Brands"}`)
	want(t, r, 201, "")
	lid := r.Data()["id"].(string)
	r = prod.do("POST", "/negative-keyword-lists/"+lid+"/entries", `{"items":[{"text":"running","match_type":"phrase"},{"text":"acme","match_type":"exact"}]}`)
	want(t, r, 201, "")
	entry := r.Data()["items"].([]any)[1].(map[string]any)["id"].(string)
	r = prod.do("PUT", "/campaigns/"+cid+"/negative-keyword-lists/"+lid, "")
	want(t, r, 200, "")
	if w := r.Data()["warnings"].([]any); len(w) != 1 {
		t.Errorf("attach warnings = %v, want 1", w)
	}
	want(t, other.do("PUT", "/campaigns/"+cid+"/negative-keyword-lists/"+lid, ""), 404, "NOT_FOUND")
	r = prod.do("GET", "/negative-keyword-lists/"+lid, "")
	if r.Data()["entries"] != 2.0 || r.Data()["campaigns"] != 1.0 {
		t.Errorf("list = %s", r.Raw)
	}
	want(t, prod.do("GET", "/campaigns/"+cid+"/negative-keyword-lists", ""), 200, "")
	want(t, prod.do("DELETE", "/negative-keyword-lists/"+lid+"/entries?ids="+entry+",nkw_01m80v5b7x1qf2k9c3d4e5f6g7", ""), 400, "VALIDATION_ERROR")
	want(t, prod.do("DELETE", "/negative-keyword-lists/"+lid+"/entries?ids="+entry, ""), 200, "")
	want(t, prod.do("PUT", "/negative-keyword-lists/"+lid, `{"name":"Brands 2"}`), 200, "")
	want(t, prod.do("DELETE", "/campaigns/"+cid+"/negative-keyword-lists/"+lid, ""), 200, "")
	want(t, prod.do("GET", "/campaigns/"+cid+"/negative-keyword-lists/"+lid, ""), 404, "NOT_FOUND")
	want(t, prod.do("DELETE", "/negative-keyword-lists/"+lid, ""), 200, "")

	// The history records the negatives.
	r = prod.do("GET", "/changes?entity_type=negative_keyword", "")
	want(t, r, 200, "")
	if n := len(r.Data()["items"].([]any)); n < 6 {
		t.Errorf("history of negatives has %d records, want at least 6", n)
	}
	want(t, prod.do("DELETE", "/negative-keywords/"+nid, ""), 200, "")
	want(t, prod.do("GET", "/negative-keywords/"+nid, ""), 404, "NOT_FOUND")
}

func TestNegativeBatchLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	_, gid := prod.tree()
	items := make([]string, 1001)
	for i := range items {
		items[i] = fmt.Sprintf(`{"text":"n %d","match_type":"exact"}`, i)
	}
	want(t, prod.do("POST", "/ad-groups/"+gid+"/negative-keywords", `{"items":[`+strings.Join(items, ",")+`]}`), 400, "VALIDATION_ERROR")
	r := prod.do("POST", "/ad-groups/"+gid+"/negative-keywords", `{"items":[`+strings.Join(items[:1000], ",")+`]}`)
	want(t, r, 201, "")
}
