-- +goose Up
-- Locks: the database's write lock, briefly: a new, empty table.
-- The last uses of each credential (time, client address, route), written
-- in batches with last_used_at and trimmed to the newest 100 per key. The
-- id orders them. PostgreSQL's 00028 is the same.
CREATE TABLE api_key_trail (
    id      INTEGER PRIMARY KEY,
    key_id  TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    at      INTEGER NOT NULL,
    address TEXT NOT NULL,
    route   TEXT NOT NULL
);
CREATE INDEX api_key_trail_key ON api_key_trail (key_id, id);

-- +goose Down
DROP TABLE api_key_trail;
