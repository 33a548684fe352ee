package httpapi_test

import (
	"log/slog"
	"strings"
	"testing"
)

type slogLogger = slog.Logger

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// newTestLogger routes logs to t.Log, at debug level, so a failing test
// shows what the server said.
func newTestLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
