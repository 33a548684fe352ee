// Package httpapi is the JSON API over HTTP: the routes, authentication
// middleware, strict decoding and the one adapter that writes every
// response in the contract's envelope.
package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/metrics"
	"github.com/adcamp/adcamp/internal/service"
	"github.com/adcamp/adcamp/signing"
)

// Server answers the API of one environment.
type Server struct {
	svc     *service.Service
	env     adcamp.Environment
	log     *slog.Logger
	mux     *http.ServeMux
	openapi []byte // openapi.yaml as JSON
	metrics *metrics.Metrics
	limiter *limiter // nil: no rate limit
}

// Option configures a Server.
type Option func(*Server)

// WithMetrics records requests in m and serves it at GET /metrics.
func WithMetrics(m *metrics.Metrics) Option { return func(s *Server) { s.metrics = m } }

// WithRateLimit limits each credential to perSecond requests a second
// with a burst of twice that; 0 turns the limit off.
func WithRateLimit(perSecond int) Option {
	return func(s *Server) {
		if perSecond > 0 {
			s.limiter = newLimiter(perSecond)
		}
	}
}

// New returns the HTTP handler of environment env.
func New(svc *service.Service, env adcamp.Environment, log *slog.Logger, opts ...Option) (*Server, error) {
	spec, err := yaml.YAMLToJSON(adcamp.OpenAPI)
	if err != nil {
		return nil, err
	}
	s := &Server{svc: svc, env: env, log: log, mux: http.NewServeMux(), openapi: spec}
	for _, o := range opts {
		o(s)
	}
	s.routes()
	return s, nil
}

// handler is an API handler: it writes a success response itself, or
// returns an error for writeError to render.
type handler func(w http.ResponseWriter, r *http.Request, c *call) error

// call is what a signed request brings to its handler.
type call struct {
	tenant adcamp.Tenant
	key    *adcamp.APIKey
	body   []byte
}

// routes installs every route. Each API route is served under both
// prefixes; /api/v1/open is the canonical one.
func (s *Server) routes() {
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)
	if s.metrics != nil {
		s.mux.Handle("GET /metrics", s.metrics.Handler())
	}
	for _, p := range []string{signing.PrefixCanonical, signing.PrefixShort} {
		s.mux.HandleFunc("GET "+p+"/time", s.time)
		s.mux.HandleFunc("GET "+p+"/openapi.json", s.openAPI)

		s.mux.Handle("POST "+p+"/campaigns", s.signed(s.createCampaign))
		s.mux.Handle("GET "+p+"/campaigns", s.signed(s.listCampaigns))
		s.mux.Handle("GET "+p+"/campaigns/{campaign_id}", s.signed(s.getCampaign))
		s.mux.Handle("PUT "+p+"/campaigns/{campaign_id}", s.signed(s.updateCampaign))
		s.mux.Handle("DELETE "+p+"/campaigns/{campaign_id}", s.signed(s.deleteCampaign))

		s.mux.Handle("POST "+p+"/campaigns/{campaign_id}/ad-groups", s.signed(s.createAdGroup))
		s.mux.Handle("GET "+p+"/campaigns/{campaign_id}/ad-groups", s.signed(s.listAdGroups))
		s.mux.Handle("GET "+p+"/ad-groups/{ad_group_id}", s.signed(s.getAdGroup))
		s.mux.Handle("PUT "+p+"/ad-groups/{ad_group_id}", s.signed(s.updateAdGroup))
		s.mux.Handle("DELETE "+p+"/ad-groups/{ad_group_id}", s.signed(s.deleteAdGroup))

		s.mux.Handle("POST "+p+"/ad-groups/{ad_group_id}/keywords", s.signed(s.createKeywords))
		s.mux.Handle("GET "+p+"/ad-groups/{ad_group_id}/keywords", s.signed(s.listKeywords))
		s.mux.Handle("GET "+p+"/keywords/{keyword_id}", s.signed(s.getKeyword))
		s.mux.Handle("PUT "+p+"/keywords/{keyword_id}", s.signed(s.updateKeyword))
		s.mux.Handle("DELETE "+p+"/keywords/{keyword_id}", s.signed(s.deleteKeyword))

		s.mux.Handle("GET "+p+"/channel-accounts", s.signed(s.listChannelAccounts))
	}
}

// ServeHTTP gives every response a request id, answers unknown routes and
// methods in the envelope, turns a panic into a 500, and logs the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var idb [12]byte
	rand.Read(idb[:])
	id := "req_" + hex.EncodeToString(idb[:])
	w.Header().Set("X-Request-Id", id)
	rec := &recorder{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("panic serving request", "request_id", id, "panic", p, "stack", string(debug.Stack()))
			if !rec.wrote {
				s.writeError(rec, r, errorf(adcamp.CodeInternal, "panic"))
			}
		}
		elapsed := time.Since(start)
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("request_id", id),
			slog.String("method", r.Method), slog.String("route", rec.route), slog.Int("status", rec.status),
			slog.Int64("bytes", int64(rec.bytes)), slog.Float64("latency_ms", float64(elapsed.Microseconds())/1000),
			slog.String("key_id", rec.keyID))
		if s.metrics != nil {
			s.metrics.Request(string(s.env), routeLabel(rec.route), r.Method, rec.status, elapsed)
		}
	}()
	h, pattern := s.mux.Handler(r)
	rec.route = pattern
	if pattern == "" {
		s.noRoute(rec, r, h)
		return
	}
	s.mux.ServeHTTP(rec, r) // (Handler does not fill in r's path values)
}

// noRoute answers 404 or 405 (with Allow, as the mux computed it).
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request, h http.Handler) {
	probe := &headerProbe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		s.writeError(w, r, errorf(adcamp.CodeMethodNotAllowed, "%s is not allowed here; allowed: %s", r.Method, probe.header.Get("Allow")))
		return
	}
	s.writeError(w, r, errorf(adcamp.CodeNotFound, "no route for %s %s", r.Method, r.URL.Path))
}

// signed wraps an API handler with body reading and authentication.
func (s *Server) signed(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.serveSigned(w, r, h); err != nil {
			s.writeError(w, r, err)
		}
	})
}

func (s *Server) serveSigned(w http.ResponseWriter, r *http.Request, h handler) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	key, err := s.svc.Authenticate(r.Context(), service.AuthRequest{
		Environment: s.env,
		APIKey:      r.Header.Get(signing.HeaderAPIKey),
		Timestamp:   r.Header.Get(signing.HeaderTimestamp),
		Signature:   r.Header.Get(signing.HeaderSignature),
		Method:      r.Method,
		Path:        signing.RequestPath(r),
		Body:        body,
	})
	if err != nil {
		if s.metrics != nil {
			s.metrics.AuthFailure(string(s.env), adcamp.ErrorCode(err))
		}
		return err
	}
	if rec, ok := w.(*recorder); ok {
		rec.keyID = key.ID
	}
	if s.limiter != nil {
		if err := s.limiter.allow(w, key.ID, time.Now()); err != nil {
			if s.metrics != nil {
				s.metrics.RateLimited(string(s.env))
			}
			return err
		}
	}
	c := &call{tenant: adcamp.Tenant{AccountID: key.AccountID, Environment: s.env}, key: key, body: body}
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodDelete:
		return s.serveOnce(w, r, c, h)
	}
	return h(w, r, c)
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeData(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if err := s.svc.Ping(r.Context()); err != nil {
		s.log.Error("readiness check failed", "err", err)
		s.writeError(w, r, errorf(adcamp.CodeUnavailable, "the database is not reachable"))
		return
	}
	writeData(w, http.StatusOK, map[string]string{"status": "ready"})
}

func (s *Server) time(w http.ResponseWriter, r *http.Request) {
	now := s.svc.Now()
	writeData(w, http.StatusOK, map[string]any{"unix": now.Unix(), "iso": timeJSON(now)})
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(s.openapi)
}

// routeLabel is a route pattern without its method ("GET /v1/x" → "/v1/x").
func routeLabel(pattern string) string {
	if i := strings.IndexByte(pattern, ' '); i >= 0 {
		return pattern[i+1:]
	}
	return pattern
}

// recorder notes what was written, for the access log.
type recorder struct {
	http.ResponseWriter
	route  string
	keyID  string
	status int
	bytes  int
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
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// headerProbe runs the mux's own 404/405 handler to learn its verdict.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(code int)        { p.status = code }
