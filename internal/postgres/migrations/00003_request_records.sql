-- +goose Up
-- Locks: nothing in use: it creates a new table.
-- The stored answers of mutating requests, so that a replayed signature or
-- a retried Idempotency-Key is answered without executing it again.
CREATE TABLE request_records (
    scope        TEXT COLLATE "C" NOT NULL, -- 'sig:<key id>' or 'idem:<account id>:<environment>'
    token        TEXT COLLATE "C" NOT NULL, -- the signature, or the Idempotency-Key
    request_hash BYTEA NOT NULL,            -- SHA-256 of method, path, query and body
    status       INTEGER NOT NULL,
    header       BYTEA NOT NULL,            -- JSON object of the answer's stored headers
    body         BYTEA NOT NULL,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    PRIMARY KEY (scope, token)
);
CREATE INDEX request_records_expiry ON request_records (expires_at);

-- +goose Down
DROP TABLE request_records;
