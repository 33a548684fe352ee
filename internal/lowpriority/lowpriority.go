// Package lowpriority runs background work (a backup, a report job) on a
// thread of its own at the lowest CPU and I/O priority short of idle, so
// that on a machine of few cores it takes what the server leaves rather
// than the server's share. Inside it, IdleIO lowers the thread's I/O to
// the idle class for files no one waits for, and Usual runs what others
// do wait for (a write the store may batch with the API's) at the usual
// priority.
package lowpriority

import (
	"runtime"
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
// came while the work held the processor waited up to that long.
type Pacer struct {
	every time.Duration
	last  time.Time
}

// NewPacer returns a Pacer that yields every interval of work.
func NewPacer(every time.Duration) *Pacer { return &Pacer{every: every, last: time.Now()} }

// Yield yields the processor if the last yield was an interval ago.
func (p *Pacer) Yield() {
	if now := time.Now(); now.Sub(p.last) >= p.every {
		runtime.Gosched()
		p.last = time.Now()
	}
}
