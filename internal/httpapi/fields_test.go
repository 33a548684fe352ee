package httpapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client"
)

// The fields of campaigns, ad groups and keywords are described four
// times: in openapi.yaml, in this package's answer types and body readers,
// in the SDK's types, and in the CLI's flags (cmd/adcamp's
// TestFlagsCoverDocumentedFields). These tests fail when the first three
// disagree, so that a field added in one place and forgotten in another
// is found (docs/CONTRIBUTING.md, "Adding a field").

// resource ties one entity's descriptions together.
type resource struct {
	name           string // its schema in openapi.yaml
	create, update string // the schemas of its create and update bodies
	answer         any    // this package's answer type
	read           func(*object) []adcamp.FieldIssue
	sdk            any // the SDK's type of the entity
	sdkCreate      any
	sdkUpdate      any
	// sdkBodyElsewhere lists the documented body fields the SDK sends by
	// another means than its body types: version as UpdateOptions.IfMatch
	// (an If-Match header).
	sdkBodyElsewhere []string
	// entity is the domain's type, every field of which the answer shows
	// (named in snake case) but those of its tenant.
	entity any
	// derived lists the fields the answer shows beside the entity's,
	// computed from them (a negative keyword's level).
	derived []string
}

// tenantFields are the entities' fields an answer never shows: the
// tenant is the key's.
var tenantFields = []string{"account_id", "environment"}

var resources = []resource{
	{
		name: "Campaign", create: "CampaignCreate", update: "CampaignUpdate",
		answer: campaignJSON{},
		read:   func(o *object) []adcamp.FieldIssue { return campaignInput(o).Invalid },
		sdk:    client.Campaign{}, sdkCreate: client.CampaignCreate{}, sdkUpdate: client.CampaignUpdate{},
		sdkBodyElsewhere: []string{"version"},
		entity:           adcamp.Campaign{},
	},
	{
		name: "AdGroup", create: "AdGroupCreate", update: "AdGroupUpdate",
		answer: adGroupJSON{},
		read:   func(o *object) []adcamp.FieldIssue { return adGroupInput(o).Invalid },
		sdk:    client.AdGroup{}, sdkCreate: client.AdGroupCreate{}, sdkUpdate: client.AdGroupUpdate{},
		sdkBodyElsewhere: []string{"version"},
		entity:           adcamp.AdGroup{},
	},
	{
		name: "Keyword", create: "KeywordCreate", update: "KeywordUpdate",
		answer: keywordJSON{},
		read:   func(o *object) []adcamp.FieldIssue { return keywordInput(o).Invalid },
		sdk:    client.Keyword{}, sdkCreate: client.KeywordCreate{}, sdkUpdate: client.KeywordUpdate{},
		sdkBodyElsewhere: []string{"version"},
		entity:           adcamp.Keyword{},
	},
	{
		name: "NegativeKeyword", create: "NegativeKeywordCreate", update: "NegativeKeywordUpdate",
		answer: negativeJSON{},
		read:   func(o *object) []adcamp.FieldIssue { return negativeInput(o).Invalid },
		sdk:    client.NegativeKeyword{}, sdkCreate: client.NegativeKeywordCreate{}, sdkUpdate: client.NegativeKeywordUpdate{},
		sdkBodyElsewhere: []string{"version"},
		entity:           adcamp.NegativeKeyword{},
		derived:          []string{"level"},
	},
	{
		name: "NegativeList", create: "NegativeListCreate", update: "NegativeListUpdate",
		answer: negativeListJSON{},
		read:   func(o *object) []adcamp.FieldIssue { return negativeListInput(o).Invalid },
		sdk:    client.NegativeList{}, sdkCreate: client.NegativeListCreate{}, sdkUpdate: client.NegativeListUpdate{},
		sdkBodyElsewhere: []string{"version"},
		entity:           adcamp.NegativeList{},
	},
	{
		name: "WebhookEndpoint", create: "WebhookEndpointCreate", update: "WebhookEndpointUpdate",
		answer: endpointJSON{},
		read: func(o *object) []adcamp.FieldIssue {
			endpointInput(o)
			return o.fields
		},
		sdk: client.WebhookEndpoint{}, sdkCreate: client.WebhookEndpointCreate{}, sdkUpdate: client.WebhookEndpointUpdate{},
		entity: adcamp.WebhookEndpoint{},
		// The environment is the key's, shown because an endpoint is of one;
		// the secret is in the answers of create and rotate only.
		derived: []string{"environment", "secret"},
	},
}

func TestAnswersMatchTheDocument(t *testing.T) {
	t.Parallel()
	doc := loadDocument(t)
	for _, r := range resources {
		want := schemaFields(t, doc, r.name)
		if got := jsonFields(r.answer); !slices.Equal(got, want) {
			t.Errorf("%T writes %v; openapi.yaml's %s has %v", r.answer, got, r.name, want)
		}
		if got := jsonFields(r.sdk); !slices.Equal(got, want) {
			t.Errorf("SDK %T reads %v; openapi.yaml's %s has %v", r.sdk, got, r.name, want)
		}
	}
}

// TestAnswersShowEveryField: the answer types show every field of the
// domain's entities but the tenant's, so that a field added to an entity
// and forgotten in the API fails here (docs/CONTRIBUTING.md, "Adding a
// field"); TestAnswersMatchTheDocument then holds openapi.yaml to it.
func TestAnswersShowEveryField(t *testing.T) {
	t.Parallel()
	for _, r := range resources {
		want := slices.Clone(r.derived)
		typ := reflect.TypeOf(r.entity)
		for i := range typ.NumField() {
			if name := snakeCase(typ.Field(i).Name); !slices.Contains(tenantFields, name) {
				want = append(want, name)
			}
		}
		slices.Sort(want)
		got := slices.DeleteFunc(jsonFields(r.answer), func(f string) bool { return slices.Contains(computedFields, f) })
		if !slices.Equal(got, want) {
			t.Errorf("%T writes %v; the fields of %T are %v", r.answer, got, r.entity, want)
		}
	}
}

// computedFields are fields an answer computes rather than stores: a
// campaign's serving status and spend today.
var computedFields = []string{"serving_status", "spend_today"}

// snakeCase writes a Go field name as a JSON member: ChannelAccountID is
// channel_account_id.
func snakeCase(name string) string {
	var b strings.Builder
	for i, r := range name {
		if i > 0 && unicode.IsUpper(r) && unicode.IsLower(rune(name[i-1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func TestBodyReadersMatchTheDocument(t *testing.T) {
	t.Parallel()
	doc := loadDocument(t)
	for _, r := range resources {
		writable := union(schemaFields(t, doc, r.create), schemaFields(t, doc, r.update))
		// Every field of the entity and its bodies, and one nobody knows.
		for _, name := range append(union(writable, schemaFields(t, doc, r.name)), "no_such_field") {
			issues := r.read(&object{members: []member{{name, jsontext.Value(`null`)}}})
			var got string
			for _, is := range issues {
				got = is.Issue
			}
			want := ""
			switch {
			case name == "no_such_field":
				want = "is not a known field"
			case !slices.Contains(writable, name):
				want = "is read-only"
			}
			if got != want {
				t.Errorf("the %s reader says %q of %q, want %q (openapi.yaml's %s and %s: %v)",
					r.name, got, name, want, r.create, r.update, writable)
			}
		}
	}
}

func TestSDKBodiesMatchTheDocument(t *testing.T) {
	t.Parallel()
	doc := loadDocument(t)
	for _, r := range resources {
		for _, b := range []struct {
			schema string
			sdk    any
		}{{r.create, r.sdkCreate}, {r.update, r.sdkUpdate}} {
			want := without(schemaFields(t, doc, b.schema), r.sdkBodyElsewhere)
			if got := jsonFields(b.sdk); !slices.Equal(got, want) {
				t.Errorf("SDK %T sends %v; openapi.yaml's %s has %v (less %v, sent otherwise)",
					b.sdk, got, b.schema, want, r.sdkBodyElsewhere)
			}
		}
	}
}

// TestSDKKnowsEveryErrorCode: the SDK's Code constants are the document's
// ErrorCode enum, and the server's codes are too.
func TestSDKKnowsEveryErrorCode(t *testing.T) {
	t.Parallel()
	doc := loadDocument(t)
	var want []string
	for _, v := range doc.Components.Schemas["ErrorCode"].Value.Enum {
		want = append(want, v.(string))
	}
	slices.Sort(want)
	var server []string
	for code := range statusOf {
		server = append(server, string(code))
	}
	slices.Sort(server)
	if !slices.Equal(server, want) {
		t.Errorf("the server answers the codes %v; openapi.yaml's ErrorCode lists %v", server, want)
	}
	sdk := sdkErrorCodes(t)
	if !slices.Equal(sdk, want) {
		t.Errorf("the SDK knows the codes %v; openapi.yaml's ErrorCode lists %v", sdk, want)
	}
}

func loadDocument(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(adcamp.OpenAPI)
	if err != nil {
		t.Fatalf("load openapi.yaml: %v", err)
	}
	return doc
}

// schemaFields lists the properties of a component schema, with those of
// the schemas it combines (allOf, anyOf, oneOf), sorted.
func schemaFields(t *testing.T, doc *openapi3.T, name string) []string {
	t.Helper()
	ref := doc.Components.Schemas[name]
	if ref == nil {
		t.Fatalf("openapi.yaml has no schema %s", name)
	}
	var names []string
	var walk func(s *openapi3.Schema)
	walk = func(s *openapi3.Schema) {
		for p := range s.Properties {
			names = append(names, p)
		}
		for _, refs := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, r := range refs {
				walk(r.Value)
			}
		}
	}
	walk(ref.Value)
	slices.Sort(names)
	return slices.Compact(names)
}

// jsonFields lists the JSON names of a struct's fields, sorted.
func jsonFields(v any) []string {
	var names []string
	typ := reflect.TypeOf(v)
	for i := range typ.NumField() {
		tag := typ.Field(i).Tag.Get("json")
		if name, _, _ := strings.Cut(tag, ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

func union(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

func without(a, drop []string) []string {
	return slices.DeleteFunc(slices.Clone(a), func(s string) bool { return slices.Contains(drop, s) })
}

// sdkErrorCodes reads the SDK's Code constants from its source.
func sdkErrorCodes(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../client/errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(name.Name, "Code") {
					v, _ := strconv.Unquote(lit.Value)
					codes = append(codes, v)
				}
			}
		}
	}
	slices.Sort(codes)
	return codes
}
