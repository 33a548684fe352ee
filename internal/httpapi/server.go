// Package httpapi is the JSON API over HTTP: the routes, authentication
// middleware, strict decoding and the one adapter that writes every
// response in the contract's envelope.
package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
	"github.com/adcamp/adcamp/internal/metrics"
	"github.com/adcamp/adcamp/internal/service"
)

// Server answers the API of one environment.
type Server struct {
	svc     doors
	env     adcamp.Environment
	log     *slog.Logger
	mux     *http.ServeMux // every route, and a catch-all that answers 404 or 405
	known   *http.ServeMux // every route but the catch-all: what noRoute asks
	openapi []byte         // openapi.yaml as JSON
	metrics *metrics.Metrics
	limiter *limiter // the server's limit and the keys' own
	// scopes is what each route requires of a key, read from openapi.yaml
	// (see scopes.go); trusted are the proxies whose X-Forwarded-For is
	// believed.
	scopes  map[string]adcamp.Scope
	trusted []netip.Prefix
	// failures limits failed authentications per client address; nil: no
	// limit.
	failures *failureLimiter
	// now is the limiters' clock: time.Now, or a test's (WithClock).
	now func() time.Time
}

// Option configures a Server.
type Option func(*Server)

// WithMetrics records requests in m. The figures are served elsewhere
// (MetricsHandler, on a listener of their own): they describe the whole
// process, both environments, and no API listener shows them.
func WithMetrics(m *metrics.Metrics) Option { return func(s *Server) { s.metrics = m } }

// WithRateLimit limits each credential to perSecond requests a second
// with a burst of twice that; 0 turns the limit off.
func WithRateLimit(perSecond int) Option {
	return func(s *Server) {
		s.limiter = newLimiter(max(0, perSecond))
	}
}

// WithAuthFailureLimit refuses (429) the requests of a client address
// that failed authentication more than perSecond times a second (with a
// burst of twice that); 0 turns the limit off.
func WithAuthFailureLimit(perSecond int) Option {
	return func(s *Server) {
		if perSecond > 0 {
			s.failures = newFailureLimiter(perSecond)
		}
	}
}

// WithClock gives the rate limiters a clock other than time.Now, so that
// a test can let a bucket refill by moving its clock rather than by
// waiting. Request latencies are still measured on the wall clock.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// doors are the parts of the service the API uses: campaigns and all that
// hangs from them, and the keys that sign its requests.
type doors struct {
	*service.Ads
	*service.Keys
}

// New returns the HTTP handler of environment env.
func New(ads *service.Ads, keys *service.Keys, env adcamp.Environment, log *slog.Logger, opts ...Option) (*Server, error) {
	spec, err := yaml.YAMLToJSON(adcamp.OpenAPI)
	if err != nil {
		return nil, err
	}
	s := &Server{svc: doors{ads, keys}, env: env, log: log, mux: http.NewServeMux(), known: http.NewServeMux(), openapi: spec,
		limiter: newLimiter(0), now: time.Now}
	for _, o := range opts {
		o(s)
	}
	if s.scopes, err = documentedScopes(spec); err != nil {
		return nil, err
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
	s.handleFunc("GET /healthz", s.healthz)
	s.handleFunc("GET /readyz", s.readyz)
	for _, p := range []string{signing.PrefixCanonical, signing.PrefixShort} {
		s.handleFunc("GET "+p+"/time", s.time)
		s.handleFunc("GET "+p+"/openapi.json", s.openAPI)

		s.handle("POST "+p+"/campaigns", s.signed(s.createCampaign))
		s.handle("GET "+p+"/campaigns", s.signed(s.listCampaigns))
		s.handle("GET "+p+"/campaigns/{campaign_id}", s.signed(s.getCampaign))
		s.handle("PUT "+p+"/campaigns/{campaign_id}", versionGuarded(s.signed(s.updateCampaign)))
		s.handle("DELETE "+p+"/campaigns/{campaign_id}", s.signed(s.deleteCampaign))

		s.handle("POST "+p+"/campaigns/{campaign_id}/ad-groups", s.signed(s.createAdGroup))
		s.handle("GET "+p+"/campaigns/{campaign_id}/ad-groups", s.signed(s.listAdGroups))
		s.handle("GET "+p+"/ad-groups/{ad_group_id}", s.signed(s.getAdGroup))
		s.handle("PUT "+p+"/ad-groups/{ad_group_id}", s.signed(s.updateAdGroup))
		s.handle("DELETE "+p+"/ad-groups/{ad_group_id}", s.signed(s.deleteAdGroup))

		s.handle("POST "+p+"/ad-groups/{ad_group_id}/keywords", s.signed(s.createKeywords))
		s.handle("GET "+p+"/ad-groups/{ad_group_id}/keywords", s.signed(s.listKeywords))
		s.handle("GET "+p+"/keywords/{keyword_id}", s.signed(s.getKeyword))
		s.handle("PUT "+p+"/keywords/{keyword_id}", s.signed(s.updateKeyword))
		s.handle("DELETE "+p+"/keywords/{keyword_id}", s.signed(s.deleteKeyword))
		s.negativeRoutes(p)

		s.handle("GET "+p+"/channel-accounts", s.signed(s.listChannelAccounts))

		s.handle("GET "+p+"/changes", s.signed(s.listChanges))
		s.handle("GET "+p+"/reports/performance", s.signed(s.performanceReport))
		s.handle("GET "+p+"/report-jobs", s.signed(s.listReportJobs))
		s.handle("POST "+p+"/report-jobs", s.signed(s.createReportJob))
		s.handle("GET "+p+"/report-jobs/{job_id}", s.signed(s.getReportJob))
		s.handle("GET "+p+"/report-jobs/{job_id}/download", s.signed(s.downloadReportJob))
		s.handle("GET "+p+"/campaigns/{campaign_id}/changes", s.signed(s.entityChanges(adcamp.EntityCampaign, "campaign_id")))
		s.handle("GET "+p+"/ad-groups/{ad_group_id}/changes", s.signed(s.entityChanges(adcamp.EntityAdGroup, "ad_group_id")))
		s.handle("GET "+p+"/keywords/{keyword_id}/changes", s.signed(s.entityChanges(adcamp.EntityKeyword, "keyword_id")))

		s.sandboxRoutes(p)
		s.handle("POST "+p+"/webhook-endpoints", s.signed(s.createEndpoint))
		s.handle("GET "+p+"/webhook-endpoints", s.signed(s.listEndpoints))
		s.handle("GET "+p+"/webhook-endpoints/{endpoint_id}", s.signed(s.getEndpoint))
		s.handle("PUT "+p+"/webhook-endpoints/{endpoint_id}", s.signed(s.updateEndpoint))
		s.handle("DELETE "+p+"/webhook-endpoints/{endpoint_id}", s.signed(s.deleteEndpoint))
		s.handle("GET "+p+"/webhook-endpoints/{endpoint_id}/secret", s.signed(s.getSecretState))
		s.handle("POST "+p+"/webhook-endpoints/{endpoint_id}/secret", s.signed(s.rotateSecret))
		s.handle("GET "+p+"/webhook-endpoints/{endpoint_id}/deliveries", s.signed(s.listAttempts))
		s.handle("POST "+p+"/webhook-endpoints/{endpoint_id}/deliveries", s.signed(s.queueDeliveries))
		s.handle("GET "+p+"/events", s.signed(s.listEvents))
		s.handle("GET "+p+"/events/{event_id}", s.signed(s.getEvent))
	}
	s.mux.HandleFunc(catchAll, s.noRoute)
}

// catchAll is the pattern of noRoute: it matches what no route does.
const catchAll = "/"

func (s *Server) handle(pattern string, h http.Handler) {
	s.mux.Handle(pattern, h)
	s.known.Handle(pattern, h)
}

func (s *Server) handleFunc(pattern string, h http.HandlerFunc) { s.handle(pattern, h) }

// ServeHTTP gives every response a request id, answers unknown routes and
// methods in the envelope, turns a panic into a 500, and logs the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := newRequestID()
	w.Header()[headerRequestID] = []string{id}
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
		end := time.Now()
		elapsed := end.Sub(start)
		route := r.Pattern // set by the mux as it chose the handler
		if route == catchAll {
			route = ""
		}
		// The access log: a record made here rather than by Logger.LogAttrs,
		// which spends more on finding its caller (for a source location
		// nobody asked for) than the handler spends writing the line.
		if h := s.log.Handler(); h.Enabled(r.Context(), slog.LevelInfo) {
			line := slog.NewRecord(end, slog.LevelInfo, "request", 0)
			line.AddAttrs(slog.String("request_id", id), slog.String("method", r.Method), slog.String("route", route),
				slog.Int("status", rec.status), slog.Int64("bytes", int64(rec.bytes)),
				slog.Float64("latency_ms", float64(elapsed.Microseconds())/1000), slog.String("key_id", rec.keyID))
			h.Handle(r.Context(), line)
		}
		if s.metrics != nil {
			s.metrics.Request(string(s.env), routeLabel(route), r.Method, rec.status, elapsed)
		}
	}()
	body := trackBody(r)
	if err := checkRequest(r); err != nil {
		s.writeError(rec, r, err)
	} else {
		s.mux.ServeHTTP(rec, r)
	}
	body.drain(w, r)
}

// noRoute answers 404, or 405 with Allow where another method has a route,
// as the mux of the routes alone would.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	h, _ := s.known.Handler(r)
	probe := &headerProbe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		s.writeError(w, r, errorf(adcamp.CodeMethodNotAllowed, "%s is not allowed here; allowed: %s", r.Method, probe.header.Get("Allow")))
		return
	}
	s.writeError(w, r, errorf(adcamp.CodeNotFound, "no route for %s %s", r.Method, r.URL.Path))
}

// newRequestID returns "req_" and 24 hex digits: 96 random bits. Ids
// made from a counter, even scrambled, could be solved for the process's
// request volume; crypto/rand costs about 80 ns here (getrandom in the
// vDSO), a trifle beside a request.
func newRequestID() string {
	var r [12]byte
	rand.Read(r[:])
	var b [4 + 24]byte
	copy(b[:], "req_")
	hex.Encode(b[4:], r[:])
	return string(b[:])
}

// versionGuarded marks the requests of a route whose only change is an
// update of a campaign (service.VersionGuarded).
func versionGuarded(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(service.VersionGuarded(r.Context())))
	})
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
	var addr string
	client := s.clientIP(r)
	if s.failures != nil {
		addr = clientAddr(r)
		if err := s.failures.check(w, addr, s.now()); err != nil {
			if s.metrics != nil {
				s.metrics.RateLimited(string(s.env))
			}
			return err
		}
	}
	// The body is read once the headers, the timestamp and the key have
	// passed: a request refused before costs no body read.
	var body []byte
	key, err := s.svc.Authenticate(r.Context(), service.AuthRequest{
		Environment: s.env,
		APIKey:      get(r.Header, headerAPIKey),
		Timestamp:   get(r.Header, headerTimestamp),
		Signature:   get(r.Header, headerSignature),
		Method:      r.Method,
		Path:        signing.RequestPath(r),
		ReadBody: func() ([]byte, error) {
			var err error
			body, err = readBody(w, r)
			return body, err
		},
		Repeated:   repeatedAuthHeader(r.Header),
		ClientAddr: client,
		Scope:      s.requiredScope(r.Pattern),
		Route:      r.Pattern,
	})
	if err != nil {
		if service.IsAuthError(err) {
			if s.metrics != nil {
				s.metrics.AuthFailure(string(s.env), string(adcamp.ErrorCode(err)))
			}
			if s.failures != nil && !service.SignatureVerified(err) {
				s.failures.fail(addr, s.now())
			}
		}
		return err
	}
	if rec, ok := w.(*recorder); ok {
		rec.keyID = key.ID
	}
	if lim := s.limiter.rateFor(key.RateLimit); lim > 0 {
		if err := s.limiter.allow(w, key.ID, lim, s.now()); err != nil {
			if s.metrics != nil {
				s.metrics.RateLimited(string(s.env))
			}
			return err
		}
	}
	if err := s.simulate(w, r); err != nil {
		return err
	}
	c := &call{tenant: adcamp.Tenant{AccountID: key.AccountID, Environment: s.env}, key: key, body: body}
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodDelete:
		return s.serveOnce(w, r, c, h)
	}
	return h(w, r, c)
}

// repeatedAuthHeader names an authentication header sent more than once,
// or returns "".
func repeatedAuthHeader(h http.Header) string {
	for _, a := range [...]struct{ key, name string }{
		{headerAPIKey, signing.HeaderAPIKey}, {headerTimestamp, signing.HeaderTimestamp}, {headerSignature, signing.HeaderSignature},
	} {
		if len(h[a.key]) > 1 {
			return a.name
		}
	}
	return ""
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeData(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if err := s.svc.Ads.Ping(r.Context()); err != nil {
		s.log.Error("readiness check failed", "err", err)
		s.writeError(w, r, errorf(adcamp.CodeUnavailable, "the database is not reachable"))
		return
	}
	writeData(w, http.StatusOK, map[string]string{"status": "ready"})
}

func (s *Server) time(w http.ResponseWriter, r *http.Request) {
	now := s.svc.Ads.Now()
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
