package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A data directory is shared by every process that has its database open
// (serve, the admin commands, a backup), each holding a shared lock on
// lockName for as long as it does, and taken whole by a restore, which
// holds the lock exclusively while it replaces the database's files.
// SQLite's own locks cannot serve here: they cover a transaction, not a
// process that keeps the file open between transactions, and a file
// replaced under an open connection is not seen by it (the connection
// keeps writing to the file it opened, now unlinked).
const (
	lockName = "adcamp.lock"
	// restoringName marks a restore that has begun moving files: a
	// process that finds it refuses the directory rather than open a
	// database left half replaced.
	restoringName = "restore-in-progress"
)

// ErrInUse is the error of LockExclusive while a process has the
// directory's database open.
var ErrInUse = errors.New("the database is open in another process")

// errRestoring is the error of LockShared while a restore holds the
// directory.
var errRestoring = errors.New("a restore holds the data directory")

// LockShared takes a shared lock on the data directory dir, which
// LockExclusive cannot take until release is called. Open takes one for
// as long as the database is open.
func LockShared(dir string) (release func(), err error) {
	f, err := lockDir(dir, syscall.LOCK_SH)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, fmt.Errorf("%w %s (adcamp restore): try again once it has finished", errRestoring, dir)
	}
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, restoringName)); err == nil {
		f.Close()
		return nil, fmt.Errorf("a restore of %s was interrupted (%s is there): run adcamp restore again", dir, restoringName)
	}
	return func() { f.Close() }, nil
}

// LockExclusive takes the data directory dir (created if needed) for a
// restore; it fails with ErrInUse at once while any process has the
// database open.
func LockExclusive(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	f, err := lockDir(dir, syscall.LOCK_EX)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, fmt.Errorf("%w (adcamp serve, or another adcamp command, uses %s): stop it first", ErrInUse, dir)
	}
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}

// lockDir takes the lock of dir without waiting; closing the file
// releases it.
func lockDir(dir string, how int) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Replace makes the database of dir the one in from (a directory the
// restore prepared, on the same file system), moving the database it
// replaces, with its WAL, into a new directory beside it, whose path it
// returns ("" when dir held no database). The caller holds dir's
// exclusive lock. A restore interrupted halfway leaves restoringName in
// dir, so that nothing opens the database until a restore completes.
func Replace(dir, from string) (aside string, err error) {
	if _, err := os.Stat(filepath.Join(from, FileName)); err != nil {
		return "", fmt.Errorf("the restored database: %w", err)
	}
	marker := filepath.Join(dir, restoringName)
	if err := os.WriteFile(marker, []byte("adcamp restore is replacing the database here\n"), 0o600); err != nil {
		return "", err
	}
	if err := syncDir(dir); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); err == nil {
		aside = filepath.Join(dir, "replaced-"+time.Now().UTC().Format("20060102T150405Z"))
		if err := os.Mkdir(aside, 0o700); err != nil {
			return "", err
		}
	}
	for _, name := range []string{FileName + "-wal", FileName + "-shm", FileName} {
		if aside != "" {
			if err := rename(filepath.Join(dir, name), filepath.Join(aside, name)); err != nil {
				return "", err
			}
		} else if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
		if err := rename(filepath.Join(from, name), filepath.Join(dir, name)); err != nil {
			return "", err
		}
	}
	if err := syncDir(dir); err != nil {
		return "", err
	}
	if err := os.Remove(marker); err != nil {
		return "", err
	}
	return aside, syncDir(dir)
}

// rename moves a file that may not exist.
func rename(from, to string) error {
	if err := os.Rename(from, to); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// syncDir makes the renames in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
