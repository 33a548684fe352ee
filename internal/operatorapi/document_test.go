package operatorapi_test

import (
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/operatorapi"
)

// TestDocumentDescribesEveryRoute: every route the operator listener
// serves is an operation of openapi-operator.yaml, and every operation
// there is served.
func TestDocumentDescribesEveryRoute(t *testing.T) {
	t.Parallel()
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := yaml.Unmarshal(adcamp.OpenAPIOperator, &doc); err != nil {
		t.Fatal(err)
	}
	described := map[string]bool{}
	for path, ops := range doc.Paths {
		for method := range ops {
			switch method {
			case "get", "post", "put", "delete", "patch":
				described[strings.ToUpper(method)+" "+operatorapi.Prefix+path] = true
			}
		}
	}
	s, err := operatorapi.New(operatorapi.Config{})
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, r := range s.Routes() {
		served[r] = true
		if !described[r] {
			t.Errorf("%s is served but not described in openapi-operator.yaml", r)
		}
	}
	var extra []string
	for r := range described {
		if !served[r] {
			extra = append(extra, r)
		}
	}
	sort.Strings(extra)
	for _, r := range extra {
		t.Errorf("%s is described in openapi-operator.yaml but not served", r)
	}
	if len(served) < 3 {
		t.Errorf("Routes() = %v: too few", s.Routes())
	}
}
