package apicmd

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/adcamp/adcamp"
)

// flagOf names the flag of a documented body field where it is not the
// field's name with dashes: budget_daily is --budget, channel_account_id
// --channel-account, and the version precondition --if-match.
var flagOf = map[string]string{
	"budget_daily":       "budget",
	"channel_account_id": "channel-account",
	"version":            "if-match",
}

// TestFlagsCoverDocumentedFields: every field of the create and update
// bodies in openapi.yaml can be given on the command line, so that a
// field added to the API and forgotten in the CLI fails here
// (docs/CONTRIBUTING.md, "Adding a field"). internal/httpapi's
// fields_test.go holds the document, the HTTP layer and the SDK together.
func TestFlagsCoverDocumentedFields(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(adcamp.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		command string
		schema  string
	}{
		{"campaigns create", "CampaignCreate"},
		{"campaigns update", "CampaignUpdate"},
		{"ad-groups create", "AdGroupCreate"},
		{"ad-groups update", "AdGroupUpdate"},
		{"keywords create", "KeywordCreate"},
		{"keywords update", "KeywordUpdate"},
		{"negatives create", "NegativeKeywordCreate"},
		{"negatives update", "NegativeKeywordUpdate"},
	} {
		flags := commandFlags(t, strings.Fields(tc.command)...)
		schema := doc.Components.Schemas[tc.schema]
		if schema == nil {
			t.Fatalf("openapi.yaml has no schema %s", tc.schema)
		}
		for field := range schema.Value.Properties {
			flag, ok := flagOf[field]
			if !ok {
				flag = strings.ReplaceAll(field, "_", "-")
			}
			if !slices.Contains(flags, flag) {
				t.Errorf("adcamp %s has no --%s for %s's %s (its flags: %v)", tc.command, flag, tc.schema, field, flags)
			}
		}
	}
}

var flagLine = regexp.MustCompile(`(?m)^  -([a-z-]+)`)

// commandFlags lists the flags that "adcamp COMMAND -h" prints (on stdout).
func commandFlags(t *testing.T, args ...string) []string {
	t.Helper()
	var stdout bytes.Buffer
	run(context.Background(), append(args, "-h"), noEnv, strings.NewReader(""), &stdout)
	var flags []string
	for _, m := range flagLine.FindAllStringSubmatch(stdout.String(), -1) {
		flags = append(flags, m[1])
	}
	if len(flags) == 0 {
		t.Fatalf("adcamp %s -h printed no flags:\n%s", strings.Join(args, " "), stdout.String())
	}
	return flags
}
