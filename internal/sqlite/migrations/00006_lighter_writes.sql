-- +goose Up
-- Locks: the database's write lock while it copies every request record
--   into a new table (writes wait; reads go on).
-- Every change stores a request record. As a rowid table with a primary
-- key of (scope, token), that is three b-trees to write: the table, the
-- key's index and the expiry index. WITHOUT ROWID, the table is its key's
-- b-tree, and a record costs two.
CREATE TABLE request_records_keyed (
    scope        TEXT NOT NULL,    -- whose: 'sig:<key id>' or 'idem:<account id>:<environment>'
    token        TEXT NOT NULL,    -- the signature, or the Idempotency-Key
    request_hash BLOB NOT NULL,    -- SHA-256 of method, path, query and body
    status       INTEGER NOT NULL,
    header       BLOB NOT NULL,    -- JSON object of the answer's stored headers
    body         BLOB NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    PRIMARY KEY (scope, token)
) WITHOUT ROWID;
INSERT INTO request_records_keyed SELECT scope, token, request_hash, status, header, body, created_at, expires_at
FROM request_records;
DROP TABLE request_records;
ALTER TABLE request_records_keyed RENAME TO request_records;
CREATE INDEX request_records_expiry ON request_records (expires_at);

-- Most campaigns have no channel account; their NULLs need no index
-- entry. Lookups by channel account (the ON DELETE SET NULL of a channel
-- account's deletion) name a value, which the partial index serves.
DROP INDEX campaigns_channel_account;
CREATE INDEX campaigns_channel_account ON campaigns (channel_account_id) WHERE channel_account_id IS NOT NULL;

-- +goose Down
DROP INDEX campaigns_channel_account;
CREATE INDEX campaigns_channel_account ON campaigns (channel_account_id);

CREATE TABLE request_records_rowid (
    scope        TEXT NOT NULL,
    token        TEXT NOT NULL,
    request_hash BLOB NOT NULL,
    status       INTEGER NOT NULL,
    header       BLOB NOT NULL,
    body         BLOB NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    PRIMARY KEY (scope, token)
);
INSERT INTO request_records_rowid SELECT scope, token, request_hash, status, header, body, created_at, expires_at
FROM request_records;
DROP TABLE request_records;
ALTER TABLE request_records_rowid RENAME TO request_records;
CREATE INDEX request_records_expiry ON request_records (expires_at);
