package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/metrics"
	"github.com/adcamp/adcamp/internal/openapischema"
)

// rootPaths are the paths openapi.yaml serves at the root of a listener
// (each has a path-level server), outside the API prefixes.
var rootPaths = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true, "/livez": true}

// TestEveryPathAsDocumented sends every path of openapi.yaml, under both
// prefixes, a GET, a HEAD and each method it does not list, and checks
// each answer against the document (see checkAgainstSpec): HEAD answers
// as GET does without a body, and any other method is a 405 whose Allow
// lists exactly the document's methods.
func TestEveryPathAsDocumented(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	m := metrics.New(nil)
	e.serveWith(prod, nil, httpapi.WithMetrics(m), httpapi.WithRateLimit(1000))
	// /metrics is on a listener of its own, never on an API listener.
	metricsSrv := httptest.NewServer(httpapi.MetricsHandler(m))
	t.Cleanup(metricsSrv.Close)
	onMetrics := *prod
	onMetrics.base = metricsSrv.URL
	cid, agid := prod.tree()
	kw := prod.do("POST", "/ad-groups/"+agid+"/keywords", `{"text":"red shoes","match_type":"exact"}`)
	want(t, kw, 201, "")
	nk := prod.do("POST", "/ad-groups/"+agid+"/negative-keywords", `{"text":"free","match_type":"phrase"}`)
	want(t, nk, 201, "")
	nl := prod.do("POST", "/negative-keyword-lists", `{"name":"Brands"}`)
	want(t, nl, 201, "")
	want(t, prod.do("PUT", "/campaigns/"+cid+"/negative-keyword-lists/"+nl.Data()["id"].(string), ""), 200, "")
	hook := prod.do("POST", "/webhook-endpoints", `{"url":"https://hooks.example.com/in"}`)
	want(t, hook, 201, "")
	events := prod.do("GET", "/events?limit=1", "")
	want(t, events, 200, "")
	job := prod.do("POST", "/report-jobs", `{"level":"campaign","format":"csv.gz"}`)
	want(t, job, 202, "")
	if ran, err := e.svc.RunReportJob(context.Background(), "test"); !ran || err != nil {
		t.Fatalf("RunReportJob = %v, %v", ran, err)
	}
	ids := strings.NewReplacer("{job_id}", job.Data()["id"].(string), "{campaign_id}", cid, "{ad_group_id}", agid, "{keyword_id}", kw.Data()["id"].(string),
		"{negative_keyword_id}", nk.Data()["id"].(string), "{list_id}", nl.Data()["id"].(string),
		"{endpoint_id}", hook.Data()["id"].(string), "{event_id}", events.Data()["items"].([]any)[0].(map[string]any)["id"].(string))
	if _, err := specRouter(); err != nil {
		t.Fatal(err)
	}
	for _, path := range spec.strict.Paths() {
		if strings.HasPrefix(path, "/sandbox/") {
			continue // actions of the sandbox listener alone, POST only: TestSandboxRoutesAsDocumented
		}
		prefixes := []string{signing.PrefixCanonical, signing.PrefixShort}
		if rootPaths[path] {
			prefixes = []string{""}
		}
		methods := spec.strict.Methods(path)
		if !slices.Contains(methods, "GET") || !slices.Contains(methods, "HEAD") {
			t.Errorf("%s: methods %v; every path has GET, and so HEAD", path, methods)
		}
		c := prod
		if path == "/metrics" || path == "/livez" { // on the metrics listener only
			c = &onMetrics
			resp, err := http.Get(prod.base + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s on an API listener = %d, want 404", path, resp.StatusCode)
			}
		}
		for _, prefix := range prefixes {
			url := prefix + ids.Replace(path)
			get := c.sendPath("GET", url)
			if get.Status != http.StatusOK {
				t.Errorf("GET %s = %d, want 200\n%s", url, get.Status, get.Raw)
			}
			head := c.sendPath("HEAD", url)
			if head.Status != get.Status || len(head.Raw) != 0 || head.Header.Get("ETag") != get.Header.Get("ETag") {
				t.Errorf("HEAD %s = %d with ETag %q and %d bytes; want GET's %d and ETag %q, no body",
					url, head.Status, head.Header.Get("ETag"), len(head.Raw), get.Status, get.Header.Get("ETag"))
			}
			for _, m := range []string{"PATCH", "POST", "PUT", "DELETE", "OPTIONS"} {
				if slices.Contains(methods, m) {
					continue
				}
				if r := c.sendPath(m, url); r.Status != http.StatusMethodNotAllowed {
					t.Errorf("%s %s = %d, want 405", m, url, r.Status)
				}
			}
		}
	}
}

// sendPath sends a signed request with no body to a full path (prefix
// included) and checks the answer against openapi.yaml. The answers
// outside the envelope (the API description, the metrics, a report job's
// file) are checked against the document only.
func (c *apiClient) sendPath(method, path string) *response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sign(req, nil)
	rel, _ := signing.RelativePath(path)
	if method != http.MethodGet || (rel != "/openapi.json" && path != "/metrics" && !strings.HasSuffix(rel, "/download")) {
		return c.send(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	r := &response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	checkAgainstSpec(c.t, req, r)
	return r
}

// TestRateLimitHeadersAsDocumented: RateLimit-* come with every answer to a
// signed request that passed authentication while the limit is on (errors
// and replays included), never with an answer given before or by
// authentication, and never with the limit off (--rate-limit 0).
func TestRateLimitHeadersAsDocumented(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	rateLimited := func(r *response) bool { return r.Header.Get("RateLimit-Limit") != "" }

	if r := prod.do("GET", "/campaigns", ""); r.Status != 200 || rateLimited(r) {
		t.Errorf("limit off: GET /campaigns = %d with RateLimit-Limit %q; want 200 and none", r.Status, r.Header.Get("RateLimit-Limit"))
	}
	e.serveWith(prod, nil, httpapi.WithRateLimit(1000))
	first, replay := prod.sendTwice("POST", "/campaigns", validCampaign)
	with := map[string]*response{
		"200":    prod.do("GET", "/campaigns", ""),
		"201":    first,
		"replay": replay,
		"400":    prod.do("GET", "/campaigns?sort=name", ""),
		"404":    prod.do("GET", "/campaigns/cmp_01m7q5cqg06b8994h5jr7na6t9", ""),
	}
	without := map[string]*response{
		"401":       prod.do("GET", "/campaigns", "", "X-Signature: "+strings.Repeat("0", 64)),
		"405":       prod.do("PATCH", "/campaigns", ""),
		"no route":  prod.do("GET", "/campaign", ""),
		"unsigned":  prod.do("GET", "/time", ""),
		"too large": prod.do("POST", "/campaigns", `{"name":"`+strings.Repeat("x", 1<<20)+`"}`),
	}
	if replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the second send is not a replay: %d %s", replay.Status, replay.Raw)
	}
	for name, r := range with {
		if !rateLimited(r) {
			t.Errorf("limit on, %s (%d): no RateLimit-Limit", name, r.Status)
		}
	}
	for name, r := range without {
		if rateLimited(r) {
			t.Errorf("limit on, %s (%d): RateLimit-Limit %q, want none", name, r.Status, r.Header.Get("RateLimit-Limit"))
		}
	}
}

// TestStrictValidatorRefusesWrongDocuments: the strict validator accepts a
// real keyword with "bid": null against openapi.yaml, and refuses it, or
// the document, when the document is wrong in the ways that lenient
// validators let pass.
func TestStrictValidatorRefusesWrongDocuments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prod, _ := e.account("Acme")
	_, agid := prod.tree()
	r := prod.do("POST", "/ad-groups/"+agid+"/keywords", `{"text":"red shoes","match_type":"exact"}`)
	want(t, r, 201, "")
	if r.Data()["bid"] != nil {
		t.Fatalf("a keyword created without a bid has bid %v, want null", r.Data()["bid"])
	}
	const path = "/ad-groups/{ad_group_id}/keywords"
	good, err := openapischema.New(adcamp.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if err := good.Response("POST", path, 201, r.Header, r.Raw); err != nil {
		t.Fatalf("openapi.yaml refuses a real keyword: %v", err)
	}

	// The bid of a Keyword as it was once written: nullable beside allOf and
	// no type, which OpenAPI 3.0.3 reads as "null is not allowed".
	inline := "        bid:\n          type: number\n          format: double\n          nullable: true\n" +
		"          minimum: 0.01\n          maximum: 1000000\n" +
		"          description: |\n            The keyword's own bid, or null"
	allOf := "        bid:\n          allOf:\n            - $ref: '#/components/schemas/Bid'\n          nullable: true\n" +
		"          description: |\n            The keyword's own bid, or null"
	wrong := mutate(t, inline, allOf)
	if _, err := openapischema.New(wrong); err == nil || !strings.Contains(err.Error(), "nullable without type") {
		t.Errorf("openapischema.New(bid as allOf + nullable) = %v, want an error for nullable without type", err)
	}
	lenient, err := openapi3.NewLoader().LoadFromData(wrong)
	if err != nil {
		t.Fatal(err)
	}
	var body any
	json.Unmarshal(r.Raw, &body)
	t.Logf("kin-openapi on the same document and keyword: %v (nil: it lets the null through)",
		lenient.Components.Schemas["KeywordResponse"].Value.VisitJSON(body, openapi3.VisitAsResponse()))

	for name, doc := range map[string][]byte{
		"bid not nullable":                 mutate(t, inline, strings.Replace(inline, "          nullable: true\n", "", 1)),
		"ChildStatus without active":       mutate(t, "      enum: [active, paused]\n    MatchType:", "      enum: [paused]\n    MatchType:"),
		"Keyword without ad_group_id":      mutate(t, "        ad_group_id:\n          $ref: '#/components/schemas/AdGroupId'\n        text:\n          type: string\n          minLength: 1\n          maxLength: 80\n          description: 1–80 Unicode code points, trimmed", "        text:\n          type: string\n          minLength: 1\n          maxLength: 80\n          description: 1–80 Unicode code points, trimmed"),
		"created_at a date, not date-time": mutateSchema(t, "Keyword", "created_at:\n          type: string\n          format: date-time", "created_at:\n          type: string\n          format: date"),
	} {
		v, err := openapischema.New(doc)
		if err != nil {
			t.Errorf("%s: openapischema.New: %v", name, err)
			continue
		}
		if err := v.Response("POST", path, 201, r.Header, r.Raw); err == nil {
			t.Errorf("%s: the strict validator accepts a real keyword against a document that does not describe it", name)
		}
	}
}

// mutate returns openapi.yaml with old, which must occur exactly once,
// replaced by new.
func mutate(t *testing.T, old, new string) []byte {
	t.Helper()
	if n := bytes.Count(adcamp.OpenAPI, []byte(old)); n != 1 {
		t.Fatalf("openapi.yaml holds %q %d times, want once: update the test", old, n)
	}
	return bytes.Replace(adcamp.OpenAPI, []byte(old), []byte(new), 1)
}

// mutateSchema replaces old by new within components.schemas[name] only.
func mutateSchema(t *testing.T, name, old, new string) []byte {
	t.Helper()
	start := bytes.Index(adcamp.OpenAPI, []byte("\n    "+name+":\n      type: object\n"))
	if start < 0 {
		t.Fatalf("openapi.yaml has no schema %s", name)
	}
	end := start + 1 + bytes.Index(adcamp.OpenAPI[start+1:], []byte("\n    "+name+"Create:\n"))
	if end <= start {
		t.Fatalf("openapi.yaml: no %sCreate after %s", name, name)
	}
	part := adcamp.OpenAPI[start:end]
	if n := bytes.Count(part, []byte(old)); n != 1 {
		t.Fatalf("schema %s holds %q %d times, want once: update the test", name, old, n)
	}
	out := append([]byte{}, adcamp.OpenAPI[:start]...)
	out = append(out, bytes.Replace(part, []byte(old), []byte(new), 1)...)
	return append(out, adcamp.OpenAPI[end:]...)
}
