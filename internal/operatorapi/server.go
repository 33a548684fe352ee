// Package operatorapi is the operator listener: the interface of the
// marketplace's ad server (docs/operator.md, openapi-operator.yaml). It
// serves no account: its requests are signed with operator keys, never
// with an account's API key, and it answers in the API's envelope.
package operatorapi

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/httpapi"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/internal/store"
)

// Prefix is where every operator route lies.
const Prefix = "/operator/v1"

// maxBody is the largest request body: 10,000 delivery rows with room.
const maxBody = 8 << 20

// Server answers the operator listener.
type Server struct {
	svc     *service.Operator
	log     *slog.Logger
	mux     *http.ServeMux
	known   *http.ServeMux
	openapi []byte
	served  []string // the patterns of handle, in order
}

// Config configures a Server.
type Config struct {
	Operator *service.Operator // the part of the service of the marketplace's side
	Logger   *slog.Logger
}

// New returns the operator listener's handler.
func New(cfg Config) (*Server, error) {
	spec, err := yaml.YAMLToJSON(adcamp.OpenAPIOperator)
	if err != nil {
		return nil, err
	}
	s := &Server{svc: cfg.Operator, log: cfg.Logger, mux: http.NewServeMux(), known: http.NewServeMux(), openapi: spec}
	s.routes()
	return s, nil
}

// handler is an operator handler: it writes a success itself or returns
// an error for the one adapter.
type handler func(w http.ResponseWriter, r *http.Request, c *call) error

// call is what a signed request brings to its handler.
type call struct {
	key  *store.OperatorKey
	body []byte
}

func (s *Server) routes() {
	s.handle("GET "+Prefix+"/openapi.json", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(s.openapi)
	}))
	s.handle("GET "+Prefix+"/time", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := s.svc.Now()
		httpapi.WriteData(w, http.StatusOK, map[string]any{"unix": now.Unix(), "iso": now.Format(time.RFC3339)})
	}))
	s.handle("POST "+Prefix+"/delivery", s.signed(s.postDelivery))
	s.handle("GET "+Prefix+"/serving/snapshot", s.signed(s.snapshot))
	s.handle("GET "+Prefix+"/serving/changes", s.signed(s.changes))
	s.mux.HandleFunc("/", s.noRoute)
}

func (s *Server) handle(pattern string, h http.Handler) {
	s.served = append(s.served, pattern)
	s.mux.Handle(pattern, h)
	s.known.Handle(pattern, h)
}

// Routes lists the patterns served, for the document's test.
func (s *Server) Routes() []string { return append([]string(nil), s.served...) }

// ServeHTTP gives every answer a request id, turns a panic into a 500 and
// logs the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := httpapi.NewRequestID()
	w.Header().Set(httpapi.HeaderRequestID, id)
	rec := &recorder{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("panic serving operator request", "request_id", id, "panic", p, "stack", string(debug.Stack()))
			if !rec.wrote {
				httpapi.WriteError(s.log, rec, r, adcamp.Errorf(adcamp.CodeInternal, "panic"))
			}
		}
		s.log.Info("operator request", "request_id", id, "method", r.Method, "route", r.Pattern, "status", rec.status,
			"latency_ms", float64(time.Since(start).Microseconds())/1000, "key_id", rec.keyID)
	}()
	s.mux.ServeHTTP(rec, r)
}

func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	h, _ := s.known.Handler(r)
	probe := &probe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		httpapi.WriteError(s.log, w, r, adcamp.Errorf(adcamp.CodeMethodNotAllowed, "%s is not allowed here; allowed: %s", r.Method, probe.header.Get("Allow")))
		return
	}
	httpapi.WriteError(s.log, w, r, adcamp.Errorf(adcamp.CodeNotFound, "no route for %s %s on the operator listener", r.Method, r.URL.Path))
}

// signed wraps a handler with authentication by operator key.
func (s *Server) signed(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		key, err := s.svc.AuthenticateOperator(r.Context(), service.AuthRequest{
			APIKey:    r.Header.Get(signing.HeaderAPIKey),
			Timestamp: r.Header.Get(signing.HeaderTimestamp),
			Signature: r.Header.Get(signing.HeaderSignature),
			Method:    r.Method,
			Path:      signing.RequestPath(r),
			ReadBody: func() ([]byte, error) {
				var err error
				body, err = readBody(w, r)
				return body, err
			},
			Repeated: repeated(r.Header),
		})
		if err == nil {
			if rec, ok := w.(*recorder); ok {
				rec.keyID = key.ID
			}
			err = h(w, r, &call{key: key, body: body})
		}
		if err != nil {
			httpapi.WriteError(s.log, w, r, err)
		}
	})
}

func repeated(h http.Header) string {
	for _, name := range []string{signing.HeaderAPIKey, signing.HeaderTimestamp, signing.HeaderSignature} {
		if len(h.Values(name)) > 1 {
			return name
		}
	}
	return ""
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > maxBody {
		return nil, adcamp.Errorf(adcamp.CodePayloadTooLarge, "request body is %d bytes; at most %d are accepted", r.ContentLength, maxBody)
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, adcamp.Errorf(adcamp.CodePayloadTooLarge, "request body is over %d bytes", maxBody)
	}
	if err != nil {
		return nil, adcamp.Errorf(adcamp.CodeInvalidJSON, "request body could not be read")
	}
	return body, nil
}

// environment reads the environment query parameter: production or
// sandbox, def when absent.
func environment(r *http.Request, def adcamp.Environment) (adcamp.Environment, error) {
	v := r.URL.Query()["environment"]
	if len(v) == 0 && def != "" {
		return def, nil
	}
	if len(v) == 1 && (v[0] == string(adcamp.Production) || v[0] == string(adcamp.Sandbox)) {
		return adcamp.Environment(v[0]), nil
	}
	var issues adcamp.Issues
	issues.AddKind("environment", adcamp.IssueNotOneOf, "production, sandbox", "must be production or sandbox, given once")
	return "", issues.Err()
}

// checkQuery refuses parameters other than allowed.
func checkQuery(r *http.Request, allowed ...string) error {
	var issues adcamp.Issues
	for name := range r.URL.Query() {
		ok := false
		for _, a := range allowed {
			ok = ok || a == name
		}
		if !ok {
			issues.Add(name, "is not a known parameter")
		}
	}
	return issues.Err()
}

// writeJSON writes v as the success envelope.
func writeJSON(w http.ResponseWriter, status int, v any) { httpapi.WriteData(w, status, v) }

type recorder struct {
	http.ResponseWriter
	keyID  string
	status int
	wrote  bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.status, r.wrote = http.StatusOK, true
	}
	return r.ResponseWriter.Write(b)
}

// Flush lets a streamed snapshot reach the client as it goes.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

type probe struct {
	header http.Header
	status int
}

func (p *probe) Header() http.Header         { return p.header }
func (p *probe) Write(b []byte) (int, error) { return len(b), nil }
func (p *probe) WriteHeader(code int)        { p.status = code }
