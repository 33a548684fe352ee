package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/adcamp/adcamp"
)

// FuzzParseObject: the strict decoder never panics, and whatever it
// accepts is one JSON object whose member names are unique.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","budget_daily":12.5,"marketplace":"US"}`,
		`{"a":1,"a":2}`, `{"a":{"b":1,"b":2}}`, `{} {}`, `[]`, `{"items":[{"text":"x"}]}`,
		"{\"a\":\"\xff\"}", `{"a":1e400}`, ` {"a":null} `, `{"a":"\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := parseObject(data)
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("parseObject accepted %q, which is not a JSON object: %v", data, err)
		}
		if len(m) != len(obj.members) {
			t.Fatalf("parseObject accepted %q with %d members, but it has %d distinct names", data, len(obj.members), len(m))
		}
		for _, mem := range obj.members {
			if _, ok := m[mem.name]; !ok {
				t.Fatalf("member %q of %q is not in the document", mem.name, data)
			}
		}
		// Reading every member as any type must not panic either.
		in := campaignInput(obj)
		_ = in
		keywordInput(obj)
	})
}

// FuzzParseQuery: the query parser never panics and always either
// accepts the values or names a parameter.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"page=1&page_size=20&status=active", "page=0", "page=1&page=2", "x=%zz", "page=99999999999", "status="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest("GET", "/campaigns", nil)
		r.URL.RawQuery = raw
		q := parseQuery(r, "page", "page_size", "status")
		page, size := q.paging()
		q.bool("status")
		for _, is := range q.issues {
			if is.Field == "" || is.Issue == "" {
				t.Fatalf("query %q gave an unnamed issue %+v", raw, is)
			}
		}
		if len(q.issues) == 0 && (page < -1<<31 || size < -1<<31) {
			t.Fatalf("query %q gave page %d size %d", raw, page, size)
		}
	})
}

// TestBatchParsingStops: a batch of more items than a request may create
// is refused once the first one too many is seen, not after parsing them
// all (a megabyte of {} is some 170,000 items).
func TestBatchParsingStops(t *testing.T) {
	// Serial: it counts the process's allocations, which parallel tests
	// would add to.
	body := []byte(`{"items":[{}` + strings.Repeat(`,{}`, 1<<20/3-8) + `]}`)
	req := httptest.NewRequest("POST", "/api/v1/open/ad-groups/adg_x/keywords", nil)
	req.Header.Set("Content-Type", "application/json")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := keywordItems(req, body)
	runtime.ReadMemStats(&after)
	if adcamp.ErrorCode(err) != adcamp.CodeValidation || !strings.Contains(err.Error(), "items must hold 1 to 1000") {
		t.Errorf("keywordItems(%d items) = %v, want the batch refused as too large", 1<<20/3, err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("refusing a batch of %d items allocated %d MB, want under 16", 1<<20/3, n>>20)
	}
}
