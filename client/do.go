package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/adcamp/adcamp/client/signing"
)

// maxResponseBody caps how much of a response is read.
const maxResponseBody = 32 << 20

// Response is an API response whose body has been read (and closed).
type Response struct {
	*http.Response
	// RequestID is the response's X-Request-Id.
	RequestID string
	// Attempts is how many times the request was sent.
	Attempts int

	raw []byte
}

// NewRequest returns a request for path, relative to the base URL and
// already escaped, with an optional query: "campaigns",
// "campaigns/cmp_01...?validate_only=true". A nil body sends none; a
// []byte or json.RawMessage is sent exactly as given; any other body is
// sent as encoding/json writes it. Send the request with [Client.Do].
func (c *Client) NewRequest(method, path string, body any) (*http.Request, error) {
	u, err := c.resolve(path)
	if err != nil {
		return nil, err
	}
	buf, err := encodeBody(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(method, u.String(), bytes.NewReader(buf))
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// resolve turns a relative path into a URL under the base URL. It refuses
// empty and dot segments, which would name another route.
func (c *Client) resolve(path string) (*url.URL, error) {
	ref, err := url.Parse(strings.TrimPrefix(path, "/"))
	if err != nil || ref.Scheme != "" || ref.Host != "" {
		return nil, fmt.Errorf("client: request path %q: want a path relative to the base URL", path)
	}
	for _, seg := range strings.Split(ref.EscapedPath(), "/") {
		if seg == "" || seg == "." || seg == ".." {
			return nil, fmt.Errorf("client: request path %q: empty or dot segment (an empty id?)", path)
		}
	}
	return c.base.ResolveReference(ref), nil
}

func encodeBody(body any) ([]byte, error) {
	switch b := body.(type) {
	case nil:
		return nil, nil
	case []byte:
		return b, nil
	case json.RawMessage:
		return b, nil
	}
	buf, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("client: encode request body: %w", err)
	}
	return buf, nil
}

// Do signs and sends req, retrying as the client's [RetryPolicy] allows
// and correcting the client's clock once if the server finds the
// timestamp too far from its own. A 2xx answer's data is decoded into v
// (unless v is nil); any other answer is returned as an *[Error].
func (c *Client) Do(ctx context.Context, req *http.Request, v any) (*Response, error) {
	return c.do(ctx, req, v, true)
}

func (c *Client) do(ctx context.Context, req *http.Request, v any, signed bool) (*Response, error) {
	body, err := takeBody(req)
	if err != nil {
		return nil, err
	}
	resp, err := c.send(ctx, req.Clone(ctx), body, signed, false)
	if err != nil {
		return resp, err
	}
	return resp, decodeData(resp, v)
}

// open signs and sends req as Do does (retrying alike), but leaves a 2xx
// answer's body unread: the caller reads it from resp.Body, and must
// close it. The client's timeout then bounds each wait for the next bytes
// of the body rather than the whole exchange, so a large file may take
// as long as it takes while a stalled one fails. An answer that is not a
// 2xx is read and returned as an *[Error], as Do does.
func (c *Client) open(ctx context.Context, req *http.Request) (*Response, error) {
	body, err := takeBody(req)
	if err != nil {
		return nil, err
	}
	return c.send(ctx, req.Clone(ctx), body, true, true)
}

// send runs the attempts of one call.
func (c *Client) send(ctx context.Context, req *http.Request, body []byte, signed, stream bool) (*Response, error) {
	retryable := idempotent(req) // adds the Idempotency-Key shared by all attempts
	start := c.clock()
	corrected := false
	for n, sent := 1, 1; ; sent++ {
		resp, err := c.attempt(ctx, req, body, signed, stream, n)
		if resp != nil {
			resp.Attempts = sent
		}
		if err == nil {
			return resp, nil
		}
		if !corrected && signed && IsTimestampExpired(err) {
			corrected = true
			if c.correctClock(ctx, resp, asError(err)) {
				continue // not counted as a retry: the server did not act on it
			}
		}
		delay, ok := c.nextDelay(ctx, resp, err, n, retryable, start)
		if !ok {
			return resp, err
		}
		c.logRetry(ctx, req, n, delay, err)
		if serr := c.sleep(ctx, delay); serr != nil {
			return resp, fmt.Errorf("%w; last attempt: %w", serr, err)
		}
		n++
	}
}

// nextDelay says whether to retry after attempt n failed with err, and
// after how long.
func (c *Client) nextDelay(ctx context.Context, resp *Response, err error, n int, retryable bool, start time.Time) (time.Duration, bool) {
	if !retryable || n >= c.retry.MaxAttempts {
		return 0, false
	}
	var wait time.Duration
	if e := asError(err); e != nil {
		if !retryableStatus(e.StatusCode) {
			return 0, false
		}
		wait = e.RetryAfter
	} else if !retryableNetError(ctx, err) {
		return 0, false
	}
	d := max(c.retry.backoff(n, c.jitter), wait)
	if c.retry.MaxElapsed > 0 && c.clock().Sub(start)+d > c.retry.MaxElapsed {
		return 0, false
	}
	return d, true
}

// attempt sends req once, signed afresh, and reads the answer. It returns
// an *Error for a non-2xx answer, with the response. With stream, a 2xx
// answer's body is left for the caller to read and close (see open).
func (c *Client) attempt(ctx context.Context, req *http.Request, body []byte, signed, stream bool, n int) (*Response, error) {
	ctx, release, idle := c.attemptContext(ctx, stream)
	r := req.Clone(ctx)
	setBody(r, body)
	if f := simulatedFault(ctx); f != "" {
		r.Header.Set(HeaderSandboxSimulate, f)
	}
	if signed {
		signing.SignRequest(r, c.scheme, c.cred.apiKey, c.cred.secret, body, c.signTime(r, body))
	}
	began := c.clock()
	hc := c.hc
	if stream {
		hc = c.streamClient()
	}
	hr, err := hc.Do(r)
	if err != nil {
		release()
		c.logAttempt(ctx, r, n, nil, began, err)
		return nil, err
	}
	if stream && hr.StatusCode >= 200 && hr.StatusCode <= 299 {
		hr.Body = &idleBody{ctx: ctx, rc: hr.Body, timer: idle, timeout: c.timeout, release: release}
		resp := &Response{Response: hr, RequestID: hr.Header.Get("X-Request-Id")}
		c.logAttempt(ctx, r, n, resp, began, nil)
		return resp, nil
	}
	defer release()
	defer hr.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(hr.Body, maxResponseBody))
	resp := &Response{Response: hr, RequestID: hr.Header.Get("X-Request-Id"), raw: raw}
	c.logAttempt(ctx, r, n, resp, began, err)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: reading the response: %w", r.Method, r.URL.Path, err)
	}
	if hr.StatusCode < 200 || hr.StatusCode > 299 {
		return resp, responseError(hr, raw, c.clock())
	}
	return resp, nil
}

// attemptContext returns the context of one attempt and the function that
// releases it. An attempt is bounded by the client's timeout; a streamed
// one by a timer (returned) that its body restarts with each read.
func (c *Client) attemptContext(ctx context.Context, stream bool) (context.Context, func(), *time.Timer) {
	if c.timeout <= 0 {
		ctx, cancel := context.WithCancel(ctx)
		return ctx, cancel, nil
	}
	if !stream {
		ctx, cancel := context.WithTimeout(ctx, c.timeout)
		return ctx, cancel, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(c.timeout, func() { cancel(errIdle) })
	return ctx, func() { timer.Stop(); cancel(nil) }, timer
}

// errIdle ends a streamed answer that sent nothing for the timeout.
var errIdle = errors.New("client: no data from the server within the timeout")

// streamClient is the client's *http.Client without its overall timeout,
// which would cut a long download: attemptContext bounds its waits.
func (c *Client) streamClient() *http.Client {
	if c.hc.Timeout == 0 {
		return c.hc
	}
	hc := *c.hc
	hc.Timeout = 0
	return &hc
}

// idleBody is a streamed answer's body: each read restarts the timer that
// cancels the attempt, and Close releases it.
type idleBody struct {
	ctx     context.Context
	rc      io.ReadCloser
	timer   *time.Timer // nil without a timeout
	timeout time.Duration
	release func()
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.timer != nil && n > 0 {
		b.timer.Reset(b.timeout)
	}
	if err != nil && err != io.EOF && context.Cause(b.ctx) == errIdle {
		err = errIdle
	}
	return n, err
}

func (b *idleBody) Close() error {
	err := b.rc.Close()
	b.release()
	return err
}

// takeBody reads a request's body, which each attempt then sends anew.
func takeBody(req *http.Request) ([]byte, error) {
	rc := req.Body
	if req.GetBody != nil {
		var err error
		if rc, err = req.GetBody(); err != nil {
			return nil, fmt.Errorf("client: request body: %w", err)
		}
	}
	if rc == nil || rc == http.NoBody {
		return nil, nil
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("client: request body: %w", err)
	}
	return b, nil
}

func setBody(r *http.Request, body []byte) {
	if len(body) == 0 {
		r.Body, r.GetBody, r.ContentLength = http.NoBody, nil, 0
		return
	}
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	r.Body, _ = r.GetBody()
	r.ContentLength = int64(len(body))
}

// decodeData decodes the data of the success envelope into v.
func decodeData(resp *Response, v any) error {
	if v == nil {
		return nil
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(resp.raw, &env); err != nil || len(env.Data) == 0 {
		return fmt.Errorf("client: %s %s: the response is not the API's envelope (request %s)",
			resp.Request.Method, resp.Request.URL.Path, resp.RequestID)
	}
	if err := json.Unmarshal(env.Data, v); err != nil {
		return fmt.Errorf("client: %s %s: decoding the response (request %s): %w",
			resp.Request.Method, resp.Request.URL.Path, resp.RequestID, err)
	}
	return nil
}

// logAttempt logs one attempt at debug level. It logs neither headers nor
// bodies, so no secret or signature can reach the log.
func (c *Client) logAttempt(ctx context.Context, r *http.Request, n int, resp *Response, began time.Time, err error) {
	attrs := []slog.Attr{
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("attempt", n),
		slog.Duration("duration", c.clock().Sub(began)),
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode), slog.String("request_id", resp.RequestID))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	c.log.LogAttrs(ctx, slog.LevelDebug, "adcamp request", attrs...)
}

func (c *Client) logRetry(ctx context.Context, r *http.Request, n int, delay time.Duration, err error) {
	c.log.LogAttrs(ctx, slog.LevelInfo, "adcamp retry",
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("attempt", n),
		slog.Duration("delay", delay), slog.String("error", err.Error()))
}
