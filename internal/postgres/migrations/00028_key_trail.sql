-- +goose Up
-- Locks: none that matter: a new, empty table.
-- The last uses of each credential, as in SQLite's 00028: written in
-- batches with last_used_at, trimmed to the newest 100 per key.
CREATE TABLE api_key_trail (
    id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key_id  TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    at      BIGINT NOT NULL,
    address TEXT NOT NULL,
    route   TEXT NOT NULL
);
CREATE INDEX api_key_trail_key ON api_key_trail (key_id, id);

-- +goose Down
DROP TABLE api_key_trail;
