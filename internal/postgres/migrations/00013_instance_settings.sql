-- +goose Up
-- Locks: nothing in use: it creates a new table.
-- Settings of this installation that the service writes once and checks
-- at every start, such as the master key's canary: a value sealed with the
-- master key, which a wrong key cannot open.
CREATE TABLE instance_settings (
    name  TEXT COLLATE "C" PRIMARY KEY,
    value BYTEA NOT NULL
);

-- +goose Down
DROP TABLE instance_settings;
