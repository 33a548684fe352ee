-- +goose Up
-- Locks: nothing in use: it creates new, empty tables and their indexes.
-- Report jobs (docs/report-jobs.md); SQLite's 00034 says what each table
-- holds. A worker of any process claims a job with FOR UPDATE SKIP
-- LOCKED and a lease; the file's chunks are in the database, so that any
-- process serves its download. Times are Unix microseconds.
CREATE TABLE report_jobs (
    id           TEXT COLLATE "C" PRIMARY KEY,
    account_id   TEXT COLLATE "C" NOT NULL,
    environment  TEXT NOT NULL,
    status       TEXT NOT NULL,
    format       TEXT NOT NULL,
    params       TEXT NOT NULL,
    row_count    BIGINT NOT NULL DEFAULT 0,
    size_bytes   BIGINT NOT NULL DEFAULT 0,
    error        TEXT NOT NULL DEFAULT '',
    attempts     INTEGER NOT NULL DEFAULT 0,
    lease_owner  TEXT NOT NULL DEFAULT '',
    lease_until  BIGINT NOT NULL DEFAULT 0,
    created_at   BIGINT NOT NULL,
    started_at   BIGINT,
    finished_at  BIGINT,
    expires_at   BIGINT
);
CREATE INDEX report_jobs_account ON report_jobs (account_id, environment, status);
CREATE INDEX report_jobs_queue ON report_jobs (status, created_at);
CREATE TABLE report_job_chunks (
    job_id TEXT COLLATE "C" NOT NULL REFERENCES report_jobs (id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    data   BYTEA NOT NULL,
    PRIMARY KEY (job_id, seq)
);
ALTER TABLE report_job_chunks ALTER COLUMN data SET STORAGE EXTERNAL; -- gzip already: no second compression

-- +goose Down
DROP TABLE report_job_chunks;
DROP TABLE report_jobs;
