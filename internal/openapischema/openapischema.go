// Package openapischema checks JSON bodies and headers against openapi.yaml
// with a strict JSON Schema validator (santhosh-tekuri/jsonschema, draft
// 2020-12, formats asserted), as a second opinion beside kin-openapi.
//
// kin-openapi reads an OpenAPI 3.0 document leniently: it lets `nullable`
// widen a schema that has no `type` (3.0.3 says such a `nullable` has no
// effect), and so accepted `"bid": null` under `allOf` + `nullable`, which
// other validators refuse. This package converts the document's schemas into
// plain JSON Schema by the letter of OpenAPI 3.0.3, and refuses to convert a
// keyword it does not know, or a construct whose meaning tools disagree on,
// rather than skip it:
//
//   - `nullable: true` adds "null" to `type` (and to `enum`); without a `type`
//     beside it, it is an error, as it is for ajv's strict mode;
//   - the boolean `exclusiveMinimum`/`exclusiveMaximum` of 3.0 become the
//     numeric ones of JSON Schema;
//   - a `$ref` stands alone (3.0 ignores its siblings: they are an error here);
//   - `example` and `externalDocs` are dropped; any other keyword outside
//     JSON Schema's own is an error;
//   - the formats are asserted: date and date-time by the validator, int32
//     and int64 as ranges, float and double as any number.
//
// It is used by the tests: internal/httpapi runs every response of its suite
// through it, and the document's own tests check that a wrong document fails.
package openapischema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// base names the converted document for the validator; it is never fetched.
const base = "urn:adcamp:openapi"

// Validator checks bodies and headers against one OpenAPI document.
type Validator struct {
	doc     map[string]any
	schemas map[string]*jsonschema.Schema // by $defs name
}

// New converts doc (openapi.yaml, as YAML or JSON) and compiles every schema
// it gives a request body or a response, reporting the first construct it
// cannot convert strictly.
func New(doc []byte) (*Validator, error) {
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return nil, err
	}
	d, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New("openapi document is not an object")
	}
	defs := map[string]any{}
	comps, _ := d["components"].(map[string]any)
	schemas, _ := comps["schemas"].(map[string]any)
	for name, s := range schemas {
		c, err := convert(s, "#/components/schemas/"+name)
		if err != nil {
			return nil, err
		}
		defs[name] = c
	}
	v := &Validator{doc: d, schemas: map[string]*jsonschema.Schema{}}
	media := map[string]any{} // $defs name → the media type's own schema
	v.eachMedia(func(key string, schema any) {
		media[key] = schema
	})
	for key, s := range media {
		c, err := convert(s, key)
		if err != nil {
			return nil, err
		}
		defs[key] = c
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.AssertFormat()
	for _, f := range formats {
		comp.RegisterFormat(f)
	}
	if err := comp.AddResource(base, map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(defs))
	for name := range defs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s, err := comp.Compile(base + "#/$defs/" + escapePointer(name))
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", name, err)
		}
		v.schemas[name] = s
	}
	return v, nil
}

// schema validates a JSON value against components.schemas[name].
func (v *Validator) schema(name string, body []byte) error {
	s := v.schemas[name]
	if s == nil {
		return fmt.Errorf("no schema %q", name)
	}
	return validate(s, body)
}

// Response checks an answer to method on path (a path of the document, as
// "/campaigns/{campaign_id}"): its status must be documented, every header
// it carries but HTTP's own must be documented for it and match its schema,
// and the body must match the JSON schema of the response, or be empty if
// it has none.
func (v *Validator) Response(method, path string, status int, header http.Header, body []byte) error {
	resp, err := v.response(method, path, status)
	if err != nil {
		return err
	}
	var errs []error
	headers, _ := resp["headers"].(map[string]any)
	for name := range header {
		if !framing[name] && !documented(headers, name) {
			errs = append(errs, fmt.Errorf("header %s is sent but not documented for %s %s %d", name, method, path, status))
		}
	}
	for name, h := range headers {
		value := header.Get(name)
		if value == "" {
			continue
		}
		h, err := v.resolve(h)
		if err != nil {
			return err
		}
		if err := checkHeader(h, value); err != nil {
			errs = append(errs, fmt.Errorf("header %s: %q %w", name, value, err))
		}
	}
	key := mediaKey(method, path, strconv.Itoa(status))
	s := v.schemas[key]
	switch {
	case resp["content"] == nil && len(body) > 0 && method != http.MethodHead:
		errs = append(errs, fmt.Errorf("%s %s %d documents no JSON body, got %d bytes", method, path, status, len(body)))
	case s != nil && method != http.MethodHead:
		if err := validate(s, body); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// framing are the headers of HTTP itself, which the document leaves out.
var framing = map[string]bool{"Content-Type": true, "Content-Length": true, "Transfer-Encoding": true,
	"Connection": true, "Keep-Alive": true, "Vary": true}

// documented reports whether name (canonical) is among a response's headers.
func documented(headers map[string]any, name string) bool {
	for h := range headers {
		if http.CanonicalHeaderKey(h) == name {
			return true
		}
	}
	return false
}

// Description returns the description of the response to method on path
// with status, or "" if there is none.
func (v *Validator) Description(method, path string, status int) string {
	resp, err := v.response(method, path, status)
	if err != nil {
		return ""
	}
	d, _ := resp["description"].(string)
	return d
}

// Request checks a JSON request body against the operation's request body
// schema (for a request the server accepted: what it accepts must be valid).
func (v *Validator) Request(method, path string, body []byte) error {
	s := v.schemas[mediaKey(method, path, "request")]
	if s == nil {
		if len(body) == 0 {
			return nil
		}
		return fmt.Errorf("%s %s documents no JSON request body", method, path)
	}
	return validate(s, body)
}

// Paths returns the paths of the document, sorted.
func (v *Validator) Paths() []string {
	paths, _ := v.doc["paths"].(map[string]any)
	return keys(paths)
}

// Methods returns the methods the document gives path, upper case and
// sorted, as an Allow header would list them.
func (v *Validator) Methods(path string) []string {
	paths, _ := v.doc["paths"].(map[string]any)
	item, _ := paths[path].(map[string]any)
	var out []string
	for m := range item {
		if isMethod(m) {
			out = append(out, strings.ToUpper(m))
		}
	}
	sort.Strings(out)
	return out
}

func isMethod(m string) bool {
	return slices.Contains([]string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}, m)
}

func (v *Validator) response(method, path string, status int) (map[string]any, error) {
	paths, _ := v.doc["paths"].(map[string]any)
	item, _ := paths[path].(map[string]any)
	op, _ := item[strings.ToLower(method)].(map[string]any)
	if op == nil {
		return nil, fmt.Errorf("%s %s is not in the document", method, path)
	}
	responses, _ := op["responses"].(map[string]any)
	r, ok := responses[strconv.Itoa(status)]
	if !ok {
		return nil, fmt.Errorf("%s %s: status %d is not documented", method, path, status)
	}
	resp, err := v.resolve(r)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// eachMedia calls fn with the JSON schema of every request body and
// response of every operation, named by mediaKey.
func (v *Validator) eachMedia(fn func(key string, schema any)) {
	paths, _ := v.doc["paths"].(map[string]any)
	for path, it := range paths {
		item, _ := it.(map[string]any)
		for m, o := range item {
			op, _ := o.(map[string]any)
			if !isMethod(m) || op == nil {
				continue
			}
			if rb, err := v.resolve(op["requestBody"]); err == nil && rb != nil {
				if s := jsonSchemaOf(rb); s != nil {
					fn(mediaKey(m, path, "request"), s)
				}
			}
			responses, _ := op["responses"].(map[string]any)
			for code, r := range responses {
				resp, err := v.resolve(r)
				if err != nil || resp == nil {
					continue
				}
				if s := jsonSchemaOf(resp); s != nil {
					fn(mediaKey(m, path, code), s)
				}
			}
		}
	}
}

// jsonSchemaOf returns the schema of the application/json content of a
// request body or response, or nil.
func jsonSchemaOf(obj map[string]any) any {
	content, _ := obj["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	return media["schema"]
}

// resolve follows a "#/components/..." reference, or returns obj itself.
func (v *Validator) resolve(obj any) (map[string]any, error) {
	m, _ := obj.(map[string]any)
	ref, ok := m["$ref"].(string)
	if !ok {
		return m, nil
	}
	var cur any = v.doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		next, _ := cur.(map[string]any)
		cur = next[unescapePointer(part)]
	}
	r, ok := cur.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("unresolved reference %s", ref)
	}
	return r, nil
}

func mediaKey(method, path, code string) string {
	return strings.ToUpper(method) + " " + path + " " + code
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

func validate(s *jsonschema.Schema, body []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	return s.Validate(inst)
}

// checkHeader validates a header value against the header's schema: the
// value read as the schema's type (integer, number, boolean or string).
func checkHeader(h map[string]any, value string) error {
	schema, _ := h["schema"].(map[string]any)
	if schema == nil {
		return nil
	}
	conv, err := convert(schema, "header")
	if err != nil {
		return err
	}
	var inst any = value
	switch schema["type"] {
	case "integer", "number":
		if !json.Valid([]byte(value)) || strings.ContainsAny(value, "\"[{tfn \t") {
			return errors.New("is not a number")
		}
		inst = json.Number(value)
	case "boolean":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return errors.New("is not a boolean")
		}
		inst = b
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("urn:adcamp:header", conv); err != nil {
		return err
	}
	s, err := c.Compile("urn:adcamp:header")
	if err != nil {
		return err
	}
	return s.Validate(inst)
}
