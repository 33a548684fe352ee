package lowpriority

import "golang.org/x/sys/unix"

// I/O priority classes and ioprio_set's "which" for a thread (linux/ioprio.h).
const (
	ioprioWhoProcess      = 1
	ioprioClassBestEffort = 2
	ioprioClassIdle       = 3
	ioprioClassShift      = 13
)

// lower gives the calling thread, which the caller has locked to its
// goroutine, the lowest CPU priority (nice 19) and the lowest I/O level
// of the best-effort class (7). Linux's priorities are per thread, so the
// process's other threads keep theirs. Failures are ignored: the work is
// only slower to yield.
func lower() {
	unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19)
	setIO(ioprioClassBestEffort, 7)
}

// IdleIO puts the I/O of the calling thread in the idle class: the disk
// serves it only when no other I/O waits (mq-deadline and bfq keep the
// classes apart, and mq-deadline tells no levels apart within one, so
// level 7 of the best-effort class alone yields nothing there; a request
// of the idle class still waits at most the scheduler's aging time, 10 s
// by default). Call it inside Do's fn, for the part of the work that
// reads and writes files no one waits for: not for I/O the server waits
// on (its database file's syncs), which would then wait behind the
// server's own.
func IdleIO() { setIO(ioprioClassIdle, 0) }

func setIO(class, level uintptr) {
	unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(unix.Gettid()), class<<ioprioClassShift|level)
}
