package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestInvisibleText: names and keyword texts need a visible character,
// and refuse the invisible characters that make two texts look alike or
// reorder what is shown around them.
func TestInvisibleText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	cmp, adg := prod.tree()
	bad := map[string]string{
		"right-to-left override":  "abc\u202Edef",
		"first strong isolate":    "abc\u2068def",
		"left-to-right mark":      "abc\u200Edef",
		"zero-width space":        "red\u200Bshoes",
		"zero-width joiner":       "red\u200Dshoes",
		"word joiner":             "red\u2060shoes",
		"byte order mark":         "\uFEFFshoes",
		"line separator":          "red\u2028shoes",
		"paragraph separator":     "red\u2029shoes",
		"only a Hangul filler":    "\u3164",
		"only a combining accent": "\u0301",
		"only zero-width":         "\u200B\u200B",
	}
	for name, text := range bad {
		for _, req := range []struct{ what, method, path, body string }{
			{"campaign create", "POST", "/campaigns", fmt.Sprintf(`{"name":%q,"budget_daily":1,"marketplace":"US"}`, text)},
			{"campaign update", "PUT", "/campaigns/" + cmp, fmt.Sprintf(`{"name":%q}`, text)},
			{"ad group create", "POST", "/campaigns/" + cmp + "/ad-groups", fmt.Sprintf(`{"name":%q,"default_bid":1}`, text)},
			{"ad group update", "PUT", "/ad-groups/" + adg, fmt.Sprintf(`{"name":%q}`, text)},
			{"keyword create", "POST", "/ad-groups/" + adg + "/keywords", fmt.Sprintf(`{"text":%q,"match_type":"exact"}`, text)},
		} {
			r := prod.do(req.method, req.path, req.body)
			if r.Status != 400 || r.Code() != "VALIDATION_ERROR" {
				t.Errorf("%s in a %s = %d %s, want 400 VALIDATION_ERROR", name, req.what, r.Status, r.Code())
			}
		}
	}
	// What stays allowed: accents, other scripts, emoji, inner spaces.
	for _, text := range []string{"Café crème", "Grüße", "東京 ホテル", "🙂 deals", "a – b"} {
		want(t, prod.do("POST", "/ad-groups/"+adg+"/keywords", fmt.Sprintf(`{"text":%q,"match_type":"exact"}`, text)), 201, "")
	}
}

// TestInputEdges: dates out of 2000–2100, an empty filter, and a page
// number too large to read are each refused with a message that says so.
func TestInputEdges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	cmp, adg := prod.tree()
	for _, date := range []string{"1999-12-31", "0001-01-01", "2101-01-01", "9999-12-31"} {
		r := prod.do("POST", "/campaigns", fmt.Sprintf(`{"name":"a","budget_daily":1,"marketplace":"US","start_date":%q}`, date))
		want(t, r, 400, "VALIDATION_ERROR")
		if !strings.Contains(string(r.Raw), "2000-01-01 to 2100-12-31") {
			t.Errorf("start_date %s: %s, want the accepted range named", date, r.Raw)
		}
		want(t, prod.do("PUT", "/campaigns/"+cmp, fmt.Sprintf(`{"end_date":%q}`, date)), 400, "VALIDATION_ERROR")
	}
	want(t, prod.do("POST", "/campaigns", `{"name":"a","budget_daily":1,"marketplace":"US","start_date":"2000-01-01","end_date":"2100-12-31"}`), 201, "")

	for _, path := range []string{"/campaigns?status=", "/campaigns/" + cmp + "/ad-groups?status=", "/ad-groups/" + adg + "/keywords?match_type="} {
		r := prod.do("GET", path, "")
		want(t, r, 400, "VALIDATION_ERROR")
		if !strings.Contains(string(r.Raw), "must not be empty") {
			t.Errorf("GET %s: %s", path, r.Raw)
		}
	}
	for q, issue := range map[string]string{
		"page=99999999999":           "page is too large",
		"page=99999999999999999999":  "page is too large",
		"page_size=1000000000000":    "page_size is too large",
		"page=-99999999999999999999": "page is out of range",
		"page=-2170000000":           "page is out of range",
		"page=2147483648":            "page is too large",
		"page=1.5":                   "page must be an integer",
		"page=":                      "page must be an integer",
		"page_size=-":                "page_size must be an integer",
	} {
		r := prod.do("GET", "/campaigns?"+q, "")
		want(t, r, 400, "VALIDATION_ERROR")
		if !strings.Contains(string(r.Raw), issue) {
			t.Errorf("GET /campaigns?%s: %s, want %q", q, r.Raw, issue)
		}
	}
	want(t, prod.do("GET", "/campaigns?page=0000000002", ""), 200, "")
}
