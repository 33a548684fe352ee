package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Report jobs (store.ReportJobsTx).

const reportJobColumns = `id, account_id, environment, status, format, params, row_count, size_bytes, error, attempts,
	created_at, started_at, finished_at, expires_at`

type scanner interface{ Scan(dest ...any) error }

func scanReportJob(s scanner) (*store.ReportJob, error) {
	var j store.ReportJob
	var env, params string
	var created int64
	var started, finished, expires sql.NullInt64
	if err := s.Scan(&j.ID, &j.Tenant.AccountID, &env, &j.Status, &j.Format, &params, &j.Rows, &j.Size, &j.Error, &j.Attempts,
		&created, &started, &finished, &expires); err != nil {
		return nil, err
	}
	j.Tenant.Environment = adcamp.Environment(env)
	j.Params = []byte(params)
	j.CreatedAt = fromMicros(created)
	opt := func(v sql.NullInt64) *time.Time {
		if !v.Valid {
			return nil
		}
		t := fromMicros(v.Int64)
		return &t
	}
	j.StartedAt, j.FinishedAt, j.ExpiresAt = opt(started), opt(finished), opt(expires)
	return &j, nil
}

func optMicros(t *time.Time) any {
	if t == nil {
		return nil
	}
	return micros(*t)
}

func (t *tx) CreateReportJob(ctx context.Context, j *store.ReportJob) error {
	_, err := t.exec(ctx, `INSERT INTO report_jobs (id, account_id, environment, status, format, params, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, j.ID, j.Tenant.AccountID, string(j.Tenant.Environment), j.Status, j.Format,
		string(j.Params), micros(j.CreatedAt))
	return err
}

func (t *tx) GetReportJob(ctx context.Context, tn adcamp.Tenant, id string) (*store.ReportJob, error) {
	j, err := scanReportJob(t.queryRow(ctx, `SELECT `+reportJobColumns+` FROM report_jobs
		WHERE id = $1 AND account_id = $2 AND environment = $3`, id, tn.AccountID, string(tn.Environment)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, adcamp.NotFound("report job", id)
	}
	return j, err
}

func (t *tx) ListReportJobs(ctx context.Context, tn adcamp.Tenant, limit int) ([]*store.ReportJob, error) {
	rows, err := t.query(ctx, `SELECT `+reportJobColumns+` FROM report_jobs
		WHERE account_id = $1 AND environment = $2 ORDER BY id DESC LIMIT $3`, tn.AccountID, string(tn.Environment), limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r rowScanner) (*store.ReportJob, error) { return scanReportJob(r) })
}

func (t *tx) ActiveReportJobs(ctx context.Context, tn adcamp.Tenant) (int, error) {
	var n int
	err := t.queryRow(ctx, `SELECT count(*) FROM report_jobs WHERE account_id = $1 AND environment = $2
		AND status IN ('pending', 'running')`, tn.AccountID, string(tn.Environment)).Scan(&n)
	return n, err
}

func (t *tx) ClaimReportJob(ctx context.Context, owner string, now, leaseUntil time.Time) (*store.ReportJob, error) {
	j, err := scanReportJob(t.queryRow(ctx, `UPDATE report_jobs
		SET status = 'running', lease_owner = $1, lease_until = $2, attempts = attempts + 1, started_at = $3
		WHERE id = (SELECT id FROM report_jobs WHERE status = 'pending' OR (status = 'running' AND lease_until < $3)
			ORDER BY created_at, id LIMIT 1)
		RETURNING `+reportJobColumns, owner, micros(leaseUntil), micros(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// What an earlier run wrote: in the files' database, or in the main
	// one by an adcamp before it had one.
	if _, err := t.exec(ctx, `DELETE FROM report_job_chunks WHERE job_id = $1`, j.ID); err != nil {
		return nil, err
	}
	return j, t.stmts.files.remove(ctx, j.ID)
}

func (t *tx) RenewReportJob(ctx context.Context, id, owner string, leaseUntil time.Time) (bool, error) {
	res, err := t.exec(ctx, `UPDATE report_jobs SET lease_until = $1 WHERE id = $2 AND lease_owner = $3 AND status = 'running'`,
		micros(leaseUntil), id, owner)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// PutReportChunk writes the chunk into the files' database (reportFiles),
// committed there when it returns, whatever becomes of t: it changes
// nothing in the main database.
func (t *tx) PutReportChunk(ctx context.Context, id string, seq int, data []byte) error {
	return t.stmts.files.put(ctx, id, seq, data)
}

func (t *tx) FinishReportJob(ctx context.Context, j *store.ReportJob, owner string) (bool, error) {
	res, err := t.exec(ctx, `UPDATE report_jobs SET status = $1, row_count = $2, size_bytes = $3, error = $4,
		finished_at = $5, expires_at = $6, lease_owner = '', lease_until = 0
		WHERE id = $7 AND lease_owner = $8 AND status = 'running'`,
		j.Status, j.Rows, j.Size, j.Error, optMicros(j.FinishedAt), optMicros(j.ExpiresAt), j.ID, owner)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil || n != 1 {
		return false, err
	}
	if j.Status != "done" {
		// A failed job's file is never read: what it wrote goes now.
		return true, t.stmts.files.remove(ctx, j.ID)
	}
	return true, nil
}

// ReportChunks reads the file from the files' database; a job done by
// an adcamp before it had one has its chunks in the main database's
// report_job_chunks, read there until the job expires. A file in neither,
// or shorter than the job's size_bytes (a restored backup holds the main
// database only), is store.ErrReportFileGone, before fn is called.
func (t *tx) ReportChunks(ctx context.Context, id string, fn func([]byte) error) error {
	if err := t.consistent(ctx); err != nil {
		return err
	}
	var size int64
	err := t.queryRow(ctx, `SELECT size_bytes FROM report_jobs WHERE id = $1`, id).Scan(&size)
	if errors.Is(err, sql.ErrNoRows) {
		return adcamp.NotFound("report job", id)
	}
	if err != nil {
		return err
	}
	files := t.stmts.files
	n, bytes, err := files.size(ctx, id)
	if err != nil {
		return err
	}
	if n > 0 {
		if bytes < size {
			return store.ErrReportFileGone
		}
		return files.each(ctx, id, fn)
	}
	if err := t.queryRow(ctx, `SELECT count(*), coalesce(sum(length(data)), 0) FROM report_job_chunks WHERE job_id = $1`,
		id).Scan(&n, &bytes); err != nil {
		return err
	}
	if n == 0 || bytes < size {
		return store.ErrReportFileGone
	}
	rows, err := t.query(ctx, `SELECT data FROM report_job_chunks WHERE job_id = $1 ORDER BY seq`, id)
	if err != nil {
		return err
	}
	return eachChunk(rows, fn)
}

func (t *tx) PurgeReportJobs(ctx context.Context, now time.Time, limit int) (int64, error) {
	rows, err := t.query(ctx, `SELECT id FROM report_jobs WHERE expires_at < $1 LIMIT $2`, micros(now), limit)
	if err != nil {
		return 0, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, id := range ids {
		if _, err := t.exec(ctx, `DELETE FROM report_job_chunks WHERE job_id = $1`, id); err != nil {
			return 0, err
		}
		if _, err := t.exec(ctx, `DELETE FROM report_jobs WHERE id = $1`, id); err != nil {
			return 0, err
		}
	}
	return int64(len(ids)), t.purgeReportFiles(ctx)
}

// purgeReportFiles deletes the files in the files' database whose job is
// gone: purged just now in t (deleted before t commits, as they would be
// after), or by a run that stopped between the two databases, or absent
// from a restored backup. Chunks are written only for a job claimed, so
// none belongs to a job yet to be committed.
func (t *tx) purgeReportFiles(ctx context.Context) error {
	files := t.stmts.files
	ids, err := files.jobs(ctx)
	if err != nil {
		return err
	}
	removed := false
	for _, id := range ids {
		var one int
		err := t.queryRow(ctx, `SELECT 1 FROM report_jobs WHERE id = $1`, id).Scan(&one)
		if err == nil {
			continue
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err := files.remove(ctx, id); err != nil {
			return err
		}
		removed = true
	}
	if removed {
		return files.vacuum(ctx)
	}
	return nil
}
