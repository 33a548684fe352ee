package lowpriority

import "golang.org/x/sys/unix"

// lower gives the calling thread, which the caller has locked to its
// goroutine, the lowest CPU and I/O priority short of idle (nice 19,
// best-effort I/O class, level 7). Linux's priorities are per thread, so
// the process's other threads keep theirs. Failures are ignored: the
// work is only slower to yield.
func lower() {
	tid := unix.Gettid()
	unix.Setpriority(unix.PRIO_PROCESS, tid, 19)
	const whoProcess, classBestEffort, level = 1, 2, 7
	unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, uintptr(tid), classBestEffort<<13|level)
}
