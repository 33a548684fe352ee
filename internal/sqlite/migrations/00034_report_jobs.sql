-- +goose Up
-- Locks: nothing in use: it creates new, empty tables and their indexes.
-- Report jobs (docs/report-jobs.md): a large report written to a
-- gzipped file in the background. report_jobs holds each job, its
-- parameters (params, JSON) and its state; a worker claims a pending
-- job, or a running one whose lease has passed (its worker died), by
-- setting lease_owner and lease_until. The file is kept in the database
-- as chunks of up to 1 MiB (report_job_chunks), so that the download
-- needs no other storage and is served from a backup or by any process.
-- (No longer so on SQLite: new files are written to reports.db beside
-- the database, which a backup does not hold; this table keeps the files
-- of jobs done before, until they expire. See internal/sqlite/reportfiles.go.)
-- Times are Unix microseconds.
CREATE TABLE report_jobs (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL,
    environment  TEXT NOT NULL,
    status       TEXT NOT NULL,
    format       TEXT NOT NULL,
    params       TEXT NOT NULL,
    row_count    INTEGER NOT NULL DEFAULT 0,
    size_bytes   INTEGER NOT NULL DEFAULT 0,
    error        TEXT NOT NULL DEFAULT '',
    attempts     INTEGER NOT NULL DEFAULT 0,
    lease_owner  TEXT NOT NULL DEFAULT '',
    lease_until  INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL,
    started_at   INTEGER,
    finished_at  INTEGER,
    expires_at   INTEGER
) STRICT;
CREATE INDEX report_jobs_account ON report_jobs (account_id, environment, status);
CREATE INDEX report_jobs_queue ON report_jobs (status, created_at);
CREATE TABLE report_job_chunks (
    job_id TEXT NOT NULL REFERENCES report_jobs (id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    data   BLOB NOT NULL,
    PRIMARY KEY (job_id, seq)
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE report_job_chunks;
DROP TABLE report_jobs;
