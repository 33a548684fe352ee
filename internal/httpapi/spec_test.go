package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/openapischema"
)

var spec struct {
	once   sync.Once
	router routers.Router
	strict *openapischema.Validator
	err    error
}

// specRouter finds operations of openapi.yaml by path relative to the
// API prefix (the document's servers are dropped, as the tests' servers
// listen on other ports).
func specRouter() (routers.Router, error) {
	spec.once.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(adcamp.OpenAPI)
		if err != nil {
			spec.err = err
			return
		}
		doc.Servers = nil
		for _, item := range doc.Paths.Map() {
			item.Servers = nil
		}
		if spec.router, spec.err = legacy.NewRouter(doc); spec.err != nil {
			return
		}
		spec.strict, spec.err = openapischema.New(adcamp.OpenAPI)
	})
	return spec.router, spec.err
}

// checkAgainstSpec validates a response against openapi.yaml: its status
// must be documented for the operation, and its headers and body must
// match the documented schema, for kin-openapi and for the strict
// validator of internal/openapischema both. An error's code must be named
// in the description of the response it came as, and a 405's Allow must
// list the methods the document gives the path.
func checkAgainstSpec(t *testing.T, req *http.Request, r *response) {
	t.Helper()
	router, err := specRouter()
	if err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	rel := req.Clone(context.Background())
	u := *req.URL
	if p, ok := signing.RelativePath(u.EscapedPath()); ok {
		u.RawPath = p
		u.Path, _ = url.PathUnescape(p)
	}
	rel.URL = &u
	if msg, _ := r.Error()["message"].(string); strings.HasPrefix(msg, "no route for ") {
		return // a route that does not exist, answered as such
	}
	if strings.Contains(strings.ToUpper(u.RawPath), "%2F") {
		return // kin-openapi's router splits an escaped slash; the server does not
	}
	if r.Status == http.StatusMethodNotAllowed {
		checkMethodNotAllowed(t, router, rel, r)
		return
	}
	route, params, err := router.FindRoute(rel)
	if err != nil {
		t.Errorf("%s %s answered %d but is not in openapi.yaml: %v", req.Method, req.URL.Path, r.Status, err)
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: rel, PathParams: params, Route: route},
		Status:                 r.Status,
		Header:                 r.Header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(r.Raw)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		msg := err.Error()
		if len(msg) > 2000 {
			msg = msg[:2000] + "…"
		}
		t.Errorf("%s %s: the %d response does not match openapi.yaml: %s\n%s", req.Method, req.URL.Path, r.Status,
			strings.TrimSpace(msg), truncate(r.Raw))
	}
	checkStrict(t, req, route.Path, r)
}

// checkStrict is checkAgainstSpec's second opinion: the strict validator
// over the response (and, for a request the server accepted, over its
// body), and the error code against the response's description.
func checkStrict(t *testing.T, req *http.Request, path string, r *response) {
	t.Helper()
	v := spec.strict
	if err := v.Response(req.Method, path, r.Status, r.Header, r.Raw); err != nil {
		t.Errorf("%s %s: the %d response does not match openapi.yaml (strict): %v\n%s", req.Method, req.URL.Path, r.Status,
			err, truncate(r.Raw))
	}
	if code := r.Code(); code != "" && req.Method != http.MethodHead {
		if d := v.Description(req.Method, path, r.Status); !strings.Contains(d, "`"+code+"`") {
			t.Errorf("%s %s answered %d %s, which openapi.yaml does not name for that response:\n%s",
				req.Method, path, r.Status, code, d)
		}
	}
	if acceptedBody(req, r) {
		body, err := req.GetBody()
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(body)
		if err := v.Request(req.Method, path, raw); err != nil {
			t.Errorf("%s %s: the server accepted a body that openapi.yaml says is invalid: %v\n%s",
				req.Method, req.URL.Path, err, truncate(raw))
		}
	}
	recordExchange(t, req, path, r)
}

// acceptedBody reports whether req had a body the server accepted as a
// whole: a success but a 207 (whose items may each have failed), and not a
// replay (answered without reading the body).
func acceptedBody(req *http.Request, r *response) bool {
	return r.Status < 300 && r.Status != http.StatusMultiStatus && req.GetBody != nil &&
		r.Header.Get("Idempotent-Replayed") == ""
}

// checkMethodNotAllowed checks a 405: Allow lists exactly the methods the
// document gives the path, and the answer is the one documented for them.
func checkMethodNotAllowed(t *testing.T, router routers.Router, req *http.Request, r *response) {
	t.Helper()
	get := req.Clone(context.Background())
	get.Method = http.MethodGet
	route, _, err := router.FindRoute(get)
	if err != nil { // a path of actions alone (the sandbox's): POST
		get.Method = http.MethodPost
		route, _, err = router.FindRoute(get)
	}
	if err != nil {
		t.Errorf("%s %s answered 405 but its path is not in openapi.yaml: %v", req.Method, req.URL.Path, err)
		return
	}
	if want := strings.Join(spec.strict.Methods(route.Path), ", "); r.Header.Get("Allow") != want {
		t.Errorf("%s %s: Allow = %q; openapi.yaml gives the path %s", req.Method, req.URL.Path, r.Header.Get("Allow"), want)
	}
	checkStrict(t, get, route.Path, r)
}

func truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}
