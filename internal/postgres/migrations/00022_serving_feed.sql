-- +goose Up
-- Locks: none that matter: a new, empty table.
-- The serving feed's journal; SQLite's 00022 says what a row is. Sequence
-- values commit out of order here, so a row records the id of the
-- transaction that wrote it (pg_current_xact_id()), and a position is a
-- transaction-id horizon: every transaction below it has finished (see
-- internal/postgres/feed.go).
CREATE TABLE serving_feed (
    xid         xid8 NOT NULL DEFAULT pg_current_xact_id(),
    environment TEXT NOT NULL,
    kind        TEXT NOT NULL,
    entity_id   TEXT COLLATE "C" NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX serving_feed_xid ON serving_feed (xid);
CREATE INDEX serving_feed_created ON serving_feed (created_at);

-- +goose Down
DROP TABLE serving_feed;
