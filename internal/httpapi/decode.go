package httpapi

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

// maxBody is the largest request body accepted (CONTRACT §6).
const maxBody = 1 << 20

// readBody reads the whole body, refusing more than maxBody bytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > maxBody {
		return nil, errorf(adcamp.CodePayloadTooLarge, "request body is %d bytes; at most %d are accepted", r.ContentLength, maxBody)
	}
	if r.Body == nil || r.Body == http.NoBody { // what net/http gives a request without a body
		return nil, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, errorf(adcamp.CodePayloadTooLarge, "request body is over %d bytes", maxBody)
	}
	if err != nil {
		return nil, errorf(adcamp.CodeInvalidJSON, "request body could not be read")
	}
	return body, nil
}

// member is one name and raw value of a JSON object, in request order.
type member struct {
	name  string
	value jsontext.Value
}

// object is a decoded request body: the members of one JSON object, and
// what was wrong with the shapes of their values.
type object struct {
	members []member
	types   adcamp.Issues // wrong JSON types, reported as INVALID_JSON
	fields  adcamp.Issues // unknown or read-only names, reported as VALIDATION_ERROR
}

// decodeBody checks the media type and parses the body as one object.
func decodeBody(r *http.Request, body []byte) (*object, error) {
	if len(body) > 0 || get(r.Header, headerContentType) != "" {
		if err := checkMediaType(get(r.Header, headerContentType)); err != nil {
			return nil, err
		}
	}
	return parseObject(body)
}

// parseObject parses data strictly: exactly one JSON object, valid UTF-8,
// no duplicate names at any depth, nothing after it.
func parseObject(data []byte) (*object, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	if dec.PeekKind() != '{' {
		return nil, errorf(adcamp.CodeInvalidJSON, "request body must be one JSON object")
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, invalidJSON(err)
	}
	obj := &object{}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, invalidJSON(err)
		}
		name := tok.String() // before ReadValue, which voids tok
		value, err := dec.ReadValue()
		if err != nil {
			return nil, invalidJSON(err)
		}
		obj.members = append(obj.members, member{name, value.Clone()})
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, invalidJSON(err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, errorf(adcamp.CodeInvalidJSON, "request body has data after the JSON object")
	}
	return obj, nil
}

func invalidJSON(err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(strings.TrimPrefix(msg, "jsontext: "), "invalid jsontext: ")
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		msg = "unexpected end of JSON"
	}
	return errorf(adcamp.CodeInvalidJSON, "request body is not valid JSON: %s", msg)
}

func checkMediaType(ct string) error {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return errorf(adcamp.CodeUnsupportedMediaType, "send the body with Content-Type: application/json")
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return errorf(adcamp.CodeUnsupportedMediaType, "the body must be UTF-8 JSON (charset=%s given)", cs)
	}
	return nil
}

// err returns the decoding error to answer before validation, if any.
func (o *object) err() error {
	if len(o.types) == 0 {
		return nil
	}
	parts := make([]string, len(o.types))
	for i, t := range o.types {
		parts[i] = t.Field + " " + t.Issue
	}
	return &adcamp.Error{Code: adcamp.CodeInvalidJSON, Message: "request body has values of the wrong type: " +
		strings.Join(parts, "; "), Details: []adcamp.FieldIssue(o.types)}
}

func (o *object) unknown(name string) { o.fields.Add(name, "is not a known field") }

func (o *object) readOnly(name string) { o.fields.Add(name, "is read-only") }

func (o *object) str(name string, v jsontext.Value, dst *adcamp.Optional[string]) {
	text(o, name, v, dst)
}

// text reads a string member into dst, whatever string type it holds.
func text[T ~string](o *object, name string, v jsontext.Value, dst *adcamp.Optional[T]) {
	dst.Set = true
	switch v.Kind() {
	case 'n':
		dst.Null = true
	case '"':
		t, _ := jsontext.AppendUnquote(nil, v)
		dst.Value = T(t)
	default:
		o.types.Add(name, "must be a string")
	}
}

// number keeps the text of a JSON number (for money, parsed exactly later).
func (o *object) number(name string, v jsontext.Value, dst *adcamp.Optional[string]) {
	dst.Set = true
	switch v.Kind() {
	case 'n':
		dst.Null = true
	case '0':
		dst.Value = string(v)
	default:
		o.types.Add(name, "must be a number")
	}
}

func (o *object) integer(name string, v jsontext.Value, dst *adcamp.Optional[int64]) {
	dst.Set = true
	switch v.Kind() {
	case 'n':
		dst.Null = true
	case '0':
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			o.types.Add(name, "must be an integer")
		}
		dst.Value = n
	default:
		o.types.Add(name, "must be an integer")
	}
}

// query checks a query string against the parameters a route accepts.
type query struct {
	values url.Values
	issues adcamp.Issues
}

func parseQuery(r *http.Request, allowed ...string) *query {
	q := &query{}
	if r.URL.RawQuery == "" {
		return q
	}
	var err error
	q.values, err = url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		q.issues.Add("query", "is not a valid query string")
	}
	for name, vs := range q.values {
		switch {
		case name == "":
			q.issues.Add("query", "has a parameter without a name")
		case !contains(allowed, name) && len(allowed) == 0:
			q.issues.Add(name, "is not a known query parameter (this route takes none)")
		case !contains(allowed, name):
			q.issues.Add(name, "is not a known query parameter (accepted: %s)", strings.Join(allowed, ", "))
		case len(vs) > 1:
			q.issues.Add(name, "must be given once")
		}
	}
	return q
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// int reads an integer parameter of 32 bits, def if absent.
func (q *query) int(name string, def int) int {
	s, ok := q.values[name]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(s[0], 10, 32)
	switch {
	case err == nil:
		return int(n)
	case errors.Is(err, strconv.ErrRange) && s[0][0] == '-':
		q.issues.Add(name, "is out of range")
	case errors.Is(err, strconv.ErrRange):
		q.issues.Add(name, "is too large")
	default:
		q.issues.Add(name, "must be an integer")
	}
	return def
}

// bool reads a true/false parameter, false if absent.
func (q *query) bool(name string) bool {
	s, ok := q.values[name]
	if !ok {
		return false
	}
	switch s[0] {
	case "true":
		return true
	case "false":
		return false
	}
	q.issues.Add(name, "must be true or false")
	return false
}

// str reads a parameter, "" if absent. Present but empty (?status=) is
// refused like any other bad value: leaving a filter out is how to ask for
// none.
func (q *query) str(name string) string {
	s, ok := q.values[name]
	if ok && s[0] == "" {
		q.issues.Add(name, "must not be empty (leave the parameter out for no filter)")
	}
	return q.values.Get(name)
}

// parseIfMatch reads the If-Match header: absent or "*" matches any
// version; otherwise a list of entity tags such as "3". If-Match uses the
// strong comparison (RFC 9110, 13.1.1): a weak tag (W/"3") never matches.
func parseIfMatch(r *http.Request) service.IfMatch {
	h := strings.TrimSpace(get(r.Header, headerIfMatch))
	if h == "" || h == "*" {
		return service.IfMatch{}
	}
	im := service.IfMatch{Set: true}
	for _, tag := range strings.Split(h, ",") {
		tag = strings.TrimSpace(tag)
		if strings.HasPrefix(tag, "W/") {
			continue
		}
		tag = strings.Trim(tag, `"`)
		if n, err := strconv.ParseInt(tag, 10, 64); err == nil {
			im.Versions = append(im.Versions, n)
		}
	}
	return im
}

// paging reads page (default 1) and page_size (default 20).
func (q *query) paging() (page, size int) {
	return q.int("page", 1), q.int("page_size", 20)
}

// decodeMutation reads a create or update request: the validate_only
// parameter and a body of one object, turned into an input by read.
// Values of the wrong JSON type fail the request here (INVALID_JSON);
// unknown fields travel in the input to be reported with the rest.
func decodeMutation[T any](r *http.Request, c *call, read func(*object) T) (dryRun bool, in T, err error) {
	q := parseQuery(r, "validate_only")
	dryRun = q.bool("validate_only")
	if err := q.issues.Err(); err != nil {
		return false, in, err
	}
	obj, err := decodeBody(r, c.body)
	if err != nil {
		return false, in, err
	}
	in = read(obj)
	return dryRun, in, obj.err()
}

// arrayElements splits a JSON array into its elements: at most max of
// them, or it stops reading at the one after and says there are too many.
func arrayElements(v jsontext.Value, max int) ([]jsontext.Value, error) {
	if v.Kind() != '[' {
		return nil, errorf(adcamp.CodeInvalidJSON, "items must be an array of keyword objects")
	}
	dec := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := dec.ReadToken(); err != nil {
		return nil, invalidJSON(err)
	}
	var out []jsontext.Value
	for dec.PeekKind() != ']' {
		if len(out) == max {
			var issues adcamp.Issues
			issues.Add("items", "must hold 1 to %d keywords (got more)", max)
			return nil, issues.Err()
		}
		el, err := dec.ReadValue()
		if err != nil {
			return nil, invalidJSON(err)
		}
		out = append(out, el.Clone())
	}
	return out, nil
}
