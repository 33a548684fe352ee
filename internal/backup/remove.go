package backup

import (
	"os"
	"time"
)

// Removing a large file frees all its blocks at once, and a file system
// that discards freed blocks right away (ext4 mounted with discard, as on
// many cloud disks) keeps the disk busy with that meanwhile: here,
// removing a 500 MB file took 0.3 s, and a sync of a small write beside it
// waited 167 ms, as the server's syncs would. Shrunk first by shrinkStep
// at a time with shrinkPause between, the longest such sync was 9 ms, for
// 1 s in all (bench/notes/backup.md).
const (
	shrinkStep  = 8 << 20
	shrinkPause = 10 * time.Millisecond
)

// removeGently removes the file at path, shrinking it in steps first. A
// file that cannot be opened for writing is removed at once. Only for the
// backup's own temporary files: shrinking changes the file for anyone who
// has it open or linked (Prune removes old backups, which an operator may
// be copying elsewhere, at once).
func removeGently(path string) error {
	if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			for size := st.Size(); size > shrinkStep; {
				size -= shrinkStep
				if f.Truncate(size) != nil {
					break
				}
				time.Sleep(shrinkPause)
			}
		}
		f.Close()
	}
	return os.Remove(path)
}
