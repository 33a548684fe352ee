package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// TestReportFilesApart: a report job's chunks are written to reports.db
// and commit nothing to the main database (its data_version, seen from
// another connection, and its WAL do not move), while a renewal of the
// lease does; the file reads back whole; a job done by an adcamp before
// reports.db is read from the main database's report_job_chunks; a file
// in neither place, or short, is store.ErrReportFileGone; a failed job's
// file and the purged jobs' go, with the chunks of jobs that are gone.
func TestReportFilesApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.stopCheckpoints() // a checkpoint would move the WAL on its own
	now := time.Now().UTC().Truncate(time.Microsecond)
	tn := adcamp.Tenant{AccountID: "acc_files", Environment: adcamp.Production}
	write := func(fn func(store.Tx) error) {
		t.Helper()
		if err := db.Write(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	claim := func(id string) *store.ReportJob {
		t.Helper()
		var j *store.ReportJob
		write(func(tx store.Tx) error {
			err := tx.CreateReportJob(ctx, &store.ReportJob{ID: id, Tenant: tn, Status: "pending", Format: "csv.gz",
				Params: []byte("{}"), CreatedAt: now})
			if err != nil {
				return err
			}
			j, err = tx.ClaimReportJob(ctx, "w", now, now.Add(time.Minute))
			return err
		})
		if j == nil || j.ID != id {
			t.Fatalf("ClaimReportJob = %+v, want %s", j, id)
		}
		return j
	}
	finish := func(j *store.ReportJob, status string, size int64) {
		t.Helper()
		expires := now.Add(time.Hour)
		j.Status, j.Size, j.FinishedAt, j.ExpiresAt = status, size, &now, &expires
		write(func(tx store.Tx) error {
			ok, err := tx.FinishReportJob(ctx, j, "w")
			if err == nil && !ok {
				err = errors.New("not the owner")
			}
			return err
		})
	}
	read := func(id string) ([]byte, error) {
		t.Helper()
		var b []byte
		err := db.Read(ctx, func(tx store.Tx) error {
			return tx.ReportChunks(ctx, id, func(c []byte) error { b = append(b, c...); return nil })
		})
		return b, err
	}

	// Another connection to the main database: its data_version moves
	// when any other connection commits there.
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	probe, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	version := func() (v int64) {
		t.Helper()
		if err := probe.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	walSize := func() int64 {
		t.Helper()
		fi, err := os.Stat(filepath.Join(dir, FileName+"-wal"))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}

	j := claim("rpj_new")
	v0, w0 := version(), walSize()
	chunks := [][]byte{bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<20), []byte("end")}
	for i, c := range chunks {
		write(func(tx store.Tx) error { return tx.PutReportChunk(ctx, j.ID, i, c) })
	}
	if v, w := version(), walSize(); v != v0 || w != w0 {
		t.Errorf("after PutReportChunk: main data_version %d → %d, WAL %d → %d bytes; want both unchanged", v0, v, w0, w)
	}
	write(func(tx store.Tx) error {
		_, err := tx.RenewReportJob(ctx, j.ID, "w", now.Add(2*time.Minute))
		return err
	})
	if v := version(); v == v0 {
		t.Errorf("after RenewReportJob: main data_version still %d, want it moved (the probe sees commits)", v)
	}
	want := bytes.Join(chunks, nil)
	finish(j, "done", int64(len(want)))
	if got, err := read(j.ID); err != nil || !bytes.Equal(got, want) {
		t.Errorf("ReportChunks(done) = %d bytes, %v; want the %d written", len(got), err, len(want))
	}

	// A job done before reports.db: its chunks in the main database.
	old := claim("rpj_old")
	if _, err := raw.ExecContext(ctx, `INSERT INTO report_job_chunks (job_id, seq, data) VALUES ('rpj_old', 0, CAST('old ' AS BLOB)), ('rpj_old', 1, CAST('file' AS BLOB))`); err != nil {
		t.Fatal(err)
	}
	finish(old, "done", 8)
	if got, err := read(old.ID); err != nil || string(got) != "old file" {
		t.Errorf("ReportChunks(done before reports.db) = %q, %v; want %q", got, err, "old file")
	}

	// Done, but its file is not here (a restored backup), or short.
	gone := claim("rpj_gone")
	finish(gone, "done", 100)
	short := claim("rpj_short")
	write(func(tx store.Tx) error { return tx.PutReportChunk(ctx, short.ID, 0, []byte("half")) })
	finish(short, "done", 8)
	for _, id := range []string{gone.ID, short.ID} {
		called := false
		err := db.Read(ctx, func(tx store.Tx) error {
			return tx.ReportChunks(ctx, id, func([]byte) error { called = true; return nil })
		})
		if !errors.Is(err, store.ErrReportFileGone) || called {
			t.Errorf("ReportChunks(%s) = %v, fn called %v; want ErrReportFileGone before any chunk", id, err, called)
		}
	}

	// A failed job's file goes at once; the expired jobs' at the purge,
	// with those of jobs gone.
	failed := claim("rpj_failed")
	write(func(tx store.Tx) error { return tx.PutReportChunk(ctx, failed.ID, 0, []byte("part")) })
	finish(failed, "failed", 0)
	if err := db.files.put(ctx, "rpj_orphan", 0, []byte("orphan")); err != nil {
		t.Fatal(err)
	}
	stored := func() []string {
		t.Helper()
		ids, err := db.files.jobs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	if got := stored(); len(got) != 3 { // rpj_new, rpj_orphan, rpj_short
		t.Errorf("files after a failed job = %v, want rpj_new, rpj_orphan and rpj_short", got)
	}
	var n int64
	write(func(tx store.Tx) error {
		var err error
		n, err = tx.PurgeReportJobs(ctx, now.Add(2*time.Hour), 100)
		return err
	})
	if got := stored(); n != 5 || len(got) != 0 {
		t.Errorf("PurgeReportJobs = %d, files left %v; want 5 jobs purged, no file", n, got)
	}
	var left int
	if err := raw.QueryRowContext(ctx, `SELECT count(*) FROM report_job_chunks`).Scan(&left); err != nil || left != 0 {
		t.Errorf("report_job_chunks after the purge = %d rows, %v; want none", left, err)
	}
}
