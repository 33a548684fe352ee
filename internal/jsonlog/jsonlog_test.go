package jsonlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

// both logs the same calls through a Handler and a slog.JSONHandler and
// fails on any difference in what they write.
func both(t *testing.T, opts *slog.HandlerOptions, do func(*slog.Logger)) {
	t.Helper()
	var got, want bytes.Buffer
	do(slog.New(New(&got, opts)))
	do(slog.New(slog.NewJSONHandler(&want, opts)))
	if got.String() != want.String() {
		t.Errorf("jsonlog wrote\n%s\nslog.JSONHandler wrote\n%s", got.String(), want.String())
	}
}

type marshaler struct{}

func (marshaler) MarshalJSON() ([]byte, error) { return []byte(`{"m":1}`), nil }

type marshalingError struct{}

func (marshalingError) Error() string                { return "as text" }
func (marshalingError) MarshalJSON() ([]byte, error) { return []byte(`"as JSON"`), nil }

type valuer struct{}

func (valuer) LogValue() slog.Value { return slog.StringValue("resolved") }

var when = time.Date(2026, 11, 22, 9, 30, 5, 120000000, time.UTC)

func TestSameAsJSONHandler(t *testing.T) {
	strs := []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "\n\r\t\b\f\x00\x1f\x7f",
		"café ☕ 🎉", "\u2028\u2029", "\xff\xfe bad \xc3", strings.Repeat("long ", 2000)}
	floats := []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-6, 9.99e-7, 1e-7, 123456789.125, 1e20, 1e21, -1e21, 1.7976931348623157e308,
		5e-324, math.NaN(), math.Inf(1), math.Inf(-1)}
	times := []time.Time{when, when.Truncate(time.Second), time.Date(2026, 1, 2, 3, 4, 5, 1, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 100, time.UTC), when.In(time.FixedZone("X", 5*3600+30*60)),
		when.In(time.FixedZone("Y", -7*3600)), when.In(time.FixedZone("Z0", 0)), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), {}}
	cases := map[string]func(*slog.Logger){
		"the access log": func(l *slog.Logger) {
			l.With("env", "production").LogAttrs(context.Background(), slog.LevelInfo, "request",
				slog.String("request_id", "req_0123456789abcdef01234567"), slog.String("method", "GET"),
				slog.String("route", "GET /api/v1/open/campaigns/{campaign_id}"), slog.Int("status", 200),
				slog.Int64("bytes", 312), slog.Float64("latency_ms", 0.412), slog.String("key_id", "ak_live_x"))
		},
		"levels": func(l *slog.Logger) {
			for _, lv := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2, slog.LevelError + 8} {
				l.Log(context.Background(), lv, "at level")
			}
		},
		"kinds": func(l *slog.Logger) {
			l.Info("kinds", "i", -42, "u", uint64(math.MaxUint64), "b", true, "f", false, "d", 1500*time.Millisecond,
				"err", errors.New("boom \"quoted\""), "wrapped", fmt.Errorf("outer: %w", errors.New("inner")),
				"any", []int{1, 2}, "map", map[string]int{"a": 1}, "nil", nil, "marshaler", marshaler{},
				"marshaling error", marshalingError{}, "valuer", valuer{}, "group", slog.GroupValue(slog.Int("x", 1)),
				"empty group", slog.GroupValue(), slog.Attr{}, "", "empty key")
		},
		"strings": func(l *slog.Logger) {
			for _, s := range strs {
				l.Info(s, s, s)
			}
		},
		"floats": func(l *slog.Logger) {
			for _, f := range floats {
				l.Info("float", "f", f)
			}
		},
		"times": func(l *slog.Logger) {
			for _, tm := range times {
				l.Info("time", "t", tm)
				// The record's own time, past withTime's handler.
				r := slog.NewRecord(tm, slog.LevelInfo, "record time", 0)
				l.Handler().(fixedTime).Handler.Handle(context.Background(), r)
			}
		},
		"with attrs and groups": func(l *slog.Logger) {
			l = l.With("a", 1, slog.Attr{}, "s", "x\ny")
			l.Info("with")
			l.With().Info("with nothing")
			l.With("valuer", valuer{}).Info("with a valuer", "after", 2)
			l.With("nan", math.NaN()).Info("with a NaN")
			g := l.WithGroup("g")
			g.Info("in a group", "k", "v")
			g.WithGroup("").Info("empty group name", "k", "v")
			g.With("in", "g").WithGroup("h").Info("nested", "k", "v")
			l.WithGroup("unused").Info("group without attrs")
		},
	}
	for name, do := range cases {
		t.Run(name, func(t *testing.T) {
			opts := &slog.HandlerOptions{Level: slog.LevelDebug}
			both(t, opts, func(l *slog.Logger) { do(withTime(l, when)) })
			both(t, opts, func(l *slog.Logger) { do(withTime(l, time.Time{})) })
		})
	}
	t.Run("options", func(t *testing.T) {
		do := func(l *slog.Logger) { withTime(l, when).Info("opts", "k", "v", "n", 1) }
		both(t, nil, do)
		both(t, &slog.HandlerOptions{Level: slog.LevelWarn}, do)
		both(t, &slog.HandlerOptions{AddSource: true}, do)
		both(t, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == "k" {
				a.Value = slog.StringValue("replaced")
			}
			return a
		}}, do)
	})
}

// withTime returns a logger whose records all carry time tm (zero: none),
// so that the two handlers compared see the same times.
func withTime(l *slog.Logger, tm time.Time) *slog.Logger {
	return slog.New(fixedTime{l.Handler(), tm})
}

type fixedTime struct {
	slog.Handler
	tm time.Time
}

func (f fixedTime) Handle(ctx context.Context, r slog.Record) error {
	r.Time = f.tm
	return f.Handler.Handle(ctx, r)
}

func (f fixedTime) WithAttrs(as []slog.Attr) slog.Handler {
	return fixedTime{f.Handler.WithAttrs(as), f.tm}
}

func (f fixedTime) WithGroup(name string) slog.Handler {
	return fixedTime{f.Handler.WithGroup(name), f.tm}
}

// TestConcurrentLinesStayWhole: lines written at once from many
// goroutines, fast and slow, come out whole, one a line.
func TestConcurrentLinesStayWhole(t *testing.T) {
	var out bytes.Buffer
	l := slog.New(New(&out, nil))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				l.Info("line", "g", g, "i", i, "pad", strings.Repeat("x", 100))
				l.WithGroup("slow").Info("line", "g", g, "i", i)
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 8*200*2 {
		t.Fatalf("%d lines, want %d", len(lines), 8*200*2)
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, `{"time":"`) || !strings.HasSuffix(line, "}") {
			t.Fatalf("a line was cut or mixed with another: %q", line)
		}
	}
}

func FuzzSameAsJSONHandler(f *testing.F) {
	f.Add("msg", "key", "value", 1.5, int64(7))
	f.Add("", "", "\x00\xff\u2028<>&\"\\", 1e-7, int64(-1))
	f.Fuzz(func(t *testing.T, msg, key, value string, fl float64, n int64) {
		both(t, nil, func(l *slog.Logger) {
			withTime(l, when).With(key, value).Info(msg, key, value, "f", fl, "n", n, value, key)
		})
	})
}

// BenchmarkAccessLog is the access log line of every request, as the API
// server writes it (a record made without Logger's search for its caller),
// through this handler and through slog.JSONHandler.
func BenchmarkAccessLog(b *testing.B) {
	for _, c := range []struct {
		name string
		h    slog.Handler
	}{{"jsonlog", New(discard{}, nil)}, {"slog.JSONHandler", slog.NewJSONHandler(discard{}, nil)}} {
		b.Run(c.name, func(b *testing.B) {
			h := c.h.WithAttrs([]slog.Attr{slog.String("env", "production")})
			b.ReportAllocs()
			for b.Loop() {
				r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
				r.AddAttrs(slog.String("request_id", "req_0123456789abcdef01234567"), slog.String("method", "GET"),
					slog.String("route", "GET /api/v1/open/campaigns/{campaign_id}"), slog.Int("status", 200),
					slog.Int64("bytes", 312), slog.Float64("latency_ms", 0.412), slog.String("key_id", "ak_live_x"))
				h.Handle(context.Background(), r)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
