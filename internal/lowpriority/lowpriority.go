// Package lowpriority runs background work (a backup, a report job) on a
// thread of its own at the lowest CPU and I/O priority short of idle, so
// that on a machine of few cores it takes what the server leaves rather
// than the server's share. Inside it, IdleIO lowers the thread's I/O to
// the idle class for files no one waits for, and Usual runs what others
// do wait for (a write the store may batch with the API's) at the usual
// priority. A Pacer makes a long computation give way to the server's
// goroutines too, and wait while a Foreground says requests are coming.
package lowpriority

import (
	"net/http"
	"runtime"
	"sync/atomic"
	"time"
)

// Do runs fn on a new thread at the lowest priority and returns when fn
// does. The thread ends with fn: a goroutine that exits locked to its
// thread takes the thread with it, so no other goroutine ever runs at
// that priority. Goroutines that fn starts run at the usual priority.
// Where thread priorities are not Linux's, fn runs at the usual one.
func Do(fn func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		lower()
		defer close(done)
		fn()
	}()
	<-done
}

// Usual runs fn at the usual priority, from inside Do's fn, and returns
// when fn does: for work that others wait on. A write through the store is
// such work on SQLite, where the first of the writes waiting leads the
// batch that commits them all (the API's among them), on its own thread.
// fn runs on another goroutine, which the runtime never puts on Do's
// thread (a thread locked to a goroutine runs that goroutine alone).
func Usual(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
}

// Pacer lets a long computation inside Do give way: Yield, called often
// (every few dozen rows, say), yields the processor once every interval
// of work. Go runs as many goroutines at once as it has processors (one,
// for a server pinned to a core) and preempts a busy one only after
// 10 ms, whatever its thread's priority: without yielding, a request that
// came while the work held the processor waited up to that long. With a
// Foreground that is busy, Yield also waits, up to foregroundWait, for
// the server's requests to pause: a thread's low priority does not lower
// the goroutine's share of Go's processors, which it holds while it runs
// (in a server pinned to one core, a job at nice 19 still halved the
// API's throughput in a sitting, bench/notes/reports.md).
type Pacer struct {
	every time.Duration
	last  time.Time
	fg    *Foreground
	sleep func(time.Duration) // time.Sleep; tests count the waits
}

// foregroundWait bounds a yield's wait for a busy Foreground: a job gets
// about a tenth of a processor (every / (every + foregroundWait)) while
// the server is busy all the time, and all it can get when it is not.
const (
	foregroundWait = 5 * time.Millisecond
	foregroundPoll = time.Millisecond
)

// NewPacer returns a Pacer that yields every interval of work, and waits
// while fg (which may be nil) is busy.
func NewPacer(every time.Duration, fg *Foreground) *Pacer {
	return &Pacer{every: every, last: time.Now(), fg: fg, sleep: time.Sleep}
}

// Yield yields the processor if the last yield was an interval ago,
// after waiting for the Foreground to pause (see Pacer).
func (p *Pacer) Yield() {
	now := time.Now()
	if now.Sub(p.last) < p.every {
		return
	}
	for waited := time.Duration(0); waited < foregroundWait && p.fg.Busy(); waited += foregroundPoll {
		p.sleep(foregroundPoll)
	}
	runtime.Gosched()
	p.last = time.Now()
}

// Foreground tells background work whether a server is answering
// requests: Wrap marks the moment each request begins and ends, and Busy
// is true within busyWindow of the last mark. A long poll or a long
// download marks only its two ends, so an idle ad server's long-polling
// or a large file's streaming does not hold background work back, while
// a flow of requests does. The zero value is ready to use; a nil
// *Foreground is never busy.
type Foreground struct {
	last atomic.Int64 // the last mark (sinceEpoch)
}

// busyWindow is how long after a request's mark the server counts as
// busy: a flow of requests, each a few hundred microseconds to a few
// milliseconds apart, keeps it busy throughout.
const busyWindow = 2 * time.Millisecond

// sinceEpoch is the clock of Foreground's marks: monotonic, from the
// package's start (tests set their own).
var sinceEpoch = func() func() time.Duration {
	epoch := time.Now()
	return func() time.Duration { return time.Since(epoch) }
}()

// Wrap returns h marking f at the start and the end of each request.
func (f *Foreground) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.Mark()
		defer f.Mark()
		h.ServeHTTP(w, r)
	})
}

// Mark marks the moment a request begins or ends, for callers that are
// not an http.Handler (Wrap marks for those).
func (f *Foreground) Mark() { f.last.Store(int64(sinceEpoch())) }

// Busy reports whether a request began or ended within busyWindow.
func (f *Foreground) Busy() bool {
	return f != nil && sinceEpoch()-time.Duration(f.last.Load()) < busyWindow
}
