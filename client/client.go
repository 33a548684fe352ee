package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/adcamp/adcamp/client/signing"
)

// Base URLs of the two environments of an `adcamp serve` with its default
// listeners. Production is the default; pass another with [WithBaseURL].
const (
	ProductionURL = "http://127.0.0.1:8080/api/v1/open"
	SandboxURL    = "http://127.0.0.1:8081/api/v1/open"
)

// Version is the version of this SDK, sent in the User-Agent header.
const Version = "0.1.0"

// DefaultTimeout bounds each attempt of a request unless [WithTimeout]
// says otherwise.
const DefaultTimeout = 30 * time.Second

// Signing schemes, for [WithScheme]. Scheme A signs
// timestamp + METHOD + path + body with the full request path; Scheme B
// signs four lines: METHOD, path, timestamp and the MD5 of the body.
const (
	SchemeA = signing.SchemeA
	SchemeB = signing.SchemeB
)

// Client calls the Campaign Advertising Open API, signing every request.
// It is safe for concurrent use; make one and reuse it.
//
// A Client never reveals its secret: not in errors, logs, or when printed
// with fmt or logged with log/slog.
type Client struct {
	base      *url.URL // with a trailing slash
	cred      *credentials
	scheme    signing.Scheme
	hc        *http.Client
	timeout   time.Duration
	userAgent string
	log       *slog.Logger
	retry     RetryPolicy
	clock     func() time.Time // the local clock
	sleep     func(context.Context, time.Duration) error
	jitter    func(n int64) int64 // uniform in [0, n)
	offset    atomic.Int64        // server clock minus local clock, in nanoseconds
	stamps    stamps              // the timestamps of recent changes, by content
}

// New returns a client that signs with the given API key and secret.
// Without options it calls the production listener of a local server
// ([ProductionURL]) with Scheme A, a 30 s timeout per attempt and the
// [DefaultRetryPolicy].
func New(apiKey, secret string, opts ...Option) (*Client, error) {
	if apiKey == "" || secret == "" {
		return nil, errors.New("client: New needs an API key and a secret")
	}
	o := options{baseURL: ProductionURL, scheme: SchemeA, timeout: DefaultTimeout, retry: DefaultRetryPolicy()}
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	base, err := parseBaseURL(o.baseURL)
	if err != nil {
		return nil, err
	}
	c := &Client{
		base: base, cred: &credentials{apiKey: apiKey, secret: secret}, scheme: o.scheme,
		hc: o.httpClient, timeout: o.timeout, userAgent: userAgent(o.userAgent), log: o.logger,
		retry: o.retry, clock: o.clock, sleep: o.sleep, jitter: o.jitter,
	}
	if c.hc != nil { // the caller's: follow no redirect all the same
		hc := *c.hc
		hc.CheckRedirect = noRedirects
		c.hc = &hc
	}
	c.setDefaults()
	return c, nil
}

func (c *Client) setDefaults() {
	if c.hc == nil {
		c.hc = newHTTPClient(c.timeout)
	}
	if c.log == nil {
		c.log = slog.New(discardHandler{})
	}
	if c.clock == nil {
		c.clock = time.Now
	}
	if c.sleep == nil {
		c.sleep = sleepContext
	}
	if c.jitter == nil {
		c.jitter = rand.Int64N
	}
}

// newHTTPClient returns the client's own *http.Client: the default
// transport's settings (proxy, HTTP/2, pools), TLS 1.2 or later with
// verified certificates, and a timeout.
func newHTTPClient(timeout time.Duration) *http.Client {
	var t *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	} else {
		t = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	}
	t.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: t, Timeout: timeout, CheckRedirect: noRedirects}
}

// noRedirects stops an *http.Client at a redirect, which it returns as the
// answer: a signed request (its headers, its Idempotency-Key, its body)
// is for the host it was signed for, and another could replay it within
// the timestamp's window.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func userAgent(prefix string) string {
	ua := "adcamp-go/" + Version
	if prefix != "" {
		ua = prefix + " " + ua
	}
	return ua
}

// parseBaseURL checks an API base URL and gives its path a trailing slash.
// A URL with no path gets the canonical prefix /api/v1/open.
func parseBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q: want http(s)://host[:port]/prefix", redactURL(s))
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("client: base URL %q: must not have a query, fragment or user info", u.Redacted())
	}
	if u.Path == "" || u.Path == "/" {
		u.Path, u.RawPath = signing.PrefixCanonical, ""
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u, nil
}

// redactURL is s, with what may be a password (between "://" and the
// last "@" before the path) masked, for a message about a URL that did
// not parse.
func redactURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		rest = "xxxxx" + rest[at:]
	}
	return scheme + "://" + rest
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// BaseURL returns the base URL requests are made under, with a trailing
// slash.
func (c *Client) BaseURL() string { return c.base.String() }

// APIKey returns the API key the client signs with (never the secret).
func (c *Client) APIKey() string { return c.cred.apiKey }

// String describes the client without its secret.
func (c *Client) String() string {
	if c == nil {
		return "client.Client(nil)"
	}
	return fmt.Sprintf("client.Client{BaseURL: %s, APIKey: %s, Secret: %s, Scheme: %s}",
		c.base, c.cred.apiKey, redacted, strings.ToUpper(string(c.scheme)))
}

// GoString is String, so that %#v does not reveal the secret either.
func (c *Client) GoString() string { return c.String() }

// Format writes String for every verb, so that no verb (%v, %+v, %#v,
// %s, %q, %x, %d...) can reveal the secret.
func (c *Client) Format(f fmt.State, verb rune) { io.WriteString(f, c.String()) }

// LogValue logs the client as its base URL, API key and scheme.
func (c *Client) LogValue() slog.Value {
	if c == nil {
		return slog.StringValue("client.Client(nil)")
	}
	return slog.GroupValue(
		slog.String("base_url", c.base.String()),
		slog.String("api_key", c.cred.apiKey),
		slog.String("scheme", string(c.scheme)),
	)
}

const redacted = "[REDACTED]"

// credentials holds the API key and its secret. The Client keeps it behind
// a pointer, which fmt prints as an address even when it prints a Client's
// fields by reflection, so the secret cannot leak that way either.
type credentials struct {
	apiKey string
	secret string
}

// discardHandler drops every record (slog.DiscardHandler, from Go 1.24,
// which this module does not require).
type discardHandler struct{}

func (discardHandler) Enabled(context.Context, slog.Level) bool  { return false }
func (discardHandler) Handle(context.Context, slog.Record) error { return nil }
func (d discardHandler) WithAttrs([]slog.Attr) slog.Handler      { return d }
func (d discardHandler) WithGroup(string) slog.Handler           { return d }
