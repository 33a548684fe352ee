package httpapi

import (
	"io"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/metrics"
)

// What is checked of a request before any route is chosen, so that every
// answer a handler can give is in the envelope (see docs/behaviour.md
// for the few that net/http gives before any handler runs).

// maxHeaderBytes bounds the request line and headers a handler accepts:
// more is answered 431 in the envelope. The server's own limit
// (ServerMaxHeaderBytes) must be larger, or net/http answers first, in
// plain text.
const (
	maxHeaderBytes       = 64 << 10
	ServerMaxHeaderBytes = 256 << 10
)

// checkRequest refuses what no route may see: headers over
// maxHeaderBytes, a request for no path (OPTIONS *, CONNECT), a path that
// is not in its clean form (which net/http's mux would answer with a
// redirect of its own), and a body where none belongs.
func checkRequest(r *http.Request) error {
	if n := headerBytes(r); n > maxHeaderBytes {
		return errorf(adcamp.CodeHeadersTooLarge, "the request line and headers are %d bytes; at most %d are accepted", n, maxHeaderBytes)
	}
	if r.Method == http.MethodConnect || !strings.HasPrefix(r.URL.Path, "/") {
		return errorf(adcamp.CodeNotFound, "no route for %s %s", r.Method, shortURI(r.RequestURI))
	}
	if clean := cleanPath(r.URL.Path); clean != r.URL.Path {
		return errorf(adcamp.CodeNotFound, "no route for %s %s: paths have no empty, . or .. segments (%s)",
			r.Method, shortURI(r.URL.Path), shortURI(clean))
	}
	return checkNoBody(r)
}

// shortURI keeps a path quoted in a message short.
func shortURI(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// headerBytes is about what the request line and headers took on the
// wire: each line and its line end.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4 + len(r.Host) + 8
	for name, values := range r.Header {
		for _, v := range values {
			n += len(name) + len(v) + 4
		}
	}
	return n
}

// cleanPath is the clean form of p as net/http's mux computes it: no
// empty, . or .. segments, a trailing slash kept.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if !strings.Contains(p, "//") && !strings.Contains(p, "/.") {
		return p // the usual case, without the allocations of path.Clean
	}
	return cleanSlow(p)
}

// checkNoBody refuses a body on GET, HEAD and DELETE, before any handler
// runs. Their handlers would ignore it, and Scheme A signs path and body
// with nothing between them: a signed GET /campaigns/{id} would verify as
// GET /campaigns with the body "/{id}", a list of every campaign.
func checkNoBody(r *http.Request) error {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodDelete:
	default:
		return nil
	}
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	if r.ContentLength < 0 { // chunked: perhaps empty
		var b [1]byte
		if n, _ := io.ReadFull(r.Body, b[:]); n == 0 {
			return nil
		}
	}
	var issues adcamp.Issues
	issues.Add("body", "must be empty: a %s request takes no body", r.Method)
	return issues.Err()
}

// A body refused unread (a bad key, a 413 before reading) is read and
// discarded after the answer is written, up to maxDrain bytes in all and
// for at most drainTime: clients that send the whole body before reading
// (Python's http.client, for one) then read the answer, instead of a
// connection reset when the server closes on unread data. Beyond the
// bound the connection is closed.
const (
	maxDrain  = 8 << 20
	drainTime = 10 * time.Second
)

// trackedBody notes how much of a request's body was read, and whether
// all of it.
type trackedBody struct {
	io.ReadCloser
	n   int64
	eof bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// trackBody puts a trackedBody in place of r's body; nil for a request
// without one.
func trackBody(r *http.Request) *trackedBody {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil
	}
	b := &trackedBody{ReadCloser: r.Body}
	r.Body = b
	return b
}

// drain reads and discards what is left of the body, within the bounds.
// A client that asked to be told first (Expect: 100-continue) and has not
// been, because nothing was read, sends nothing more and needs no drain.
func (b *trackedBody) drain(w http.ResponseWriter, r *http.Request) {
	if b == nil || b.eof || r.ContentLength > maxDrain {
		return
	}
	if b.n == 0 && strings.EqualFold(get(r.Header, headerExpect), "100-continue") {
		return
	}
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(drainTime))
	io.CopyN(io.Discard, b, maxDrain-b.n)
}

func cleanSlow(p string) string {
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// MetricsHandler serves m at GET /metrics, for the metrics listener, with
// the health checks of orchestrators: GET /livez and GET /readyz (see
// livez and readyz, which run the ready checks). Every answer has an
// X-Request-Id, and anything else is a 404 or 405 in the envelope.
func MetricsHandler(m *metrics.Metrics, ready ...ReadyCheck) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("GET /livez", livez)
	mux.Handle("GET /readyz", readyz(ready))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		code, status := adcamp.CodeNotFound, "no route for "+r.Method+" "+shortURI(r.URL.Path)+
			"; this listener serves GET /metrics, /livez and /readyz"
		if r.URL.Path == "/metrics" || r.URL.Path == "/livez" || r.URL.Path == "/readyz" {
			w.Header().Set("Allow", "GET, HEAD")
			code, status = adcamp.CodeMethodNotAllowed, r.Method+" is not allowed here; allowed: GET, HEAD"
		}
		writeJSON(w, statusOf[code], struct {
			Success bool      `json:"success"`
			Error   errorBody `json:"error"`
		}{false, errorBody{Code: code, Message: status, RequestID: requestID(w)}})
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()[headerRequestID] = []string{newRequestID()}
		mux.ServeHTTP(w, r)
	})
}
