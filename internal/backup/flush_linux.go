package backup

import (
	"os"

	"golang.org/x/sys/unix"
)

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
