package backup

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"
)

// Schedule takes backups of a data directory's database at a steady pace
// (serve --backup-dir DIR --backup-every 24h --backup-keep 7).
type Schedule struct {
	DataDir string        // whose database
	Dir     string        // where the backups go, created if needed
	Every   time.Duration // between backups
	Keep    int           // how many scheduled backups Dir keeps, the newest
	Options Options
	Log     *slog.Logger
	// Done, if not nil, is told how each backup went (for metrics).
	Done func(m *Manifest, err error)
	// Found, if not nil, is told at start of the newest scheduled backup
	// already in Dir (for metrics: a restart does not make the last
	// backup look as if it had never been taken).
	Found func(m *Manifest)
}

// scheduledName matches the scheduled backups of Dir, and only them: the
// files an operator puts there are never pruned.
var scheduledName = regexp.MustCompile(`^adcamp-(\d{8}T\d{6}Z)\.tar$`)

const nameTime = "20060102T150405Z"

// Run takes backups until ctx ends: the first once the newest backup in
// Dir is Every old (at once if there is none, so that a restart neither
// skips a backup nor takes an extra one), then one every Every.
func (s *Schedule) Run(ctx context.Context) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		s.Log.Error("scheduled backups: create the backup directory", "dir", s.Dir, "err", err)
	}
	s.Log.Info("scheduled backups", "dir", s.Dir, "every", s.Every.String(), "keep", s.Keep,
		"note", "the master key is not in a backup: keep a copy of it apart from the backups")
	wait := time.Duration(0)
	if last, ok := s.newest(); ok {
		wait = max(0, time.Until(last.Add(s.Every)))
		if s.Found != nil {
			s.found()
		}
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.once(ctx)
			t.Reset(s.Every)
		}
	}
}

// once takes one backup, logs it, and prunes the oldest.
func (s *Schedule) once(ctx context.Context) {
	to := filepath.Join(s.Dir, "adcamp-"+time.Now().UTC().Format(nameTime)+".tar")
	start := time.Now()
	m, err := Create(ctx, s.DataDir, to, s.Options)
	if s.Done != nil {
		s.Done(m, err)
	}
	if err != nil {
		s.Log.Error("scheduled backup failed", "to", to, "err", err)
		return
	}
	s.Log.Info("scheduled backup", "to", to, "schema_version", m.SchemaVersion, "bytes", m.Size,
		"rows", m.Rows(), "sha256", m.SHA256, "took", time.Since(start).Round(time.Millisecond).String())
	removed, err := Prune(s.Dir, s.Keep)
	for _, name := range removed {
		s.Log.Info("removed an old scheduled backup", "file", name)
	}
	if err != nil {
		s.Log.Error("prune scheduled backups", "dir", s.Dir, "err", err)
	}
}

// found tells Found of the newest scheduled backup in Dir whose manifest
// reads (its head only: the file is checked whole when restored).
func (s *Schedule) found() {
	names, _ := scheduled(s.Dir)
	for i := len(names) - 1; i >= 0; i-- {
		if m, err := readHeadOf(filepath.Join(s.Dir, names[i])); err == nil {
			s.Found(m)
			return
		}
	}
}

// readHeadOf reads the manifest at the head of the backup file path.
func readHeadOf(path string) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readHead(tar.NewReader(f))
}

// newest returns the time of the newest scheduled backup in Dir.
func (s *Schedule) newest() (time.Time, bool) {
	names, _ := scheduled(s.Dir)
	if len(names) == 0 {
		return time.Time{}, false
	}
	t, err := time.Parse(nameTime, scheduledName.FindStringSubmatch(names[len(names)-1])[1])
	return t, err == nil
}

// Prune removes the scheduled backups of dir but the newest keep, and
// returns the names it removed.
func Prune(dir string, keep int) ([]string, error) {
	names, err := scheduled(dir)
	if err != nil || len(names) <= keep {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, name := range names[:len(names)-keep] {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, name)
	}
	return removed, errors.Join(errs...)
}

// scheduled lists the scheduled backups of dir, oldest first (their names
// sort by time).
func scheduled(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read the backup directory: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && scheduledName.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}
