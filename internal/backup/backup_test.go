package backup

import (
	"archive/tar"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
	"github.com/adcamp/adcamp/internal/store/storetest"
)

func openDir(t *testing.T, dir string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestBackupAndExtract: a backup of a database in use holds every row
// (read back with the store suite's calls after extracting it), its
// manifest says what it holds, and the file is private.
func TestBackupAndExtract(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	data := storetest.Fill(t, db)

	to := filepath.Join(t.TempDir(), "b.tar")
	m, err := Create(ctx, dir, to, Options{Version: "v9.9.9"})
	if err != nil {
		t.Fatal(err)
	}
	schema, _ := db.Schema(ctx)
	if m.SchemaVersion != schema.Latest || m.AdcampVersion != "v9.9.9" || m.Tables["campaigns"] != 8 || m.Tables["keywords"] != 6 ||
		m.Tables["accounts"] != 1 || m.Tables["goose_db_version"] == 0 || time.Since(m.CreatedAt) > time.Hour {
		t.Errorf("manifest = %+v; want schema %d, 8 campaigns, 6 keywords, 1 account", m, schema.Latest)
	}
	if info, err := os.Stat(to); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the backup file: %v, mode %v; want 0600", err, info.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(to), ".adcamp-backup-*")); len(left) > 0 {
		t.Errorf("temporary files left beside the backup: %v", left)
	}
	if names := members(t, to); !slices.Equal(names, []string{"manifest.json", "adcamp.db"}) {
		t.Errorf("members = %v, want manifest.json then adcamp.db", names)
	}

	into := t.TempDir()
	got, err := Extract(ctx, to, into)
	if err != nil {
		t.Fatal(err)
	}
	if got.SHA256 != m.SHA256 {
		t.Errorf("Extract's manifest = %+v, want %+v", got, m)
	}
	data.Check(t, openDir(t, into))
	if _, err := Create(ctx, dir, to, Options{}); err == nil {
		t.Error("Create over an existing file succeeded, want it refused")
	}
}

func members(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
}

// TestBackupUnderWrites: writes go on while a backup is taken, and the
// backup holds every write acknowledged before it began, in a database
// that passes the integrity check.
func TestBackupUnderWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("acc_%d_%d", w, i)
				err := db.Write(ctx, func(tx store.Tx) error {
					return tx.CreateAccount(ctx, &adcamp.Account{ID: id, Name: "Load", CreatedAt: time.Now()})
				})
				if err != nil {
					t.Errorf("write %s: %v", id, err)
					return
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
			}
		})
	}
	for !within(func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 200 }) {
	}
	mu.Lock()
	before := slices.Clone(acked)
	mu.Unlock()
	to := filepath.Join(t.TempDir(), "b.tar")
	m, err := Create(ctx, dir, to, Options{})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	into := t.TempDir()
	if _, err := Extract(ctx, to, into); err != nil {
		t.Fatal(err)
	}
	restored := openDir(t, into)
	for _, id := range before {
		if err := restored.Read(ctx, func(tx store.Tx) error { _, err := tx.GetAccount(ctx, id); return err }); err != nil {
			t.Fatalf("account %s, acknowledged before the backup began: %v", id, err)
		}
	}
	if m.Tables["accounts"] < int64(len(before)) {
		t.Errorf("the manifest counts %d accounts, fewer than the %d acknowledged before", m.Tables["accounts"], len(before))
	}
	t.Logf("%d writes acknowledged before the backup, %d in it, %d in all", len(before), m.Tables["accounts"], len(acked))
}

// within reports whether cond holds, polling for a while.
func within(cond func() bool) bool {
	for range 100 {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}

// TestDamagedBackupsRefused: a backup whose database changed, that is cut
// short, that is not a backup, or whose schema is newer than this
// adcamp's is refused, and nothing is left where it was to be extracted.
func TestDamagedBackupsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	storetest.Fill(t, openDir(t, dir))
	good := filepath.Join(t.TempDir(), "good.tar")
	m, err := Create(ctx, dir, good, Options{Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(good)
	flipped := bytes.Clone(raw)
	flipped[len(flipped)-4096] ^= 0x40 // inside the database's last page
	newer := *m
	newer.SchemaVersion = 99999

	for _, tc := range []struct {
		name string
		file []byte
		want error
	}{
		{"a byte of the database flipped", flipped, ErrDamaged},
		{"cut short", raw[:len(raw)/2], ErrDamaged},
		{"not a backup", []byte("hello, world\n"), ErrDamaged},
		{"a newer schema", archive(t, &newer, raw), ErrSchema},
	} {
		path := filepath.Join(t.TempDir(), "bad.tar")
		os.WriteFile(path, tc.file, 0o600)
		into := t.TempDir()
		_, err := Extract(ctx, path, into)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Extract = %v, want %v", tc.name, err, tc.want)
		}
		if left, _ := os.ReadDir(into); len(left) != 0 {
			t.Errorf("%s: Extract left %d files", tc.name, len(left))
		}
	}
}

// archive is a backup file with manifest m and the database of the
// backup file raw.
func archive(t *testing.T, m *Manifest, raw []byte) []byte {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(raw))
	tr.Next()
	tr.Next()
	db, _ := io.ReadAll(tr)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	manifest, _ := json.Marshal(m)
	addMember(tw, manifestName, int64(len(manifest)), m.CreatedAt, bytes.NewReader(manifest))
	addMember(tw, databaseName, int64(len(db)), m.CreatedAt, bytes.NewReader(db))
	tw.Close()
	return buf.Bytes()
}

// TestScheduleAndPrune: a schedule on a directory without backups takes
// one at once; pruning keeps the newest scheduled backups and leaves
// every other file alone.
func TestScheduleAndPrune(t *testing.T) {
	t.Parallel()
	dataDir, dir := t.TempDir(), t.TempDir()
	openDir(t, dataDir)
	for _, name := range []string{"adcamp-20260101T000000Z.tar", "adcamp-20260102T000000Z.tar", "mine.tar", "adcamp-x.tar"} {
		os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	s := &Schedule{DataDir: dataDir, Dir: dir, Every: 24 * time.Hour, Keep: 2, Log: slog.New(slog.DiscardHandler),
		Done: func(_ *Manifest, err error) { done <- err }}
	stopped := make(chan struct{})
	go func() { s.Run(ctx); close(stopped) }()
	// The newest backup there is from 2026-01-02: more than a day old.
	if err := <-done; err != nil {
		t.Fatalf("scheduled backup: %v", err)
	}
	cancel()
	<-stopped
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 4 || names[0] != "adcamp-20260102T000000Z.tar" || !slices.Contains(names, "mine.tar") || !slices.Contains(names, "adcamp-x.tar") {
		t.Errorf("after a scheduled backup with --backup-keep 2: %v; want the newest two scheduled ones, mine.tar and adcamp-x.tar", names)
	}
}

// TestScheduleFindsItsNewestBackup: a schedule started beside a recent
// scheduled backup takes none yet, and tells Found of that backup's
// manifest (what serve's backup metrics start from after a restart).
func TestScheduleFindsItsNewestBackup(t *testing.T) {
	t.Parallel()
	dataDir, dir := t.TempDir(), t.TempDir()
	openDir(t, dataDir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	taken := time.Now().UTC().Add(-time.Hour)
	name := filepath.Join(dir, "adcamp-"+taken.Format(nameTime)+".tar")
	m, err := Create(ctx, dataDir, name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// An older file that is no backup is passed over for the newest.
	os.WriteFile(filepath.Join(dir, "adcamp-20260101T000000Z.tar"), []byte("x"), 0o600)
	found := make(chan *Manifest, 1)
	s := &Schedule{DataDir: dataDir, Dir: dir, Every: 24 * time.Hour, Keep: 2, Log: slog.New(slog.DiscardHandler),
		Done: func(_ *Manifest, err error) {
			t.Errorf("a backup was taken (%v) although the newest is an hour old", err)
		},
		Found: func(m *Manifest) { found <- m }}
	stopped := make(chan struct{})
	go func() { s.Run(ctx); close(stopped) }()
	got := <-found
	cancel()
	<-stopped
	if got.SHA256 != m.SHA256 || got.Size != m.Size || !got.CreatedAt.Equal(m.CreatedAt) {
		t.Errorf("Found %+v, want the manifest of %s: %+v", got, name, m)
	}
}

// TestBackupNeverBlocksWriters: a backup takes no lock a writer waits
// for. A writer that may not wait at all (busy_timeout 0, so any lock in
// its way fails it with SQLITE_BUSY at once) writes all through a backup
// without one failure.
func TestBackupNeverBlocksWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	storetest.Fill(t, db)
	db.Close() // the writer below is the only one
	w, err := sql.Open("sqlite", dsn(filepath.Join(dir, sqlite.FileName), "_pragma=busy_timeout(0)&_txlock=immediate"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	stop, done := make(chan struct{}), make(chan struct{})
	var writes, refused int
	var firstErr error
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_, err := w.Exec(`INSERT INTO instance_settings (name, value) VALUES (?, x'00')`, fmt.Sprint("load-", i))
			if err != nil {
				refused++
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			writes++
		}
	}()
	for range 3 {
		if _, err := Create(ctx, dir, filepath.Join(t.TempDir(), "b.tar"), Options{}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	<-done
	if refused > 0 || writes == 0 {
		t.Errorf("during 3 backups, %d writes went through and %d were refused (the first: %v); want none refused",
			writes, refused, firstErr)
	}
}

// TestBackupCheckpointsWhatItHeldBack: the pages written while a backup
// read its snapshot are copied back into the database by the backup
// itself, not left in the WAL for the server's next checkpoint.
func TestBackupCheckpointsWhatItHeldBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	storetest.Fill(t, db)
	db.Close()
	path := filepath.Join(dir, sqlite.FileName)
	// A writer that never checkpoints, kept open so that closing does
	// not checkpoint either: its rows are in the WAL only.
	w, err := sql.Open("sqlite", dsn(path, "_pragma=wal_autocheckpoint(0)&_txlock=immediate"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	for i := range 200 {
		if _, err := w.Exec(`INSERT INTO instance_settings (name, value) VALUES (?, x'00')`, fmt.Sprint("wal-", i)); err != nil {
			t.Fatal(err)
		}
	}
	inFile := func() int { // the rows in the database file alone, without its WAL
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		alone := filepath.Join(t.TempDir(), "alone.db")
		if err := os.WriteFile(alone, b, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := sql.Open("sqlite", dsn(alone, "_pragma=query_only(1)"))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var n int
		if err := r.QueryRow(`SELECT count(*) FROM instance_settings WHERE name LIKE 'wal-%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := inFile(); n != 0 {
		t.Fatalf("before the backup the database file holds %d of the WAL's rows; the test needs 0", n)
	}
	if _, err := Create(ctx, dir, filepath.Join(t.TempDir(), "b.tar"), Options{}); err != nil {
		t.Fatal(err)
	}
	if n := inFile(); n != 200 {
		t.Errorf("after the backup the database file holds %d of the 200 rows written to the WAL; want all", n)
	}
}

// TestBackupCopiesBackInSlices: what is written while a backup copies is
// copied back into the database in several checkpoints, each up to the
// snapshot taken at a quarter, a half and three quarters of the copy, not
// in one; the last leaves nothing in the WAL.
func TestBackupCopiesBackInSlices(t *testing.T) {
	// Not parallel: it sets the package's test hooks and copy step.
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	storetest.Fill(t, db)
	db.Close()
	path := filepath.Join(dir, sqlite.FileName)
	w, err := sql.Open("sqlite", dsn(path, "_pragma=wal_autocheckpoint(0)&_txlock=immediate"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	write := func(tag string) {
		t.Helper()
		for i := range 20 {
			if _, err := w.Exec(`INSERT INTO instance_settings (name, value) VALUES (?, randomblob(3000))`, fmt.Sprint(tag, "-", i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A first checkpoint empties the WAL, so that every frame the
	// checkpoints below copy was written during the copy.
	if _, err := w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := w.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	type slice struct{ log, copied int }
	var slices []slice
	step, hold, report := copyStep, onSnapshot, onSlice
	t.Cleanup(func() { copyStep, onSnapshot, onSlice = step, hold, report })
	copyStep = int32(max(pages/16, 1)) // 16 steps or so: a snapshot every four
	snapshots := 0
	onSnapshot = func() { snapshots++; write(fmt.Sprint("snap", snapshots)) }
	onSlice = func(log, copied int) { slices = append(slices, slice{log, copied}) }
	write("before")
	if _, err := Create(ctx, dir, filepath.Join(t.TempDir(), "b.tar"), Options{}); err != nil {
		t.Fatal(err)
	}
	if snapshots != heldSnapshots || len(slices) != heldSnapshots+1 {
		t.Fatalf("the backup took %d snapshots and copied back in %d checkpoints (%v); want %d and %d",
			snapshots, len(slices), slices, heldSnapshots, heldSnapshots+1)
	}
	for i, s := range slices {
		if i > 0 && s.copied <= slices[i-1].copied {
			t.Errorf("slice %d copied back %d frames, the one before %d: want each to go further (%v)", i, s.copied, slices[i-1].copied, slices)
		}
		if last := i == len(slices)-1; last != (s.copied == s.log) {
			t.Errorf("slice %d of %d copied back %d of the WAL's %d frames: want all in the last alone (%v)", i, len(slices), s.copied, s.log, slices)
		}
	}
}
