// Package backup makes online backups of adcamp's SQLite database, checks
// them, and prepares them for a restore.
//
// A backup is one tar file, mode 0600: manifest.json first (see Manifest:
// the schema version, when it was taken, the database's size and SHA-256,
// the rows of each table), then adcamp.db, a copy of the database made
// with SQLite's online backup API, in steps inside one read transaction.
// It reads one snapshot of the database, as any reader does in WAL mode,
// so writes go on while it copies, and it copies what they wrote back into
// the database in slices once done (onlineCopy; bench/notes/backup.md
// measures what writes see). The
// copy is checked (PRAGMA integrity_check) before the file is written,
// and the file appears under its name only once complete and synced.
//
// The master key is not in a backup: secrets in it open only with the key
// the database was written with, which is kept apart (docs/operations.md).
package backup

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	sqlitedriver "modernc.org/sqlite"

	"github.com/adcamp/adcamp/internal/lowpriority"
	"github.com/adcamp/adcamp/internal/sqlite"
)

// Names of a backup's members, in order.
const (
	manifestName = "manifest.json"
	databaseName = "adcamp.db"
)

// Options are what a backup records about who made it.
type Options struct {
	Version string // adcamp's version, for the manifest
}

// Create backs up the database of the data directory dataDir into the
// file to, which must not exist, and returns its manifest. It takes the
// directory's shared lock (sqlite.LockShared), so no restore replaces the
// database while it copies; serve and the other commands go on.
func Create(ctx context.Context, dataDir, to string, o Options) (*Manifest, error) {
	// The work runs on a thread of its own at the lowest priority: a
	// backup is background work.
	var m *Manifest
	var err error
	lowpriority.Do(func() { m, err = create(ctx, dataDir, to, o) })
	return m, err
}

// create is Create, on its thread.
func create(ctx context.Context, dataDir, to string, o Options) (*Manifest, error) {
	src := filepath.Join(dataDir, sqlite.FileName)
	if _, err := os.Stat(src); err != nil {
		return nil, fmt.Errorf("no database to back up in %s: %w", dataDir, err)
	}
	if _, err := os.Lstat(to); err == nil {
		return nil, fmt.Errorf("%s exists: back up to a new file", to)
	}
	release, err := sqlite.LockShared(dataDir)
	if err != nil {
		return nil, err
	}
	defer release()
	copyPath, err := tempPath(filepath.Dir(to), ".adcamp-backup-*.db")
	if err != nil {
		return nil, err
	}
	defer removeDatabase(copyPath)
	start := time.Now()
	if err := onlineCopy(ctx, src, copyPath); err != nil {
		return nil, fmt.Errorf("copy the database: %w", err)
	}
	// What is left reads and writes the backup's own files, which no one
	// waits for: the disk serves them when the server's I/O leaves it free.
	// (The copy and its checkpoint, before, stay best-effort: the copy
	// holds the snapshot that makes the WAL grow, and the checkpoint writes
	// the server's database, whose syncs the server waits for.)
	lowpriority.IdleIO()
	m, err := describe(ctx, copyPath)
	if err != nil {
		return nil, err
	}
	m.CreatedAt, m.AdcampVersion = start.UTC().Truncate(time.Second), o.Version
	if err := writeArchive(to, m, copyPath); err != nil {
		return nil, err
	}
	return m, nil
}

// backuper is the modernc.org/sqlite connection's online backup API.
type backuper interface {
	NewBackup(dst string) (*sqlitedriver.Backup, error)
}

// The copy reads one snapshot of the database, in steps of copyStep
// pages, all inside one read transaction of its connection (the backup
// API's steps on a connection with a transaction open read that
// transaction's snapshot, so no write in between starts the copy over).
//
// While it reads, no checkpoint can copy the pages written meanwhile
// back into the database: the WAL holds them all, a backlog of tens of
// MB on a busy server. Copied back in one checkpoint, they reach the disk
// in one burst, and the server's writer, whose few syncs (the one that
// starts the WAL over, its small checkpoints) queue behind that burst,
// stalled for 200 to 300 ms (bench/notes/backup.md). So the copy takes
// heldSnapshots more snapshots on the way (when a quarter, a half and
// three quarters of the pages are copied): each keeps checkpoints from
// copying the pages written after it began, and once the copy is done the
// backlog is copied back in heldSnapshots+1 slices, oldest first, each a
// checkpoint of its own followed by a pause as long as it took, in which
// the disk is the server's.
//
// SQLite's WAL index has four read marks for snapshots of different
// ages: the copy and three held snapshots use them all only near the
// copy's end, and a server's reader that then finds none free reads at
// the newest held snapshot's mark, which only restrains checkpoints.
var (
	copyStep      int32 = 4096 // pages: 16 MB
	heldSnapshots       = 3
	// onSnapshot, for tests, runs after each held snapshot is taken.
	onSnapshot func()
	// onSlice, for tests, is told what each slice's checkpoint reported.
	onSlice func(log, copied int)
)

// Pauses between slices: as long as the slice's checkpoint took, within
// these bounds.
const (
	minSlicePause = 20 * time.Millisecond
	maxSlicePause = time.Second
)

// onlineCopy copies the database at src into a new database at dst, from
// one snapshot, then copies back into src what was written meanwhile.
func onlineCopy(ctx context.Context, src, dst string) (err error) {
	db, err := sqlite.OpenFile(src)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var held []*sql.Tx
	defer func() {
		for _, tx := range held {
			tx.Rollback()
		}
	}()
	if _, err := conn.ExecContext(ctx, `BEGIN`); err != nil {
		return err
	}
	var tables int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&tables); err != nil {
		return err
	}
	err = conn.Raw(func(dc any) error {
		b, ok := dc.(backuper)
		if !ok {
			return fmt.Errorf("the SQLite driver (%T) has no online backup", dc)
		}
		// The copy is thrown away once in the backup file: no journal,
		// no syncs (a sync of the whole copy would hold up the server's
		// own syncs for as long as it took).
		bk, err := b.NewBackup(dsn(dst, "_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)"))
		if err != nil {
			return err
		}
		for {
			more, err := bk.Step(copyStep)
			if err != nil || !more {
				return errors.Join(err, bk.Finish())
			}
			if err := ctx.Err(); err != nil {
				return errors.Join(err, bk.Finish())
			}
			total, done := bk.PageCount(), bk.PageCount()-bk.Remaining()
			if len(held) < heldSnapshots && done*(heldSnapshots+1) >= (len(held)+1)*total {
				tx, err := holdSnapshot(ctx, db)
				if err != nil {
					return errors.Join(err, bk.Finish())
				}
				held = append(held, tx)
				if onSnapshot != nil {
					onSnapshot()
				}
			}
		}
	})
	if _, e := conn.ExecContext(ctx, `COMMIT`); err == nil {
		err = e
	}
	if err != nil {
		return err
	}
	for {
		took, err := checkpointSlice(ctx, conn)
		if err != nil || len(held) == 0 {
			return err
		}
		select {
		case <-time.After(min(max(took, minSlicePause), maxSlicePause)):
		case <-ctx.Done():
			return ctx.Err()
		}
		err = held[0].Rollback()
		held = held[1:]
		if err != nil {
			return err
		}
	}
}

// holdSnapshot begins a read transaction on a connection of its own.
func holdSnapshot(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	var tables int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&tables); err != nil {
		tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// checkpointSlice runs a PASSIVE checkpoint (no writer waits for it): it
// copies the WAL's pages up to the oldest snapshot still read, and says
// how long that took.
func checkpointSlice(ctx context.Context, conn *sql.Conn) (time.Duration, error) {
	start := time.Now()
	var busy, log, copied int
	if err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &copied); err != nil {
		return 0, err
	}
	if onSlice != nil {
		onSlice(log, copied)
	}
	return time.Since(start), nil
}

// describe checks the copy at path and says what it holds. It first takes
// the copy out of WAL mode, so that the database is the one file, readable
// alone.
func describe(ctx context.Context, path string) (*Manifest, error) {
	// Still no syncs: the backup file, written next, is synced instead.
	db, err := sql.Open("sqlite", dsn(path, "_pragma=busy_timeout(10000)&_pragma=synchronous(OFF)"))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `PRAGMA journal_mode = DELETE`); err != nil {
		return nil, err
	}
	if err := integrityCheck(ctx, db); err != nil {
		return nil, fmt.Errorf("the copy of the database: %w", err)
	}
	s, err := sqlite.SchemaOf(ctx, db)
	if err != nil {
		return nil, err
	}
	tables, err := countRows(ctx, db)
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	sum, size, err := hashFile(path)
	if err != nil {
		return nil, err
	}
	return &Manifest{Format: Format, SchemaVersion: s.Current, Database: databaseName, Size: size, SHA256: sum, Tables: tables}, nil
}

// integrityCheck runs PRAGMA integrity_check, which answers one row, ok,
// or the problems it found.
func integrityCheck(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("integrity check failed: %q", problems)
	}
	return nil
}

// countRows counts the rows of every table.
func countRows(ctx context.Context, db *sql.DB) (map[string]int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	counts := make(map[string]int64, len(names))
	for _, name := range names {
		var n int64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM "`+name+`"`).Scan(&n); err != nil {
			return nil, err
		}
		counts[name] = n
	}
	return counts, nil
}

// dsn is the data source name of the SQLite file at path.
func dsn(path, query string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + query
}

// hashFile returns the SHA-256 and size of the file at path.
func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// writeArchive writes the backup file: the manifest, then the database,
// into a temporary file beside to, synced, then renamed to to.
func writeArchive(to string, m *Manifest, dbPath string) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(to), ".adcamp-backup-*.tar")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			removeGently(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return err
	}
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tw := tar.NewWriter(&flushBehind{f: tmp})
	if err := addMember(tw, manifestName, int64(len(manifest)+1), m.CreatedAt, bytesReader(append(manifest, '\n'))); err != nil {
		return err
	}
	f, err := os.Open(dbPath)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := addMember(tw, databaseName, m.Size, m.CreatedAt, f); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), to); err != nil {
		return err
	}
	return syncDir(filepath.Dir(to))
}

// flushChunk is how much of the backup file is written before the kernel
// is asked to write it out.
const flushChunk = 8 << 20

// flushBehind writes to f, having each chunk written out as soon as it is
// complete (writeBehind), so that the backup never leaves hundreds of MB
// for the kernel to write at once: the sync that would take them all, at
// the end, would hold up the server's own syncs (its checkpoints, which
// the writer waits for) for as long as it took. Measured in
// bench/notes/backup.md.
type flushBehind struct {
	f            *os.File
	off, flushed int64
}

func (w *flushBehind) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.off += int64(n)
	for w.off-w.flushed >= flushChunk {
		writeBehind(w.f, w.flushed, flushChunk)
		w.flushed += flushChunk
	}
	return n, err
}

// addMember writes one file of size bytes from r into the archive.
func addMember(tw *tar.Writer, name string, size int64, mod time.Time, r io.Reader) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: size, ModTime: mod, Format: tar.FormatPAX}); err != nil {
		return err
	}
	n, err := io.Copy(tw, r)
	if err == nil && n != size {
		err = fmt.Errorf("%s: wrote %d bytes, want %d (did it change while being copied?)", name, n, size)
	}
	return err
}

// tempPath returns the name of a new, empty file in dir, for SQLite to
// write into.
func tempPath(dir, pattern string) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	return f.Name(), f.Close()
}

// removeDatabase removes a temporary database file with its journal
// files, those that exist.
func removeDatabase(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		removeGently(p)
	}
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
