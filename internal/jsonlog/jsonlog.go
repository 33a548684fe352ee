// Package jsonlog is a slog.Handler that writes one JSON object a line,
// byte for byte as slog.JSONHandler does, at a fraction of its cost for
// the records a server writes most: a message with attributes of scalar
// kinds (strings, numbers, bools, durations, times, errors), outside any
// group. The access log writes one such record for every request, and
// slog.JSONHandler spent more on it than the service spent authenticating.
//
// Any other record (one with a group, a LogValuer, a value of another
// kind, a float that JSON cannot hold) is handed to a slog.JSONHandler
// over the same writer, with the same options and attributes, so the
// output is always what slog.JSONHandler would write.
package jsonlog

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/adcamp/adcamp/internal/jsonwrite"
)

// Handler is the slog.Handler of New.
type Handler struct {
	out   *output
	level slog.Leveler
	pre   []byte       // the attributes of WithAttrs, each as `,"key":value`
	slow  slog.Handler // a slog.JSONHandler with the same options and attributes
	fast  bool         // false: every record goes to slow
}

// output serialises the writes of every Handler derived from one New, its
// own and its slog.JSONHandler's.
type output struct {
	mu sync.Mutex
	w  io.Writer
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.w.Write(p)
}

// New returns a Handler writing to w, with the options of
// slog.NewJSONHandler (nil for the defaults). With AddSource or
// ReplaceAttr set, every record goes through slog.JSONHandler.
func New(w io.Writer, opts *slog.HandlerOptions) *Handler {
	var o slog.HandlerOptions
	if opts != nil {
		o = *opts
	}
	out := &output{w: w}
	h := &Handler{out: out, level: o.Level, slow: slog.NewJSONHandler(out, &o), fast: !o.AddSource && o.ReplaceAttr == nil}
	if h.level == nil {
		h.level = slog.LevelInfo
	}
	return h
}

// Enabled reports whether records of level l are written.
func (h *Handler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

// WithAttrs returns a Handler that writes attrs in every record.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	h2 := *h
	h2.slow = h.slow.WithAttrs(attrs)
	if h2.fast {
		pre := slices.Clip(h.pre)
		for _, a := range attrs {
			var ok bool
			if pre, ok = appendAttr(pre, a); !ok {
				h2.fast = false
				break
			}
		}
		h2.pre = pre
	}
	return &h2
}

// WithGroup returns a Handler that puts the attributes that follow in
// group name. Its records all go through slog.JSONHandler.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.slow = h.slow.WithGroup(name)
	h2.fast = false
	return &h2
}

// buffers holds the lines being written.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// maxKept bounds the buffers kept for reuse.
const maxKept = 16 << 10

// Handle writes r as one line.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if !h.fast {
		return h.slow.Handle(ctx, r)
	}
	bp := buffers.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxKept {
			buffers.Put(bp)
		}
	}()
	b, ok := h.appendRecord((*bp)[:0], r)
	*bp = b
	if !ok {
		return h.slow.Handle(ctx, r)
	}
	_, err := h.out.Write(b)
	return err
}

// appendRecord appends r's line as slog.JSONHandler writes it, or reports
// false if r needs slog.JSONHandler.
func (h *Handler) appendRecord(b []byte, r slog.Record) ([]byte, bool) {
	b = append(b, '{')
	if !r.Time.IsZero() {
		var ok bool
		b = append(b, `"time":`...)
		if b, ok = appendTime(b, r.Time.Round(0)); !ok {
			return b, false
		}
		b = append(b, ',')
	}
	b = append(b, `"level":`...)
	b = appendString(b, r.Level.String())
	b = append(b, `,"msg":`...)
	b = appendString(b, r.Message)
	b = append(b, h.pre...)
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		b, ok = appendAttr(b, a)
		return ok
	})
	return append(b, '}', '\n'), ok
}

// appendAttr appends `,"key":value`, or nothing for an empty Attr (which
// slog drops), or reports false for a value it does not write itself.
func appendAttr(b []byte, a slog.Attr) ([]byte, bool) {
	if a.Equal(slog.Attr{}) {
		return b, true
	}
	b = append(b, ',')
	b = appendString(b, a.Key)
	b = append(b, ':')
	v := a.Value
	switch v.Kind() {
	case slog.KindString:
		return appendString(b, v.String()), true
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10), true
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10), true
	case slog.KindFloat64:
		return appendFloat(b, v.Float64())
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool()), true
	case slog.KindDuration:
		return strconv.AppendInt(b, int64(v.Duration()), 10), true
	case slog.KindTime:
		return appendTime(b, v.Time())
	case slog.KindAny:
		a := v.Any()
		if _, marshals := a.(json.Marshaler); !marshals {
			if err, ok := a.(error); ok {
				return appendString(b, err.Error()), true
			}
		}
	}
	return b, false // groups, LogValuers, other values
}

// appendFloat writes f as encoding/json does, which slog.JSONHandler
// calls for floats. NaN and infinities are not JSON: slog writes an error
// in their place, and the caller leaves that to it.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-09 to e-9, as encoding/json
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendTime writes t in RFC 3339 with nanoseconds, in quotes. A year
// outside 0 to 9999 cannot be written so; slog writes an error, and the
// caller leaves that to it.
func appendTime(b []byte, t time.Time) ([]byte, bool) {
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return b, false
	}
	if _, offset := t.Zone(); offset != 0 {
		b = append(b, '"')
		return append(t.AppendFormat(b, time.RFC3339Nano), '"'), true
	}
	hour, minute, sec := t.Clock()
	b = append(b, '"')
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, minute, 2)
	b = append(b, ':')
	b = appendDigits(b, sec, 2)
	if ns := t.Nanosecond(); ns != 0 { // .999999999: trailing zeros dropped
		b = append(b, '.')
		n := len(b)
		b = appendDigits(b, ns, 9)
		for b[len(b)-1] == '0' && len(b) > n {
			b = b[:len(b)-1]
		}
	}
	return append(b, 'Z', '"'), true
}

// appendDigits appends v, zero-padded to width digits.
func appendDigits(b []byte, v, width int) []byte {
	for i := width - 1; i >= 0; i-- {
		b = append(b, '0')
	}
	for i := len(b) - 1; v > 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}

// appendString writes s in quotes as slog.JSONHandler does.
func appendString(b []byte, s string) []byte { return jsonwrite.AppendString(b, s, jsonwrite.Slog) }
