package client

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// The server refuses a timestamp more than 300 s from its own clock
// (401 TIMESTAMP_EXPIRED). When that happens the client measures the
// offset between the server's clock and its own, keeps it, signs later
// requests with corrected timestamps, and sends the refused request once
// more. The offset is read from, in order of preference: the error's
// details.server_time (the clock that judged the timestamp), the
// response's Date header, or GET /time.
//
// None of these is authenticated, so an offset is taken only within
// MaxClockCorrection (a larger one is refused with a warning: the client
// would sign requests valid at another time, for whoever answered to
// replay then), and, when the base URL is https, only from an answer that
// came over TLS.

// MaxClockCorrection bounds the offset the client takes from a server's
// answer: beyond it, fix the local clock.
const MaxClockCorrection = time.Hour

// now returns the time to sign with: the local clock, corrected.
func (c *Client) now() time.Time {
	return c.clock().Add(time.Duration(c.offset.Load()))
}

// ClockOffset returns the correction the client adds to its clock when it
// signs: the server's clock minus the local one, as last measured (zero
// until a TIMESTAMP_EXPIRED answer or a call to [Client.SyncClock]).
func (c *Client) ClockOffset() time.Duration { return time.Duration(c.offset.Load()) }

// SyncClock measures the offset between the server's clock and the local
// one with GET /time, and uses it from then on. Clients correct their
// clock by themselves when needed; call this to do it ahead of time.
// An offset beyond MaxClockCorrection, or one read over plain http when
// the base URL is https, is refused with an error.
func (c *Client) SyncClock(ctx context.Context) error {
	t, resp, err := c.serverTime(ctx)
	if err != nil {
		return err
	}
	return c.takeOffset(ctx, resp, t.Sub(c.clock()), "GET /time")
}

type serverTime struct {
	Unix int64  `json:"unix"`
	ISO  string `json:"iso"`
}

// ServerTime returns the server's clock (GET /time, which needs no
// signature), to the second.
func (c *Client) ServerTime(ctx context.Context) (time.Time, error) {
	t, _, err := c.serverTime(ctx)
	return t, err
}

func (c *Client) serverTime(ctx context.Context) (time.Time, *Response, error) {
	req, err := c.NewRequest(http.MethodGet, "time", nil)
	if err != nil {
		return time.Time{}, nil, err
	}
	var st serverTime
	resp, err := c.do(ctx, req, &st, false)
	if err != nil {
		return time.Time{}, resp, err
	}
	return time.Unix(st.Unix, 0), resp, nil
}

// correctClock measures the offset after a TIMESTAMP_EXPIRED answer and
// reports whether it could.
func (c *Client) correctClock(ctx context.Context, resp *Response, e *Error) bool {
	local := c.clock()
	var err error
	if t, ok := e.ServerTime(); ok {
		err = c.takeOffset(ctx, resp, t.Sub(local), "error details")
	} else if t, perr := http.ParseTime(resp.Header.Get("Date")); perr == nil {
		err = c.takeOffset(ctx, resp, t.Sub(local), "Date header")
	} else {
		err = c.SyncClock(ctx)
	}
	if err != nil {
		c.log.LogAttrs(ctx, slog.LevelWarn, "adcamp clock correction refused", slog.String("error", err.Error()))
		return false
	}
	return true
}

// takeOffset keeps the offset d read from resp, if it is to be trusted:
// within MaxClockCorrection, and over TLS when the base URL is https.
func (c *Client) takeOffset(ctx context.Context, resp *Response, d time.Duration, source string) error {
	if c.base.Scheme == "https" && (resp == nil || resp.TLS == nil) {
		return fmt.Errorf("client: the server's time (%s) came without TLS, for an https base URL: not taken", source)
	}
	if d > MaxClockCorrection || d < -MaxClockCorrection {
		return fmt.Errorf("client: the server's clock (%s) is %v from the local one, more than the %v the client "+
			"corrects by itself: fix the local clock", source, d.Round(time.Second), MaxClockCorrection)
	}
	c.setOffset(ctx, d, source)
	return nil
}

func (c *Client) setOffset(ctx context.Context, d time.Duration, source string) {
	c.offset.Store(int64(d))
	c.log.LogAttrs(ctx, slog.LevelInfo, "adcamp clock offset", slog.Duration("offset", d), slog.String("source", source))
}

// The server executes a signed change once: the same signature again is a
// replay, answered with the first answer. Timestamps are whole seconds, so
// two calls that send the same change within one second (a PUT retried
// after a 412, say) would sign alike. stamps gives each such change a
// second of its own, one later than the last, so the server sees two
// requests. Reads need no such care.
type stamps struct {
	mu   sync.Mutex
	last map[[sha256.Size]byte]int64 // content -> last second it was signed at
}

// signTime is the time to sign r with.
func (c *Client) signTime(r *http.Request, body []byte) time.Time {
	now := c.now()
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return now
	}
	h := sha256.New()
	io.WriteString(h, r.Method+" "+r.URL.EscapedPath()+"\n")
	h.Write(body)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])

	c.stamps.mu.Lock()
	defer c.stamps.mu.Unlock()
	if c.stamps.last == nil || len(c.stamps.last) > 4096 {
		c.stamps.last = make(map[[sha256.Size]byte]int64) // forget: only the last seconds matter
	}
	sec := now.Unix()
	if last, ok := c.stamps.last[sum]; ok && last >= sec {
		sec = last + 1
	}
	c.stamps.last[sum] = sec
	return time.Unix(sec, 0)
}
