package sqlite

import (
	"context"
	"database/sql"
	"net/url"
)

// ReportsFileName is the database of the report jobs' files, beside
// FileName in the data directory.
const ReportsFileName = "reports.db"

// reportFiles keeps the report jobs' files (docs/report-jobs.md) in a
// database of their own, ReportsFileName, as chunks of up to 1 MiB; the
// jobs themselves (report_jobs: status, lease, counts) stay in the main
// database.
//
// Why not in the main database, as on PostgreSQL (and here before,
// report_job_chunks): every commit there changes its WAL, and each of the
// API's reader connections, at its first read after a commit by another
// connection, drops its page cache and unmaps its memory map of the file,
// then maps and faults it in again. A job's chunks were a commit every
// few tens of milliseconds, and the API's p99 beside a job was 4.4 times
// its p99 alone; with the job's writes left out, no different
// (bench/notes/reports.md). Commits here touch neither the main
// database's WAL nor its readers. The job's lease is renewed in the main
// database on time (a third of the lease), not with each chunk.
//
// Each chunk is committed here when its insert returns, so a job is
// marked done in the main database only once its whole file is
// committed. Both databases sync as the main one does (synchronous=NORMAL:
// at checkpoints): a chunk's insert runs while the job holds the main
// database's writer (store.Tx), which should not wait for a sync with
// each. A power cut may take the last commits of either; a done job
// whose file came back short is refused, as is one whose file a
// restore does not have: a backup copies the main database only. Either
// is store.ErrReportFileGone, which the API answers NOT_FOUND.
type reportFiles struct {
	db *sql.DB
}

// reportFilesSchema is the files database's schema, created if missing.
// auto_vacuum must precede the first table; with it, the pages of purged
// files are given back to the file system (vacuum).
const reportFilesSchema = `PRAGMA auto_vacuum = INCREMENTAL;
CREATE TABLE IF NOT EXISTS report_file_chunks (
    job_id TEXT NOT NULL,
    seq    INTEGER NOT NULL,
    data   BLOB NOT NULL,
    PRIMARY KEY (job_id, seq)
) STRICT;`

// openReportFiles opens (creating if needed) the files database at path.
func openReportFiles(ctx context.Context, path string) (*reportFiles, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	if _, err := db.ExecContext(ctx, reportFilesSchema); err != nil {
		db.Close()
		return nil, err
	}
	return &reportFiles{db: db}, nil
}

func (f *reportFiles) close() error { return f.db.Close() }

// put stores chunk seq of job id's file, committed on return.
func (f *reportFiles) put(ctx context.Context, id string, seq int, data []byte) error {
	_, err := f.db.ExecContext(ctx, `INSERT INTO report_file_chunks (job_id, seq, data) VALUES ($1, $2, $3)`, id, seq, data)
	return err
}

// remove deletes job id's file.
func (f *reportFiles) remove(ctx context.Context, id string) error {
	_, err := f.db.ExecContext(ctx, `DELETE FROM report_file_chunks WHERE job_id = $1`, id)
	return err
}

// size returns how many chunks job id's file has here, and their bytes
// (length() of a blob reads its size, not its pages).
func (f *reportFiles) size(ctx context.Context, id string) (n int, bytes int64, err error) {
	err = f.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(length(data)), 0) FROM report_file_chunks WHERE job_id = $1`,
		id).Scan(&n, &bytes)
	return n, bytes, err
}

// each calls fn with each chunk of job id's file, in order.
func (f *reportFiles) each(ctx context.Context, id string, fn func([]byte) error) error {
	rows, err := f.db.QueryContext(ctx, `SELECT data FROM report_file_chunks WHERE job_id = $1 ORDER BY seq`, id)
	if err != nil {
		return err
	}
	return eachChunk(rows, fn)
}

// jobs returns the jobs that have chunks here.
func (f *reportFiles) jobs(ctx context.Context) ([]string, error) {
	rows, err := f.db.QueryContext(ctx, `SELECT DISTINCT job_id FROM report_file_chunks`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// vacuum gives the pages of deleted files back to the file system.
func (f *reportFiles) vacuum(ctx context.Context) error {
	_, err := f.db.ExecContext(ctx, `PRAGMA incremental_vacuum`)
	return err
}

// eachChunk calls fn with the blob of each row, and closes rows.
func eachChunk(rows *sql.Rows, fn func([]byte) error) error {
	defer rows.Close()
	var b []byte
	for rows.Next() {
		if err := rows.Scan(&b); err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return rows.Err()
}
