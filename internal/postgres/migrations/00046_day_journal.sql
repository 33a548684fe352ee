-- +goose Up
-- Locks: none taken on existing tables (a new, empty table).
-- The journal of days (internal/store/dayjournal.go): a delivery batch
-- appends the changes of its days here, one entry a batch (the deltas
-- encoded in one value), and a fold adds the entries to delivery_days
-- and deletes them. Writing each keyword's day with each batch was the
-- largest part of the ingest's time; a fold of many batches writes each
-- of those rows once.
CREATE TABLE delivery_day_journal (
	seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	deltas bytea NOT NULL
);

-- +goose Down
-- The entries cannot be decoded in SQL: stop every server first (each
-- folds the journal when it stops) so that going back loses nothing.
DROP TABLE delivery_day_journal;
