package adcamp

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
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
	f, err := parser.ParseFile(token.NewFileSet(), "error.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range vs.Names {
			if strings.HasPrefix(name.Name, "Code") && i < len(vs.Values) {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					want = append(want, s)
				}
			}
		}
		return true
	})
	if len(want) == 0 {
		t.Fatal("found no Code* constants in error.go")
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
	doc := loadOpenAPI(t, OpenAPI)
	unsigned := map[string]bool{"/time": true, "/openapi.json": true, "/healthz": true, "/readyz": true}
	wantOps := map[string]bool{ // the routes the document must describe, at least
		"GET /time": true, "GET /openapi.json": true, "GET /healthz": true, "GET /readyz": true,
		"POST /campaigns": true, "GET /campaigns": true,
		"GET /campaigns/{campaign_id}": true, "PUT /campaigns/{campaign_id}": true, "DELETE /campaigns/{campaign_id}": true,
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
				t.Errorf("%s: security = %v; want [] exactly on /time, /openapi.json, /healthz and /readyz", key, op.Security)
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
	for _, path := range []string{"/healthz", "/readyz"} {
		if s := doc.Paths.Value(path).Servers; len(s) == 0 || s[0].URL != "http://127.0.0.1:8080" {
			t.Errorf("%s: want a path-level server http://127.0.0.1:8080 (root, outside the prefix)", path)
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
