package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
)

// exchangesFile, when set, names a file to which every exchange the tests
// check against openapi.yaml is appended, one JSON object a line, for
// scripts/openapi-ajv.mjs to replay through ajv (see docs/openapi.md).
const exchangesFile = "ADCAMP_OPENAPI_EXCHANGES"

var exchangesMu sync.Mutex

// exchange is one recorded request and its answer.
type exchange struct {
	Method      string            `json:"method"`
	Path        string            `json:"path"` // as in openapi.yaml: /campaigns/{campaign_id}
	Status      int               `json:"status"`
	Headers     map[string]string `json:"headers"`
	Body        string            `json:"body"`
	RequestBody string            `json:"request_body,omitempty"` // of a request the server accepted
}

func recordExchange(t *testing.T, req *http.Request, path string, r *response) {
	t.Helper()
	name := os.Getenv(exchangesFile)
	if name == "" {
		return
	}
	x := exchange{Method: req.Method, Path: path, Status: r.Status, Headers: map[string]string{}, Body: string(r.Raw)}
	for k := range r.Header {
		x.Headers[k] = r.Header.Get(k)
	}
	if acceptedBody(req, r) {
		body, err := req.GetBody()
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(body)
		x.RequestBody = string(raw)
	}
	line, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	exchangesMu.Lock()
	defer exchangesMu.Unlock()
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatalf("%s: %v", exchangesFile, err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatalf("%s: %v", exchangesFile, err)
	}
}
