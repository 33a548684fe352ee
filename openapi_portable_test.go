package adcamp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"sigs.k8s.io/yaml"

	"github.com/adcamp/adcamp/internal/openapischema"
)

// rawOpenAPI returns openapi.yaml as plain maps and lists.
func rawOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// walk calls fn with every object of v and its JSON pointer.
func walk(v any, at string, fn func(at string, obj map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		fn(at, v)
		for _, k := range sortedKeys(v) {
			walk(v[k], at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), fn)
		}
	case []any:
		for i, item := range v {
			walk(item, fmt.Sprintf("%s/%d", at, i), fn)
		}
	}
}

// TestOpenAPIPortable checks the rules that keep openapi.yaml readable by
// every usual tool (see docs/openapi.md): Redocly and Spectral lint it in
// CI; these are the rules a generator or validator trips on that the linters
// do not catch.
func TestOpenAPIPortable(t *testing.T) {
	t.Parallel()
	doc := rawOpenAPI(t)
	walk(doc["paths"], "#/paths", func(at string, obj map[string]any) { checkSchemaRules(t, at, obj) })
	walk(doc["components"], "#/components", func(at string, obj map[string]any) { checkSchemaRules(t, at, obj) })

	// Names that code generators turn into types must not collide.
	comps := doc["components"].(map[string]any)
	seen := map[string]string{}
	for _, section := range []string{"schemas", "parameters", "responses", "requestBodies"} {
		m, _ := comps[section].(map[string]any)
		for _, name := range sortedKeys(m) {
			if other, ok := seen[name]; ok {
				t.Errorf("components.%s.%s has the name of components.%s.%s: generators give both one type name", section, name, other, name)
			}
			seen[name] = section
		}
	}
	// A default inside a request body makes generators (openapi-typescript)
	// treat the member as always present; defaults are said in words there.
	walk(comps["schemas"], "#/components/schemas", func(at string, obj map[string]any) {
		if _, ok := obj["default"]; ok && !strings.Contains(at, "/properties/default") {
			t.Errorf("%s: a default in a schema; say it in the description", at)
		}
	})
}

// checkSchemaRules applies the rules to one object of the document that
// may be a schema.
func checkSchemaRules(t *testing.T, at string, obj map[string]any) {
	t.Helper()
	if strings.Contains(at, "/examples/") || strings.HasSuffix(at, "/examples") || strings.Contains(at, "/example") {
		return
	}
	for _, k := range []string{"allOf", "anyOf"} {
		if _, ok := obj[k]; ok {
			t.Errorf("%s: %s; generators merge or drop it badly: write the schema out", at, k)
		}
	}
	if _, ok := obj["multipleOf"]; ok {
		t.Errorf("%s: multipleOf, which validators computing in floating point break for cents", at)
	}
	if obj["nullable"] == true && obj["type"] == nil {
		t.Errorf("%s: nullable without type, which OpenAPI 3.0.3 ignores", at)
	}
	if obj["type"] == "number" && obj["format"] != "double" {
		t.Errorf("%s: a number without format: double (generators make it a float32)", at)
	}
}

// TestOpenAPIResponsesAsServed checks what the document says each answer
// carries against how internal/httpapi answers: 405 under every operation
// (the catch-all answers it for any method the path lacks, and OpenAPI has
// no other place for that answer); Idempotent-Replayed on
// every answer of a POST, PUT or DELETE that serveOnce stores (all but 401,
// 403, 405 and 413, given before it, and 429 and 5xx, never stored); the
// RateLimit-* headers on every answer of a signed operation given after
// authentication; and the 409 of every POST, PUT and DELETE naming the two
// codes of replay protection, which runs for each of them.
func TestOpenAPIResponsesAsServed(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t, OpenAPI)
	beforeAuth := map[int]bool{401: true, 403: true, 405: true, 413: true}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			key := method + " " + path
			signed := op.Security == nil || len(*op.Security) > 0
			mutating := method == http.MethodPost || method == http.MethodPut || method == http.MethodDelete
			if r := op.Responses.Status(405); r == nil || r.Ref != "#/components/responses/MethodNotAllowed" {
				t.Errorf("%s: no 405 MethodNotAllowed", key)
			}
			for codeText, r := range op.Responses.Map() {
				status, _ := strconv.Atoi(codeText)
				has := func(h string) bool { return r.Value.Headers[h] != nil }
				if mutating && !beforeAuth[status] && status != 429 && status < 500 && !has("Idempotent-Replayed") {
					t.Errorf("%s %d: no Idempotent-Replayed header (a replay of this answer carries it)", key, status)
				}
				if has("Idempotent-Replayed") && (!mutating || beforeAuth[status] || status == 429 || status >= 500) {
					t.Errorf("%s %d: Idempotent-Replayed on an answer that is never replayed", key, status)
				}
				if signed && !beforeAuth[status] && !(has("RateLimit-Limit") && has("RateLimit-Remaining") && has("RateLimit-Reset")) {
					t.Errorf("%s %d: no RateLimit-* headers (sent after authentication while the limit is on)", key, status)
				}
				// A 500 or 503 answer is shared by signed and unsigned routes:
				// after authentication it carries them, so it lists them.
				if (!signed || beforeAuth[status]) && has("RateLimit-Limit") && status < 500 {
					t.Errorf("%s %d: RateLimit-* headers on an answer given before authentication", key, status)
				}
			}
			if mutating {
				r := op.Responses.Status(409)
				if r == nil || !strings.Contains(*r.Value.Description, "`IDEMPOTENCY_KEY_REUSED`") ||
					!strings.Contains(*r.Value.Description, "`CONFLICT`") {
					t.Errorf("%s: the 409 does not name IDEMPOTENCY_KEY_REUSED and CONFLICT", key)
				}
			}
		}
	}
}

// TestOpenAPIStrict converts openapi.yaml, and the JSON served from it, for
// the strict validator, and runs every example of an operation through it.
func TestOpenAPIStrict(t *testing.T) {
	t.Parallel()
	v, err := openapischema.New(OpenAPI)
	if err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	js, err := yaml.YAMLToJSON(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openapischema.New(js); err != nil {
		t.Fatalf("openapi.json (as served): %v", err)
	}
	doc := loadOpenAPI(t, OpenAPI)
	checked := 0
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			if op.RequestBody != nil {
				for name, ex := range op.RequestBody.Value.Content["application/json"].Examples {
					if err := v.Request(method, path, exampleJSON(t, ex)); err != nil {
						t.Errorf("%s %s request example %s: %v", method, path, name, err)
					}
					checked++
				}
			}
			for codeText, r := range op.Responses.Map() {
				status, _ := strconv.Atoi(codeText)
				media := r.Value.Content["application/json"]
				if media == nil {
					continue
				}
				for _, name := range slices.Sorted(func(yield func(string) bool) {
					for k := range media.Examples {
						if !yield(k) {
							return
						}
					}
				}) {
					if err := v.Response(method, path, status, http.Header{}, exampleJSON(t, media.Examples[name])); err != nil {
						t.Errorf("%s %s %d example %s: %v", method, path, status, name, err)
					}
					checked++
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked %d examples; expected the document's hundreds", checked)
	}
}

func exampleJSON(t *testing.T, ex *openapi3.ExampleRef) []byte {
	t.Helper()
	b, err := json.Marshal(ex.Value.Value)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
