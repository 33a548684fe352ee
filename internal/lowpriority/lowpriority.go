// Package lowpriority runs background work (a backup, a report job) on a
// thread of its own at the lowest CPU and I/O priority short of idle, so
// that on a machine of few cores it takes what the server leaves rather
// than the server's share.
package lowpriority

import "runtime"

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
