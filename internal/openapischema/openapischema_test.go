package openapischema

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// doc is a minimal OpenAPI document with one schema, Thing, whose body is
// given, and one operation answering it.
func doc(thing string) []byte {
	return fmt.Appendf(nil, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /things:
    get:
      responses:
        '200':
          description: ok
          headers:
            X-Count:
              schema: {type: integer, minimum: 1}
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Thing'
components:
  schemas:
    Thing:
%s
`, thing)
}

func TestConvert(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		valid        []string
		invalid      []string
		newErr       string // New fails with this, if set
	}{
		{name: "nullable beside type",
			schema: "      type: number\n      nullable: true",
			valid:  []string{"null", "1.5"}, invalid: []string{`"1.5"`}},
		{name: "nullable enum",
			schema: "      type: string\n      enum: [a, b]\n      nullable: true",
			valid:  []string{"null", `"a"`}, invalid: []string{`"c"`}},
		{name: "not nullable",
			schema:  "      type: number",
			invalid: []string{"null"}},
		{name: "nullable without type",
			schema: "      allOf:\n        - type: number\n      nullable: true",
			newErr: "nullable without type"},
		{name: "exclusiveMinimum",
			schema: "      type: number\n      minimum: 0\n      exclusiveMinimum: true\n      maximum: 10",
			valid:  []string{"0.01", "10"}, invalid: []string{"0", "10.01"}},
		{name: "exclusiveMinimum without minimum",
			schema: "      type: number\n      exclusiveMinimum: true",
			newErr: "exclusiveMinimum without minimum"},
		{name: "exact decimals",
			schema: "      type: number\n      multipleOf: 0.01",
			valid:  []string{"0.07", "1.11", "999999.99"}, invalid: []string{"0.071"}},
		{name: "int64",
			schema: "      type: integer\n      format: int64",
			valid:  []string{"9223372036854775807"}, invalid: []string{"9223372036854775808", "1.5"}},
		{name: "date-time asserted",
			schema: "      type: string\n      format: date-time",
			valid:  []string{`"2026-11-18T11:06:40Z"`}, invalid: []string{`"2026-11-18 11:06:40"`}},
		{name: "closed object",
			schema: "      type: object\n      additionalProperties: false\n      properties:\n        a: {type: string}",
			valid:  []string{`{"a":"x"}`}, invalid: []string{`{"a":"x","b":1}`}},
		{name: "ref with siblings",
			schema: "      type: object\n      properties:\n        a:\n          $ref: '#/components/schemas/Other'\n          nullable: true",
			newErr: "$ref with siblings"},
		{name: "unknown keyword",
			schema: "      type: string\n      discriminator: {propertyName: kind}",
			newErr: `keyword "discriminator"`},
		{name: "example dropped",
			schema: "      type: string\n      example: x",
			valid:  []string{`"y"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := New(doc(tc.schema))
			if tc.newErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.newErr) {
					t.Fatalf("New = %v, want an error with %q", err, tc.newErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, body := range tc.valid {
				if err := v.schema("Thing", []byte(body)); err != nil {
					t.Errorf("schema(%s) = %v, want valid", body, err)
				}
				if err := v.Response("GET", "/things", 200, http.Header{}, []byte(body)); err != nil {
					t.Errorf("Response(%s) = %v, want valid", body, err)
				}
			}
			for _, body := range tc.invalid {
				if err := v.schema("Thing", []byte(body)); err == nil {
					t.Errorf("schema(%s) = nil, want invalid", body)
				}
			}
		})
	}
}

func TestResponseHeadersAndStatus(t *testing.T) {
	v, err := New(doc("      type: string"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		status int
		header http.Header
		body   string
		ok     bool
	}{
		{200, http.Header{"X-Count": {"2"}}, `"x"`, true},
		{200, http.Header{"Content-Type": {"application/json"}}, `"x"`, true},
		{200, http.Header{"X-Count": {"0"}}, `"x"`, false},           // below its minimum
		{200, http.Header{"X-Count": {"two"}}, `"x"`, false},         // not an integer
		{200, http.Header{"Retry-After": {"1"}}, `"x"`, false},       // not documented for this answer
		{404, http.Header{}, `"x"`, false},                           // status not documented
		{200, http.Header{}, `1`, false},                             // body of the wrong type
		{200, http.Header{}, `"x" trailing`, false},                  // not JSON
		{200, http.Header{"Vary": {"Accept-Encoding"}}, `"x"`, true}, // HTTP's own
	} {
		err := v.Response("GET", "/things", tc.status, tc.header, []byte(tc.body))
		if (err == nil) != tc.ok {
			t.Errorf("Response(%d, %v, %s) = %v, want ok %v", tc.status, tc.header, tc.body, err, tc.ok)
		}
	}
	if got := v.Methods("/things"); len(got) != 1 || got[0] != "GET" {
		t.Errorf("Methods(/things) = %v, want [GET]", got)
	}
}
