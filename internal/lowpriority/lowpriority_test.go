package lowpriority

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// fakeClock sets sinceEpoch to a clock that moves only when told, for
// the test.
func fakeClock(t *testing.T) *time.Duration {
	now := new(time.Duration)
	*now = time.Hour
	real := sinceEpoch
	sinceEpoch = func() time.Duration { return *now }
	t.Cleanup(func() { sinceEpoch = real })
	return now
}

// TestForeground: a request marks the server busy from its start, and
// its end does again; in between, a long request (a long poll, a
// download) stops counting once busyWindow has passed since its start.
func TestForeground(t *testing.T) {
	now := fakeClock(t)
	var nilFg *Foreground
	if nilFg.Busy() {
		t.Error("a nil Foreground is busy")
	}
	f := &Foreground{}
	f.last.Store(int64(*now - time.Minute))
	if f.Busy() {
		t.Error("busy before any request")
	}
	var atStart, later bool
	h := f.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		atStart = f.Busy()
		*now += busyWindow // a long poll, waiting
		later = f.Busy()
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if !atStart || later {
		t.Errorf("busy at a request's start = %v, %v after the window while it waits; want true, false", atStart, later)
	}
	if !f.Busy() {
		t.Error("not busy as a request ends")
	}
	*now += busyWindow - time.Microsecond
	if !f.Busy() {
		t.Error("not busy just within the window after a request")
	}
	*now += time.Microsecond
	if f.Busy() {
		t.Error("busy a window after the last request")
	}
}

// TestPacerWaitsForTheForeground: a yield waits while the server is
// busy, up to foregroundWait, and not at all when it is idle.
func TestPacerWaitsForTheForeground(t *testing.T) {
	now := fakeClock(t)
	f := &Foreground{}
	var waits int
	p := NewPacer(0, f)
	p.sleep = func(d time.Duration) {
		waits++
		*now += d
	}

	f.Mark()
	p.Yield()
	if want := int(busyWindow / foregroundPoll); waits != want {
		t.Errorf("a yield just after a request waited %d times, want %d (until the window passed)", waits, want)
	}

	waits = 0
	p.Yield()
	if waits != 0 {
		t.Errorf("a yield on an idle server waited %d times, want 0", waits)
	}

	// A server that stays busy: a request every step of the wait.
	waits = 0
	p.sleep = func(d time.Duration) {
		waits++
		*now += d
		f.Mark()
	}
	f.Mark()
	p.Yield()
	if want := int(foregroundWait / foregroundPoll); waits != want {
		t.Errorf("a yield on a busy server waited %d times, want %d (foregroundWait)", waits, want)
	}

	waits = 0
	q := NewPacer(0, nil)
	q.sleep = p.sleep
	q.Yield()
	if waits != 0 {
		t.Errorf("a pacer without a Foreground waited %d times, want 0", waits)
	}
}
