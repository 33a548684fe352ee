package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/adcamp/adcamp/client/signing"
)

// Option configures a Client; pass options to [New].
type Option func(*options)

type options struct {
	baseURL    string
	scheme     signing.Scheme
	httpClient *http.Client
	timeout    time.Duration
	userAgent  string
	logger     *slog.Logger
	retry      RetryPolicy
	// Test hooks, set through export_test.go.
	clock  func() time.Time
	sleep  func(context.Context, time.Duration) error
	jitter func(int64) int64
}

func (o *options) validate() error {
	if o.scheme != SchemeA && o.scheme != SchemeB {
		return fmt.Errorf("client: unknown signing scheme %q (want client.SchemeA or client.SchemeB)", o.scheme)
	}
	if o.timeout < 0 {
		return errors.New("client: the timeout must not be negative")
	}
	return o.retry.validate()
}

// WithBaseURL sets the API's base URL, including the path prefix:
// [SandboxURL], or "https://adcamp.example.com/api/v1/open". A URL with no
// path gets the canonical prefix /api/v1/open.
func WithBaseURL(u string) Option { return func(o *options) { o.baseURL = u } }

// WithScheme chooses the signing scheme: [SchemeA] (the default, over the
// full request path) or [SchemeB].
func WithScheme(s signing.Scheme) Option { return func(o *options) { o.scheme = s } }

// WithHTTPClient makes the client send its requests with hc, which is
// used as given (its transport, TLS settings and timeout are the
// caller's) but for its CheckRedirect: the client follows no redirect.
// Without it the client makes its own, which requires TLS 1.2 or later
// and verified certificates.
func WithHTTPClient(hc *http.Client) Option { return func(o *options) { o.httpClient = hc } }

// WithTimeout bounds each attempt of a request (30 s by default), whether
// the client made its *http.Client or was given one; 0 means no bound.
// The retry policy's MaxElapsed bounds all attempts together.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithUserAgent puts ua in front of the SDK's own User-Agent
// ("myapp/1.2 adcamp-go/0.1.0").
func WithUserAgent(ua string) Option { return func(o *options) { o.userAgent = ua } }

// WithLogger logs every attempt (method, path, status, attempt, request
// id, duration) at debug level, and retries and clock corrections at info
// level, to l. Secrets and signatures are never logged. By default
// nothing is logged.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithRetryPolicy replaces the [DefaultRetryPolicy].
func WithRetryPolicy(p RetryPolicy) Option { return func(o *options) { o.retry = p } }

// WithMaxAttempts sets how many times a request is sent at most, the
// first time included; 1 turns retries off. Other settings of the retry
// policy keep their values.
func WithMaxAttempts(n int) Option { return func(o *options) { o.retry.MaxAttempts = n } }

// WithClock sets the local clock the client signs requests with (its
// X-Timestamp), time.Now by default: for tests, or a program that keeps
// its own time. The correction learnt from the server's clock still
// applies on top of it.
func WithClock(now func() time.Time) Option { return func(o *options) { o.clock = now } }
