-- +goose Up
-- Locks: the database's write lock while it copies the live request
--   records (ten minutes of changes, and a day of Idempotency-Keys) into a
--   new table (writes wait; reads go on).
-- A signature's record is named by its timestamp, then a hash: in order
-- from second to second, but at random within a second. WITHOUT ROWID
-- (00006), each record, answer and all (about half a kilobyte), went in at
-- a random place among the second's, and so did its expiry index's entry
-- (the same expiry for the whole second, then the key): each change
-- dirtied a page of each, and split some, which was a third of the pages
-- a commit wrote in the mixed sitting (bench/notes/39-sqlite.md). As a
-- rowid table the records are appended in the order they come; only the
-- key's index (a tenth of a record's size) takes them at random within
-- the second, and the expiry index, ordered by expiry then rowid, is
-- appended too.
CREATE TABLE request_records_appended (
    scope        TEXT NOT NULL,    -- whose: 'sig:<key id>' or 'idem:<account id>:<environment>'
    token        TEXT NOT NULL,    -- '<timestamp>/<SHA-256 of timestamp/signature>', or the Idempotency-Key
    request_hash BLOB NOT NULL,    -- SHA-256 of method, path, query and body
    status       INTEGER NOT NULL,
    header       BLOB NOT NULL,    -- JSON object of the answer's stored headers
    body         BLOB NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    PRIMARY KEY (scope, token)
);
INSERT INTO request_records_appended SELECT scope, token, request_hash, status, header, body, created_at, expires_at
FROM request_records ORDER BY created_at;
DROP TABLE request_records;
ALTER TABLE request_records_appended RENAME TO request_records;
CREATE INDEX request_records_expiry ON request_records (expires_at);

-- +goose Down
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
