package jsonwrite

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

var seeds = []string{"", "plain", "<>&", "\"\\", "\x00\x07\b\f\n\r\t\x1f\x7f", "\u2028\u2029", "\xff", "é\xc3", "🎉 春"}

// FuzzAppendString holds both escapings to their references: the string
// as encoding/json marshals it, and as slog's JSONHandler writes a value.
func FuzzAppendString(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s, EncodingJSON); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q, EncodingJSON) = %s, want %s", s, got, want)
		}
		if got, want := AppendString(nil, s, Slog), slogString(t, s); string(got) != want {
			t.Errorf("AppendString(%q, Slog) = %s, want %s", s, got, want)
		}
	})
}

func TestAppendString(t *testing.T) {
	for _, s := range seeds {
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("x"), s, EncodingJSON); string(got) != "x"+string(want) {
			t.Errorf("AppendString(x, %q, EncodingJSON) = %s, want x%s", s, got, want)
		}
		if got, want := AppendString(nil, s, Slog), slogString(t, s); string(got) != want {
			t.Errorf("AppendString(%q, Slog) = %s, want %s", s, got, want)
		}
	}
}

// slogString is s as slog.JSONHandler writes the value of an attribute.
func slogString(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	h := slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key != "v" {
			return slog.Attr{}
		}
		return a
	}})
	slog.New(h).Info("", "v", s)
	line := strings.TrimSuffix(buf.String(), "\n")
	const pre = `{"v":`
	if !strings.HasPrefix(line, pre) || !strings.HasSuffix(line, "}") {
		t.Fatalf("slog wrote %s", line)
	}
	return line[len(pre) : len(line)-1]
}
