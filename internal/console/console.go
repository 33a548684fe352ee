// Package console is the account console: server-rendered web pages
// where account holders sign in, manage their members and their API
// credentials. It is another door to the service (internal/service): the
// rules are there, the handlers here only read forms and render pages.
//
// Pages are html/template templates embedded in the binary and parsed
// once; a few lines of plain JavaScript add comforts (copy buttons), and
// every page works without it. Handlers return errors to one adapter that
// renders the error page; a form that fails validation is shown again
// with each message next to its field.
//
// Security: sessions are server-side (the cookie holds a random token; the
// store a hash of it), the cookie is HttpOnly and SameSite=Lax, and under
// TLS also Secure with the __Host- prefix; cross-origin form posts are
// refused (net/http's CrossOriginProtection); every page is sent with a
// strict Content-Security-Policy and may not be framed.
package console

import (
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/service"
)

//go:embed templates static
var files embed.FS

// Config configures a Server.
type Config struct {
	// The parts of the service the console uses: campaigns and all that
	// hangs from them, people and their sign-in, API keys.
	Ads    *service.Ads
	Access *service.Access
	Keys   *service.Keys
	Logger *slog.Logger // discarded if nil
	// Secure says the console is reached over HTTPS (its own TLS, or a
	// proxy's): cookies are then Secure and named with the __Host- prefix.
	Secure bool
	// BaseURL is the console's address as its users reach it
	// ("https://console.example.com"), for the links it shows; the
	// request's own address if empty.
	BaseURL string
	// TrustedOrigins are origins, besides the console's own, whose form
	// posts are accepted: a proxy's public origin when it rewrites Host
	// ("https://console.example.com").
	TrustedOrigins []string
}

// Server is the console's HTTP handler.
type Server struct {
	svc     doors
	log     *slog.Logger
	secure  bool
	base    string
	pages   *pages
	handler http.Handler
}

// doors are the parts of the service the console uses.
type doors struct {
	*service.Ads
	*service.Access
	*service.Keys
}

// What the parts share, asked of one of them.
func (d doors) Now() time.Time         { return d.Ads.Now() }
func (d doors) Marketplaces() []string { return d.Ads.Marketplaces() }
func (d doors) SimulatorEnabled() bool { return d.Ads.SimulatorEnabled() }

// New returns the console's handler for cfg.
func New(cfg Config) (*Server, error) {
	s := &Server{svc: doors{cfg.Ads, cfg.Access, cfg.Keys}, log: cfg.Logger, secure: cfg.Secure, base: strings.TrimSuffix(cfg.BaseURL, "/")}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if s.pages, err = parsePages(); err != nil {
		return nil, err
	}
	cop := http.NewCrossOriginProtection()
	for _, o := range cfg.TrustedOrigins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, err
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, errCrossOrigin)
	}))
	s.handler = s.recover(s.headers(cop.Handler(s.routes().handler())))
	return s, nil
}

var errCrossOrigin = adcamp.Errorf(adcamp.CodeForbidden,
	"This form was sent from another site, so it was refused. If you sent it from the console, reload the page and try again.")

// ServeHTTP serves the console.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// maxForm bounds a request's body: the console's forms are a few fields.
// Keywords pasted in bulk may be up to adcamp.MaxKeywordBatch lines, so
// their form may be as large as an API request's body (maxPaste).
const (
	maxForm  = 64 << 10
	maxPaste = 1 << 20
)

// bodyLimit is how large r's body may be.
func bodyLimit(r *http.Request) int64 {
	if r.Method == http.MethodPost && (strings.HasSuffix(r.URL.Path, "/keywords/new") || strings.HasSuffix(r.URL.Path, "/negatives") ||
		strings.Contains(r.URL.Path, "/negative-lists/")) {
		return maxPaste
	}
	return maxForm
}

// headers sets what every answer carries: a strict Content-Security-Policy
// (scripts and styles from the console only, no framing, forms posting
// to the console only), no caching of pages, and a request id.
func (s *Server) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Request-Id", newRequestID())
		if s.secure {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		r.Body = http.MaxBytesReader(w, r.Body, bodyLimit(r))
		next.ServeHTTP(w, r)
	})
}

// cacheFor lets browsers keep static files for d.
func cacheFor(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age="+itoa(int(d/time.Second)))
		next.ServeHTTP(w, r)
	})
}

// recover answers a panic with the error page, and logs one line per
// request: its route pattern (never its path, which may hold a token),
// status and latency.
func (s *Server) recover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic in a console handler", "panic", p, "stack", string(debug.Stack()))
				if !rec.wrote {
					s.fail(rec, r, errPanic)
				}
			}
			s.log.Info("console request", "request_id", w.Header().Get("X-Request-Id"), "method", r.Method,
				"route", r.Pattern, "status", rec.status, "latency_ms", time.Since(start).Milliseconds())
		}()
		next.ServeHTTP(rec, r)
	})
}

var errPanic = errors.New("a console handler panicked")

// statusRecorder notes the status of an answer.
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

func newRequestID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "req_" + hex.EncodeToString(b)
}

// clientAddr is the client's IP address, for throttling sign-ins. Behind
// a proxy it is the proxy's (see docs/console.md).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
