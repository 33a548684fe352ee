package store

import (
	"context"
	"errors"
	"time"

	"github.com/adcamp/adcamp"
)

// ReportJobsTx keeps the report jobs (docs/report-jobs.md): large reports
// written to a gzipped file in the background, the file kept in chunks.
// On PostgreSQL the chunks are rows of the database, written and read in
// the transaction; on SQLite they are in a database of their own beside
// the main one (reports.db), so that writing them commits nothing to the
// main database: PutReportChunk's chunk is kept whatever becomes of its
// transaction, and a job's file may be missing after a restore.
type ReportJobsTx interface {
	// CreateReportJob stores a new job (pending).
	CreateReportJob(ctx context.Context, j *ReportJob) error
	// GetReportJob returns t's job id (NOT_FOUND if none).
	GetReportJob(ctx context.Context, t adcamp.Tenant, id string) (*ReportJob, error)
	// ListReportJobs returns a tenant's jobs, newest first, at most limit.
	ListReportJobs(ctx context.Context, t adcamp.Tenant, limit int) ([]*ReportJob, error)
	// ActiveReportJobs counts t's jobs pending or running.
	ActiveReportJobs(ctx context.Context, t adcamp.Tenant) (int, error)
	// ClaimReportJob takes the oldest job that is pending, or running
	// with a lease passed at now (its worker died), for owner until
	// leaseUntil: it is then running, its attempts counted and its
	// chunks deleted. It returns nil when there is none. On PostgreSQL
	// concurrent claims skip each other's jobs (SKIP LOCKED).
	ClaimReportJob(ctx context.Context, owner string, now, leaseUntil time.Time) (*ReportJob, error)
	// RenewReportJob extends owner's lease of a running job, and reports
	// whether owner still holds it.
	RenewReportJob(ctx context.Context, id, owner string, leaseUntil time.Time) (bool, error)
	// PutReportChunk stores chunk seq of a job's file. It does not
	// check the job's lease: the caller renews it often enough (a
	// worker that lost it finds out at its next renewal), and a file's
	// first size_bytes are its own run's, chunk after chunk.
	PutReportChunk(ctx context.Context, id string, seq int, data []byte) error
	// FinishReportJob ends owner's running job with j's status, counts,
	// error and times, and reports whether owner still held it.
	FinishReportJob(ctx context.Context, j *ReportJob, owner string) (bool, error)
	// ReportChunks calls fn with each chunk of a done job's file, in
	// order. A file that is not there whole (a backup of SQLite holds no
	// files) is ErrReportFileGone, before fn is called. After the file
	// may come chunks of a run that lost its lease: the reader stops at
	// the job's size.
	ReportChunks(ctx context.Context, id string, fn func([]byte) error) error
	// PurgeReportJobs deletes at most limit jobs (with their files)
	// that expired before now, and returns how many.
	PurgeReportJobs(ctx context.Context, now time.Time, limit int) (int64, error)
}

// ReportJob is a report job: its parameters (Params, JSON of the
// service's query) and its state.
type ReportJob struct {
	ID         string
	Tenant     adcamp.Tenant
	Status     string // pending, running, done, failed
	Format     string // jsonl.gz, csv.gz
	Params     []byte
	Rows       int64
	Size       int64
	Error      string
	Attempts   int
	CreatedAt  time.Time
	StartedAt  *time.Time
	FinishedAt *time.Time
	ExpiresAt  *time.Time
}

// ErrReportFileGone is ReportChunks' error for a done job whose file is
// not (wholly) stored: on SQLite, one restored from a backup, which holds
// the main database only.
var ErrReportFileGone = errors.New("the report job's file is not stored")
