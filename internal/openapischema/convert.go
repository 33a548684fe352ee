package openapischema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Keywords of an OpenAPI 3.0 Schema Object that mean the same in JSON
// Schema 2020-12, and whose value is not itself a schema.
var sameKeywords = map[string]bool{
	"type": true, "enum": true, "required": true, "format": true, "default": true,
	"title": true, "description": true, "readOnly": true, "writeOnly": true, "deprecated": true,
	"minimum": true, "maximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "pattern": true,
	"minItems": true, "maxItems": true, "uniqueItems": true,
	"minProperties": true, "maxProperties": true,
}

// Keywords that only annotate the document for people and tools.
var droppedKeywords = map[string]bool{"example": true, "externalDocs": true}

// convert returns the JSON Schema 2020-12 equivalent of an OpenAPI 3.0.3
// Schema Object found at where, or an error for what has no strict
// equivalent (see the package comment).
func convert(s any, where string) (any, error) {
	obj, ok := s.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be an object, got %T", where, s)
	}
	if ref, ok := obj["$ref"].(string); ok {
		if len(obj) != 1 {
			return nil, fmt.Errorf("%s: $ref with siblings %v, which OpenAPI 3.0 ignores", where, keys(obj))
		}
		name, ok := strings.CutPrefix(ref, "#/components/schemas/")
		if !ok {
			return nil, fmt.Errorf("%s: $ref %s is not to components.schemas", where, ref)
		}
		return map[string]any{"$ref": "#/$defs/" + escapePointer(name)}, nil
	}
	out := map[string]any{}
	for _, k := range keys(obj) {
		v := obj[k]
		at := where + "/" + k
		switch {
		case sameKeywords[k]:
			out[k] = v
		case droppedKeywords[k], strings.HasPrefix(k, "x-"), k == "nullable", k == "exclusiveMinimum", k == "exclusiveMaximum":
			// handled below, or dropped
		case k == "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: not an object", at)
			}
			conv := map[string]any{}
			for name, p := range props {
				c, err := convert(p, at+"/"+escapePointer(name))
				if err != nil {
					return nil, err
				}
				conv[name] = c
			}
			out[k] = conv
		case k == "additionalProperties":
			if b, ok := v.(bool); ok {
				out[k] = b
				continue
			}
			fallthrough
		case k == "items", k == "not":
			c, err := convert(v, at)
			if err != nil {
				return nil, err
			}
			out[k] = c
		case k == "allOf", k == "anyOf", k == "oneOf":
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return nil, fmt.Errorf("%s: must be a non-empty list", at)
			}
			conv := make([]any, len(list))
			for i, item := range list {
				c, err := convert(item, fmt.Sprintf("%s/%d", at, i))
				if err != nil {
					return nil, err
				}
				conv[i] = c
			}
			out[k] = conv
		default:
			return nil, fmt.Errorf("%s: keyword %q has no strict JSON Schema equivalent here", where, k)
		}
	}
	if t, ok := out["type"]; ok {
		if _, ok := t.(string); !ok {
			return nil, fmt.Errorf("%s: type must be one string in OpenAPI 3.0, got %v", where, t)
		}
	}
	for _, bound := range []struct{ excl, incl string }{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		switch obj[bound.excl] {
		case nil, false:
		case true:
			limit, ok := out[bound.incl]
			if !ok {
				return nil, fmt.Errorf("%s: %s without %s", where, bound.excl, bound.incl)
			}
			out[bound.excl] = limit
			delete(out, bound.incl)
		default:
			return nil, fmt.Errorf("%s: %s must be a boolean in OpenAPI 3.0", where, bound.excl)
		}
	}
	switch obj["nullable"] {
	case nil, false:
	case true:
		t, ok := out["type"]
		if !ok {
			return nil, fmt.Errorf("%s: nullable without type, which OpenAPI 3.0.3 ignores (null stays invalid)", where)
		}
		out["type"] = []any{t, "null"}
		if enum, ok := out["enum"].([]any); ok {
			out["enum"] = append(append([]any(nil), enum...), nil)
		}
	default:
		return nil, fmt.Errorf("%s: nullable must be a boolean", where)
	}
	return out, nil
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// formats are OpenAPI's own formats, beside those JSON Schema defines.
var formats = []*jsonschema.Format{
	{Name: "int32", Validate: intRange(math.MinInt32, math.MaxInt32)},
	{Name: "int64", Validate: intRange(math.MinInt64, math.MaxInt64)},
	{Name: "float", Validate: anyNumber},
	{Name: "double", Validate: anyNumber},
}

// intRange checks that an integer lies in [lo, hi]; other values are not
// its business (type says what they must be).
func intRange(lo, hi int64) func(v any) error {
	return func(v any) error {
		n, ok := v.(json.Number)
		if !ok {
			return nil
		}
		i, ok := new(big.Int).SetString(string(n), 10)
		if !ok {
			return nil // not an integer: for type to refuse, if it says integer
		}
		if i.Cmp(big.NewInt(lo)) < 0 || i.Cmp(big.NewInt(hi)) > 0 {
			return errors.New("out of range")
		}
		return nil
	}
}

func anyNumber(v any) error { return nil }
