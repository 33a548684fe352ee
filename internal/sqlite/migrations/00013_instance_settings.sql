-- +goose Up
-- Locks: the database's write lock, briefly: a new table.
-- Settings of this installation that the service writes once and checks
-- at every start, such as the master key's canary: a value sealed with the
-- master key, which a wrong key cannot open.
CREATE TABLE instance_settings (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;

-- +goose Down
DROP TABLE instance_settings;
