package adcamp

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"sigs.k8s.io/yaml"
)

// loadOpenAPI parses data (YAML or JSON) as an OpenAPI document.
func loadOpenAPI(t *testing.T, data []byte) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatalf("load openapi.yaml: %v", err)
	}
	return doc
}

// TestOpenAPIValid checks openapi.yaml, and the JSON form of it that the
// service serves at {prefix}/openapi.json, against the OpenAPI 3.0 rules.
// With default options kin-openapi also validates every example of a media
// type, parameter and schema against its schema (see
// TestOpenAPIValidateChecksExamples).
func TestOpenAPIValid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	doc := loadOpenAPI(t, OpenAPI)
	if err := doc.Validate(ctx); err != nil {
		t.Fatalf("openapi.yaml is invalid: %v", err)
	}
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}

	js, err := yaml.YAMLToJSON(OpenAPI)
	if err != nil {
		t.Fatalf("openapi.yaml does not convert to JSON as served: %v", err)
	}
	if err := loadOpenAPI(t, js).Validate(ctx); err != nil {
		t.Fatalf("openapi.json (as served) is invalid: %v", err)
	}
}

// TestOpenAPIValidateChecksExamples proves that doc.Validate, with its
// default options, rejects a component example that does not match the
// schema of a media type using it, so TestOpenAPIValid covers examples.
func TestOpenAPIValidateChecksExamples(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t, OpenAPI)
	ex := doc.Components.Examples["CampaignCreated"]
	if ex == nil || ex.Value == nil {
		t.Fatal("components.examples.CampaignCreated is missing")
	}
	good := ex.Value.Value
	ex.Value.Value = map[string]any{"success": true, "data": map[string]any{"id": "cmp_x", "budget_daily": "12.50"}}
	if err := doc.Validate(context.Background()); err == nil {
		t.Fatal("doc.Validate accepted an example that does not match its schema; examples need a check of their own")
	}
	ex.Value.Value = good
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("restored document is invalid: %v", err)
	}
}

// mediaUse is one media type that shows examples, and where it is.
type mediaUse struct {
	where    string
	media    *openapi3.MediaType
	response bool
}

// mediaTypes lists every media type of the document: request bodies and
// responses of the components and of every operation.
func mediaTypes(doc *openapi3.T) []mediaUse {
	var out []mediaUse
	addContent := func(where string, c openapi3.Content, response bool) {
		for _, mt := range sortedKeys(c) {
			out = append(out, mediaUse{where + " " + mt, c[mt], response})
		}
	}
	addBody := func(where string, rb *openapi3.RequestBodyRef) {
		if rb != nil && rb.Value != nil {
			addContent(where, rb.Value.Content, false)
		}
	}
	addResponse := func(where string, r *openapi3.ResponseRef) {
		if r != nil && r.Value != nil {
			addContent(where, r.Value.Content, true)
		}
	}
	for _, name := range sortedKeys(doc.Components.RequestBodies) {
		addBody("components.requestBodies."+name, doc.Components.RequestBodies[name])
	}
	for _, name := range sortedKeys(doc.Components.Responses) {
		addResponse("components.responses."+name, doc.Components.Responses[name])
	}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			where := method + " " + path
			addBody(where+" requestBody", op.RequestBody)
			for code, r := range op.Responses.Map() {
				addResponse(where+" "+code, r)
			}
		}
	}
	return out
}

// TestOpenAPIExamples validates every example of every media type against
// the media type's schema directly, and checks that every example in
// components is used by some media type (so none escapes validation).
func TestOpenAPIExamples(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t, OpenAPI)
	used := map[*openapi3.Example]bool{}
	for _, u := range mediaTypes(doc) {
		if u.media.Schema == nil || u.media.Schema.Value == nil {
			t.Errorf("%s: no schema", u.where)
			continue
		}
		opts := []openapi3.SchemaValidationOption{openapi3.MultiErrors(), openapi3.VisitAsRequest()}
		if u.response {
			opts[1] = openapi3.VisitAsResponse()
		}
		check := func(name string, v any) {
			if err := u.media.Schema.Value.VisitJSON(normalizeJSON(t, v), opts...); err != nil {
				t.Errorf("%s example %s does not match its schema: %v", u.where, name, err)
			}
		}
		if u.media.Example != nil {
			check("(example)", u.media.Example)
		}
		for _, name := range sortedKeys(u.media.Examples) {
			ref := u.media.Examples[name]
			if ref == nil || ref.Value == nil {
				t.Errorf("%s example %s: unresolved", u.where, name)
				continue
			}
			used[ref.Value] = true
			check(name, ref.Value.Value)
		}
	}
	for _, name := range sortedKeys(doc.Components.Examples) {
		if !used[doc.Components.Examples[name].Value] {
			t.Errorf("components.examples.%s is used by no media type, so nothing checks it against a schema", name)
		}
	}
}

// normalizeJSON gives v the types encoding/json produces, as a response
// body or request body decoded by a client would have.
func normalizeJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("example is not JSON: %v", err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOpenAPIErrorCodes checks that the ErrorCode enum lists exactly the
// Code* constants of error.go, which internal/httpapi maps to statuses.
func TestOpenAPIErrorCodes(t *testing.T) {
	t.Parallel()
	var want []string
	for _, code := range errorCodeConstants(t) {
		want = append(want, code)
	}

	doc := loadOpenAPI(t, OpenAPI)
	s := doc.Components.Schemas["ErrorCode"]
	if s == nil || s.Value == nil {
		t.Fatal("components.schemas.ErrorCode is missing")
	}
	var got []string
	for _, v := range s.Value.Enum {
		got = append(got, v.(string))
	}
	sort.Strings(want)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("ErrorCode enum = %v\nerror.go codes = %v", got, want)
	}
}

// TestOpenAPIOperations checks what every operation must carry: an
// operationId, a summary, a description, and on every response the
// X-Request-Id and Date headers; that the unsigned routes say so; and that
// the implemented routes are all described.
func TestOpenAPIOperations(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t, OpenAPI)
	unsigned := map[string]bool{"/time": true, "/openapi.json": true, "/healthz": true, "/readyz": true, "/metrics": true, "/livez": true}
	wantOps := map[string]bool{ // the routes the document must describe, at least
		"GET /time": true, "GET /openapi.json": true, "GET /healthz": true, "GET /readyz": true, "GET /metrics": true, "GET /livez": true,
		"POST /campaigns": true, "GET /campaigns": true,
		"GET /campaigns/{campaign_id}": true, "PUT /campaigns/{campaign_id}": true, "DELETE /campaigns/{campaign_id}": true,
		"POST /campaigns/{campaign_id}/ad-groups": true, "GET /campaigns/{campaign_id}/ad-groups": true,
		"GET /ad-groups/{ad_group_id}": true, "PUT /ad-groups/{ad_group_id}": true, "DELETE /ad-groups/{ad_group_id}": true,
		"POST /ad-groups/{ad_group_id}/keywords": true, "GET /ad-groups/{ad_group_id}/keywords": true,
		"GET /keywords/{keyword_id}": true, "PUT /keywords/{keyword_id}": true, "DELETE /keywords/{keyword_id}": true,
		"GET /channel-accounts": true,
	}
	if len(doc.Security) != 1 || len(doc.Security[0]) != 3 {
		t.Errorf("global security = %v, want one requirement of the three headers", doc.Security)
	}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			key := method + " " + path
			delete(wantOps, key)
			if op.OperationID == "" || op.Summary == "" || op.Description == "" {
				t.Errorf("%s: needs operationId, summary and description", key)
			}
			if unsigned[path] != (op.Security != nil && len(*op.Security) == 0) {
				t.Errorf("%s: security = %v; want [] exactly on /time, /openapi.json, /healthz, /readyz, /livez and /metrics", key, op.Security)
			}
			for code, r := range op.Responses.Map() {
				for _, h := range []string{"X-Request-Id", "Date"} {
					if r.Value == nil || r.Value.Headers[h] == nil {
						t.Errorf("%s %s: no %s header", key, code, h)
					}
				}
			}
		}
	}
	for key := range wantOps {
		t.Errorf("%s: missing", key)
	}
	for path, url := range map[string]string{"/healthz": "http://127.0.0.1:8080", "/readyz": "http://127.0.0.1:8080",
		"/metrics": "http://127.0.0.1:9090"} {
		if s := doc.Paths.Value(path).Servers; len(s) == 0 || s[0].URL != url {
			t.Errorf("%s: want a path-level server %s (root, outside the prefix)", path, url)
		}
	}
}

// errorCodeConstants returns the Code* constants of error.go, by name.
func errorCodeConstants(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "error.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range vs.Names {
			if strings.HasPrefix(name.Name, "Code") && i < len(vs.Values) {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					codes[name.Name] = s
				}
			}
		}
		return true
	})
	if len(codes) == 0 {
		t.Fatal("found no Code* constants in error.go")
	}
	return codes
}

// servedRoutes reads the routes internal/httpapi/server.go registers, as
// "METHOD /path" relative to the API prefix (or at the root for the
// routes registered outside the prefix loop), with HEAD beside each GET,
// and those of the metrics listener (internal/httpapi/edge.go).
func servedRoutes(t *testing.T) map[string]bool {
	t.Helper()
	routes := map[string]bool{}
	for _, file := range []string{"internal/httpapi/server.go", "internal/httpapi/edge.go", "internal/httpapi/sandbox.go", "internal/httpapi/negatives.go"} {
		routesOf(t, file, routes)
	}
	if len(routes) == 0 {
		t.Fatal("found no routes in internal/httpapi/server.go")
	}
	return routes
}

// routesOf adds the routes file registers to routes.
func routesOf(t *testing.T, file string, routes map[string]bool) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		switch {
		case !ok:
			return true
		case sel.Sel.Name == "handle", sel.Sel.Name == "handleFunc": // Server's own, registering on both muxes
		case sel.Sel.Name == "Handle", sel.Sel.Name == "HandleFunc":
		default:
			return true
		}
		// Either "GET /healthz", or "GET "+p+"/time": the literals around the prefix.
		var pattern string
		var lits func(e ast.Expr)
		lits = func(e ast.Expr) {
			switch e := e.(type) {
			case *ast.BasicLit:
				s, _ := strconv.Unquote(e.Value)
				pattern += s
			case *ast.BinaryExpr:
				lits(e.X)
				lits(e.Y)
			}
		}
		lits(call.Args[0])
		if method, path, ok := strings.Cut(pattern, " "); ok {
			routes[method+" "+path] = true
			if method == http.MethodGet { // ServeMux serves HEAD wherever GET is
				routes[http.MethodHead+" "+path] = true
			}
		}
		return true
	})
}

// TestOpenAPIRoutesMatchServer checks the document against the routes the
// server registers: every served route is described, and every described
// operation is served.
func TestOpenAPIRoutesMatchServer(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t, OpenAPI)
	served := servedRoutes(t)
	described := map[string]bool{}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method := range doc.Paths.Value(path).Operations() {
			described[method+" "+path] = true
		}
	}
	for _, r := range sortedKeys(served) {
		if !described[r] {
			t.Errorf("%s is served (internal/httpapi/server.go) but not described in openapi.yaml", r)
		}
	}
	for _, r := range sortedKeys(described) {
		if !served[r] {
			t.Errorf("%s is described in openapi.yaml but not served (internal/httpapi/server.go)", r)
		}
	}
}

// errorStatusTable reads the code → HTTP status table in the description
// of components.schemas.ErrorCode.
func errorStatusTable(t *testing.T, doc *openapi3.T) map[string]int {
	t.Helper()
	s := doc.Components.Schemas["ErrorCode"]
	if s == nil || s.Value == nil {
		t.Fatal("components.schemas.ErrorCode is missing")
	}
	table := map[string]int{}
	for _, line := range strings.Split(s.Value.Description, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) != 2 {
			continue
		}
		status, err := strconv.Atoi(strings.TrimSpace(cells[1]))
		if err != nil {
			continue
		}
		for _, code := range strings.Split(cells[0], ",") {
			table[strings.Trim(strings.TrimSpace(code), "`")] = status
		}
	}
	return table
}

// TestOpenAPIErrorStatuses checks the ErrorCode table against the one
// table the server answers from (statusOf in internal/httpapi/errors.go).
func TestOpenAPIErrorStatuses(t *testing.T) {
	t.Parallel()
	httpStatus := map[string]int{ // the net/http names statusOf may use
		"StatusBadRequest": http.StatusBadRequest, "StatusUnauthorized": http.StatusUnauthorized,
		"StatusForbidden": http.StatusForbidden, "StatusNotFound": http.StatusNotFound,
		"StatusMethodNotAllowed": http.StatusMethodNotAllowed, "StatusConflict": http.StatusConflict,
		"StatusPreconditionFailed": http.StatusPreconditionFailed, "StatusRequestEntityTooLarge": http.StatusRequestEntityTooLarge,
		"StatusRequestHeaderFieldsTooLarge": http.StatusRequestHeaderFieldsTooLarge,
		"StatusUnsupportedMediaType":        http.StatusUnsupportedMediaType, "StatusTooManyRequests": http.StatusTooManyRequests,
		"StatusInternalServerError": http.StatusInternalServerError, "StatusServiceUnavailable": http.StatusServiceUnavailable,
	}
	codes := errorCodeConstants(t)
	f, err := parser.ParseFile(token.NewFileSet(), "internal/httpapi/errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]int{}
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		k, kok := kv.Key.(*ast.SelectorExpr)
		v, vok := kv.Value.(*ast.SelectorExpr)
		if !kok || !vok || !strings.HasPrefix(k.Sel.Name, "Code") {
			return true
		}
		status, ok := httpStatus[v.Sel.Name]
		if !ok {
			t.Errorf("internal/httpapi/errors.go: %s maps to http.%s, which this test does not know", k.Sel.Name, v.Sel.Name)
		}
		served[codes[k.Sel.Name]] = status
		return true
	})
	if len(served) == 0 {
		t.Fatal("found no statusOf entries in internal/httpapi/errors.go")
	}
	documented := errorStatusTable(t, loadOpenAPI(t, OpenAPI))
	for _, code := range sortedKeys(served) {
		if documented[code] != served[code] {
			t.Errorf("%s: the ErrorCode table says %d, the server answers %d", code, documented[code], served[code])
		}
	}
	for _, code := range sortedKeys(documented) {
		if _, ok := served[code]; !ok {
			t.Errorf("%s: in the ErrorCode table but not in statusOf", code)
		}
	}
}

// TestOpenAPIExampleStatuses checks that every example of an operation's
// response fits that response's status: success envelopes under 2xx, and
// an error code under the status the ErrorCode table gives it; in a 207,
// each item's status agrees with its outcome in the same way.
func TestOpenAPIExampleStatuses(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t, OpenAPI)
	table := errorStatusTable(t, doc)
	checkError := func(where string, status int, e any) {
		m, _ := e.(map[string]any)
		code, _ := m["code"].(string)
		if want, ok := table[code]; !ok || want != status {
			t.Errorf("%s: error code %q under status %d; the ErrorCode table gives %d", where, code, status, want)
		}
	}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			for codeText, r := range op.Responses.Map() {
				status, err := strconv.Atoi(codeText)
				if err != nil || r.Value == nil {
					continue
				}
				for mt, media := range r.Value.Content {
					for name, ex := range media.Examples {
						if ex.Value == nil {
							continue
						}
						where := fmt.Sprintf("%s %s %d %s example %s", method, path, status, mt, name)
						body, _ := normalizeJSON(t, ex.Value.Value).(map[string]any)
						success, isEnvelope := body["success"].(bool)
						switch {
						case !isEnvelope:
							if path != "/openapi.json" {
								t.Errorf("%s: not in the envelope", where)
							}
						case success != (status < 300):
							t.Errorf("%s: success %v under status %d", where, success, status)
						case !success:
							checkError(where, status, body["error"])
						case status == http.StatusMultiStatus:
							data, _ := body["data"].(map[string]any)
							items, _ := data["items"].([]any)
							for i, it := range items {
								item, _ := it.(map[string]any)
								itemStatus, _ := item["status"].(float64)
								iw := fmt.Sprintf("%s item %d", where, i)
								if item["success"] == true {
									if itemStatus != 200 && itemStatus != 201 {
										t.Errorf("%s: success with status %v", iw, itemStatus)
									}
								} else {
									checkError(iw, int(itemStatus), item["error"])
								}
							}
						}
					}
				}
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
