-- +goose Up
-- Locks: delivery_day_journal in ACCESS EXCLUSIVE mode for a moment: a
--   storage setting only, no row is rewritten.
-- A journal entry (one a delivery batch: about 300 kB for 10,000 rows)
-- lives a second, until the next fold deletes it. PostgreSQL compressed
-- each with pglz, which gains little on its ids and took 10 ms of a
-- 10,000-row batch (2 ms stored as it is), for nothing.
ALTER TABLE delivery_day_journal ALTER COLUMN deltas SET STORAGE EXTERNAL;

-- +goose Down
ALTER TABLE delivery_day_journal ALTER COLUMN deltas SET STORAGE EXTENDED;
