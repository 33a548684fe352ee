package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// Timeout bounds one attempt: connecting, sending and reading the answer.
const Timeout = 15 * time.Second

// ResponseLimit is how much of an answer's body is kept for the delivery
// log; drainLimit how much more is read so that the connection can be
// used again. Nothing beyond is read.
const (
	ResponseLimit = 1024
	drainLimit    = 64 << 10
)

// Request is one attempt to deliver a message.
type Request struct {
	URL       string
	ID        string    // webhook-id: the event's id, the same on every attempt
	Timestamp time.Time // webhook-timestamp; zero: the sender's clock, now
	Body      []byte
	Keys      [][]byte // the signing keys: the current one, and the previous during a rotation
}

// Result is what an attempt got.
type Result struct {
	Status     int           // the HTTP status, 0 for none
	RetryAfter time.Duration // from Retry-After (429 and 503 only), 0 for none
	Latency    time.Duration
	Response   string // the start of the body (ResponseLimit bytes at most, valid UTF-8)
	Err        error  // why no answer came (connection, timeout, refused address)
}

// Succeeded reports a 2xx answer.
func (r Result) Succeeded() bool { return r.Status >= 200 && r.Status < 300 }

// Sender sends messages. Its zero value is not usable: make one with
// NewSender.
type Sender struct {
	client *http.Client
	now    func() time.Time
}

// ErrPrivateAddress is the error of an attempt to connect to an address
// that endpoints may not use (loopback, private, link-local, metadata...).
var ErrPrivateAddress = errors.New("the endpoint's address is private, loopback or link-local: refused")

// NewSender returns a Sender; allowPrivate lets it connect to private
// and loopback addresses (serve --webhooks-allow-private, for tests and
// receivers inside one's own network).
func NewSender(allowPrivate bool) *Sender {
	dialer := &net.Dialer{Timeout: Timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = refusePrivate
	}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would connect for us, past the check
		DialContext:           dialer.DialContext,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   Timeout,
		ResponseHeaderTimeout: Timeout,
		MaxIdleConns:          200,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &Sender{
		client: &http.Client{
			Transport: transport,
			Timeout:   Timeout,
			// A redirect is an answer (3xx: a failure), not followed: its
			// target would escape the endpoint's URL and its checks.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		now: time.Now,
	}
}

// refusePrivate is the dialer's Control: it runs for the address about
// to be connected to, after the name was resolved.
func refusePrivate(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w (%s)", ErrPrivateAddress, address)
	}
	if Private(ap.Addr()) {
		return fmt.Errorf("%w (%s)", ErrPrivateAddress, ap.Addr())
	}
	return nil
}

// blocked are ranges that are no public host's, besides those netip
// classifies: this network, shared address space (carrier NAT), IETF
// protocol assignments, benchmarking, reserved, and the IPv6
// translation, discard and documentation prefixes.
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001:db8::/32"),
}

// Private reports whether an address is one endpoints may not use:
// loopback, private (RFC 1918, unique local), link-local (which holds the
// clouds' metadata service, 169.254.169.254), unspecified, multicast, or
// another range of blocked. An IPv4 address mapped into IPv6 is judged as
// IPv4.
func Private(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() || !a.IsValid() {
		return true
	}
	for _, p := range blocked {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Send makes one attempt. It never returns an error: what went wrong is
// in the Result.
func (s *Sender) Send(ctx context.Context, r Request) Result {
	start := s.now()
	res := s.send(ctx, r)
	res.Latency = s.now().Sub(start)
	return res
}

func (s *Sender) send(ctx context.Context, r Request) Result {
	if r.Timestamp.IsZero() {
		r.Timestamp = s.now()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return Result{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "adcamp-webhooks/1")
	req.Header["webhook-id"] = []string{r.ID}
	req.Header["webhook-timestamp"] = []string{strconv.FormatInt(r.Timestamp.Unix(), 10)}
	req.Header["webhook-signature"] = []string{Signature(r.Keys, r.ID, r.Timestamp, r.Body)}
	resp, err := s.client.Do(req)
	if err != nil {
		return Result{Err: cleanError(err)}
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, ResponseLimit))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
	res := Result{Status: resp.StatusCode, Response: validUTF8(head)}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		res.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), s.now())
	}
	return res
}

// cleanError keeps what a delivery log should show of a client error:
// the refusal of a private address as such, and the rest as the
// transport says.
func cleanError(err error) error {
	if errors.Is(err, ErrPrivateAddress) {
		var op *net.OpError
		if errors.As(err, &op) && op.Err != nil {
			return op.Err
		}
		return ErrPrivateAddress
	}
	return err
}

// retryAfter reads a Retry-After value: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(min(n, 1<<32)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// validUTF8 makes a body's start text: what is not UTF-8 (a character
// cut by the limit too) becomes U+FFFD.
func validUTF8(b []byte) string { return string(bytes.ToValidUTF8(b, []byte("\uFFFD"))) }
