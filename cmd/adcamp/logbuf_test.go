package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBufferedLog: lines wait in the buffer, reach the output on the
// next flush, and none is lost on Close.
func TestBufferedLog(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	b := newBufferedLog(&out, time.Hour)
	b.Write([]byte("one\n"))
	if out.String() != "" {
		t.Fatalf("a line reached the output before any flush: %q", out.String())
	}
	b.flush()
	b.Write([]byte("two\n"))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "one\ntwo\n" {
		t.Errorf("output = %q, want both lines", got)
	}

	out = lockedBuffer{}
	b = newBufferedLog(&out, 10*time.Millisecond)
	defer b.Close()
	b.Write([]byte("tick\n"))
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), "tick"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the periodic flush never wrote the line")
		}
	}
}
