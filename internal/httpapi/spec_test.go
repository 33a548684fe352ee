package httpapi_test

import (
	"context"
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
)

var spec struct {
	once   sync.Once
	router routers.Router
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
		spec.router, spec.err = legacy.NewRouter(doc)
	})
	return spec.router, spec.err
}

// checkAgainstSpec validates a response against openapi.yaml: its status
// must be documented for the operation, and its headers and body must
// match the documented schema.
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
	if msg, _ := r.Error()["message"].(string); strings.HasPrefix(msg, "no route for ") ||
		r.Status == http.StatusMethodNotAllowed {
		return // a route that does not exist, answered as such
	}
	if strings.Contains(strings.ToUpper(u.RawPath), "%2F") {
		return // kin-openapi's router splits an escaped slash; the server does not
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
}

func truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}
