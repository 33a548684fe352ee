-- +goose Up
-- Locks: the database's write lock, briefly: a new, empty table.
-- The serving feed's journal (docs/operator.md): every change that can
-- change what is servable appends, in its own transaction, a row naming
-- what it touched: a keyword (also one deleted), an ad group, a campaign
-- or an account (kind), in an environment. The feed's reader reads the
-- rows after a position and answers each touched keyword's current state.
-- With one writer, AUTOINCREMENT numbers rows in commit order, and never
-- reuses a number once rows are purged: a position is a seq.
-- PostgreSQL's 00022 orders rows by transaction id instead.
CREATE TABLE serving_feed (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    environment TEXT NOT NULL,
    kind        TEXT NOT NULL,
    entity_id   TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX serving_feed_created ON serving_feed (created_at);

-- +goose Down
DROP TABLE serving_feed;
