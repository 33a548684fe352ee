package backup

import (
	"os"

	"golang.org/x/sys/unix"
)

// lowerPriority gives the calling thread, which the caller has locked to
// its goroutine, the lowest CPU and I/O priority short of idle (nice 19,
// best-effort I/O class, level 7): a backup is background work, and on a
// machine of few cores it would otherwise take the server's share.
// Linux's priorities are per thread, so the process's other threads keep
// theirs. Failures are ignored: the backup is only slower to yield.
func lowerPriority() {
	tid := unix.Gettid()
	unix.Setpriority(unix.PRIO_PROCESS, tid, 19)
	const whoProcess, classBestEffort, level = 1, 2, 7
	unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, uintptr(tid), classBestEffort<<13|level)
}

// writeBehind asks the kernel to write the n bytes at off of f out now,
// without waiting, and waits for the n bytes before them, so that at
// most two chunks of the file are ever waiting to be written.
func writeBehind(f *os.File, off, n int64) {
	fd := int(f.Fd())
	unix.SyncFileRange(fd, off, n, unix.SYNC_FILE_RANGE_WRITE)
	if off >= n {
		unix.SyncFileRange(fd, off-n, n, unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
	}
}
