package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Report jobs (store.ReportJobsTx).

const reportJobColumns = `id, account_id, environment, status, format, params, row_count, size_bytes, error, attempts,
	created_at, started_at, finished_at, expires_at`

type jobScanner interface{ Scan(dest ...any) error }

func scanReportJob(s jobScanner) (*store.ReportJob, error) {
	var j store.ReportJob
	var env, params string
	var created int64
	var started, finished, expires *int64
	if err := s.Scan(&j.ID, &j.Tenant.AccountID, &env, &j.Status, &j.Format, &params, &j.Rows, &j.Size, &j.Error, &j.Attempts,
		&created, &started, &finished, &expires); err != nil {
		return nil, err
	}
	j.Tenant.Environment = adcamp.Environment(env)
	j.Params = []byte(params)
	j.CreatedAt = fromMicros(created)
	opt := func(v *int64) *time.Time {
		if v == nil {
			return nil
		}
		t := fromMicros(*v)
		return &t
	}
	j.StartedAt, j.FinishedAt, j.ExpiresAt = opt(started), opt(finished), opt(expires)
	return &j, nil
}

func optMicrosPG(t *time.Time) any {
	if t == nil {
		return nil
	}
	return micros(*t)
}

func (t *tx) CreateReportJob(ctx context.Context, j *store.ReportJob) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO report_jobs (id, account_id, environment, status, format, params, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, j.ID, j.Tenant.AccountID, string(j.Tenant.Environment), j.Status, j.Format,
		string(j.Params), micros(j.CreatedAt))
	return err
}

func (t *tx) GetReportJob(ctx context.Context, tn adcamp.Tenant, id string) (*store.ReportJob, error) {
	j, err := scanReportJob(t.tx.QueryRow(ctx, `SELECT `+reportJobColumns+` FROM report_jobs
		WHERE id = $1 AND account_id = $2 AND environment = $3`, id, tn.AccountID, string(tn.Environment)))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, adcamp.NotFound("report job", id)
	}
	return j, err
}

func (t *tx) ListReportJobs(ctx context.Context, tn adcamp.Tenant, limit int) ([]*store.ReportJob, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+reportJobColumns+` FROM report_jobs
		WHERE account_id = $1 AND environment = $2 ORDER BY id DESC LIMIT $3`, tn.AccountID, string(tn.Environment), limit)
	if err != nil {
		return nil, err
	}
	return collectRows(rows, func(r row) (*store.ReportJob, error) { return scanReportJob(r) })
}

func (t *tx) ActiveReportJobs(ctx context.Context, tn adcamp.Tenant) (int, error) {
	var n int
	err := t.tx.QueryRow(ctx, `SELECT count(*) FROM report_jobs WHERE account_id = $1 AND environment = $2
		AND status IN ('pending', 'running')`, tn.AccountID, string(tn.Environment)).Scan(&n)
	return n, err
}

func (t *tx) ClaimReportJob(ctx context.Context, owner string, now, leaseUntil time.Time) (*store.ReportJob, error) {
	j, err := scanReportJob(t.tx.QueryRow(ctx, `UPDATE report_jobs
		SET status = 'running', lease_owner = $1, lease_until = $2, attempts = attempts + 1, started_at = $3
		WHERE id = (SELECT id FROM report_jobs WHERE status = 'pending' OR (status = 'running' AND lease_until < $3)
			ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING `+reportJobColumns, owner, micros(leaseUntil), micros(now)))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	_, err = t.tx.Exec(ctx, `DELETE FROM report_job_chunks WHERE job_id = $1`, j.ID)
	return j, err
}

func (t *tx) RenewReportJob(ctx context.Context, id, owner string, leaseUntil time.Time) (bool, error) {
	res, err := t.tx.Exec(ctx, `UPDATE report_jobs SET lease_until = $1 WHERE id = $2 AND lease_owner = $3 AND status = 'running'`,
		micros(leaseUntil), id, owner)
	if err != nil {
		return false, err
	}
	return res.RowsAffected() == 1, nil
}

func (t *tx) PutReportChunk(ctx context.Context, id string, seq int, data []byte) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO report_job_chunks (job_id, seq, data) VALUES ($1, $2, $3)`, id, seq, data)
	return err
}

func (t *tx) FinishReportJob(ctx context.Context, j *store.ReportJob, owner string) (bool, error) {
	res, err := t.tx.Exec(ctx, `UPDATE report_jobs SET status = $1, row_count = $2, size_bytes = $3, error = $4,
		finished_at = $5, expires_at = $6, lease_owner = '', lease_until = 0
		WHERE id = $7 AND lease_owner = $8 AND status = 'running'`,
		j.Status, j.Rows, j.Size, j.Error, optMicrosPG(j.FinishedAt), optMicrosPG(j.ExpiresAt), j.ID, owner)
	if err != nil {
		return false, err
	}
	return res.RowsAffected() == 1, nil
}

func (t *tx) ReportChunks(ctx context.Context, id string, fn func([]byte) error) error {
	rows, err := t.tx.Query(ctx, `SELECT data FROM report_job_chunks WHERE job_id = $1 ORDER BY seq`, id)
	if err != nil {
		return err
	}
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

func (t *tx) PurgeReportJobs(ctx context.Context, now time.Time, limit int) (int64, error) {
	rows, err := t.tx.Query(ctx, `SELECT id FROM report_jobs WHERE expires_at < $1 LIMIT $2`, micros(now), limit)
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
		if _, err := t.tx.Exec(ctx, `DELETE FROM report_job_chunks WHERE job_id = $1`, id); err != nil {
			return 0, err
		}
		if _, err := t.tx.Exec(ctx, `DELETE FROM report_jobs WHERE id = $1`, id); err != nil {
			return 0, err
		}
	}
	return int64(len(ids)), nil
}
