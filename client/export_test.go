package client

import (
	"context"
	"crypto/tls"
	"net/http"
	"time"
)

// Test hooks: the sleep and jitter a Client uses, so that tests of
// retries and clock correction run instantly and deterministically.

// WithSleep replaces the wait between attempts.
func WithSleep(sleep func(context.Context, time.Duration) error) Option {
	return func(o *options) { o.sleep = sleep }
}

// WithJitter replaces the random source of the backoff: it must return a
// value in [0, n).
func WithJitter(f func(n int64) int64) Option { return func(o *options) { o.jitter = f } }

// TransportOf returns the transport and timeout of the client's
// *http.Client.
func TransportOf(c *Client) (*tls.Config, time.Duration) {
	t, _ := c.hc.Transport.(*http.Transport)
	if t == nil {
		return nil, c.hc.Timeout
	}
	return t.TLSClientConfig, c.hc.Timeout
}
