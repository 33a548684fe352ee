package client

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base32"
	"errors"
	mrand "math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says when and how often a request is sent again.
//
// A request is retried after a network error or a 429, 502, 503 or 504
// answer, if it is idempotent: GET always is, and the client makes every
// POST, PUT and DELETE so by sending an Idempotency-Key header (one random
// key per call, the same on each of its retries). Between attempts
// it waits a random time in [0, min(MaxDelay, BaseDelay·2ⁿ⁻¹)] before the
// n-th retry ("full jitter"), and at least what a Retry-After header asks.
type RetryPolicy struct {
	// MaxAttempts is how many times a request is sent at most, the first
	// time included; 1 turns retries off.
	MaxAttempts int
	// BaseDelay is the largest wait before the first retry; the bound
	// doubles with each retry.
	BaseDelay time.Duration
	// MaxDelay caps the bound of the random wait.
	MaxDelay time.Duration
	// MaxElapsed bounds a call with its retries: no retry is made whose
	// wait would end more than MaxElapsed after the call began (in
	// particular, a Retry-After longer than that is not waited for).
	// 0 means no bound.
	MaxElapsed time.Duration
}

// DefaultRetryPolicy returns the policy of a new client: 4 attempts,
// waits bounded by 250 ms, 500 ms, 1 s (at most 10 s), within 1 minute.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 4, BaseDelay: 250 * time.Millisecond, MaxDelay: 10 * time.Second, MaxElapsed: time.Minute}
}

func (p RetryPolicy) validate() error {
	if p.MaxAttempts < 1 || p.BaseDelay < 0 || p.MaxDelay < 0 || p.MaxElapsed < 0 {
		return errors.New("client: a retry policy needs MaxAttempts ≥ 1 and no negative duration")
	}
	return nil
}

// MaxBackoff returns the upper bound of the wait before retry n (n ≥ 1):
// min(MaxDelay, BaseDelay·2ⁿ⁻¹).
func (p RetryPolicy) MaxBackoff(n int) time.Duration {
	d := p.BaseDelay
	for i := 1; i < n && d < p.MaxDelay; i++ {
		if d > p.MaxDelay/2 {
			return p.MaxDelay
		}
		d *= 2
	}
	return min(d, p.MaxDelay)
}

// Backoff returns a random wait before retry n (n ≥ 1), uniform in
// [0, MaxBackoff(n)].
func (p RetryPolicy) Backoff(n int) time.Duration { return p.backoff(n, mrand.Int64N) }

func (p RetryPolicy) backoff(n int, jitter func(int64) int64) time.Duration {
	max := p.MaxBackoff(n)
	if max <= 0 {
		return 0
	}
	return time.Duration(jitter(int64(max) + 1))
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
		return time.Duration(min(s, 1<<31)) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// retryableStatus reports whether an answer with status may be retried.
func retryableStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryableNetError reports whether a transport error may be retried:
// not when the caller's context has ended, nor when the server's
// certificate or TLS version was refused (that will not change).
func retryableNetError(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var (
		certErr     *tls.CertificateVerificationError
		unknownAuth x509.UnknownAuthorityError
		hostErr     x509.HostnameError
		invalidCert x509.CertificateInvalidError
		alert       tls.AlertError
		header      tls.RecordHeaderError
	)
	return !errors.As(err, &certErr) && !errors.As(err, &unknownAuth) && !errors.As(err, &hostErr) &&
		!errors.As(err, &invalidCert) && !errors.As(err, &alert) && !errors.As(err, &header)
}

// HeaderIdempotencyKey is the header that makes a change safe to retry.
const HeaderIdempotencyKey = "Idempotency-Key"

// idempotent reports whether req may be sent again, adding an
// Idempotency-Key to a POST, PUT or DELETE that has none: with it, the
// server answers a retry with the first answer instead of executing it
// again (a retried PUT with If-Match would otherwise meet its own change
// and get 412, a retried DELETE 404).
func idempotent(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	case http.MethodPost, http.MethodPut, http.MethodDelete:
		if req.Header.Get(HeaderIdempotencyKey) == "" {
			req.Header.Set(HeaderIdempotencyKey, newIdempotencyKey())
		}
		return true
	}
	return req.Header.Get(HeaderIdempotencyKey) != ""
}

// newIdempotencyKey returns 26 random base32 characters (130 bits), as
// crypto/rand.Text does from Go 1.24, which this module does not require.
func newIdempotencyKey() string {
	var b [17]byte
	rand.Read(b[:])
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])[:26]
}
