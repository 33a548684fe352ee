-- +goose Up
-- Locks: the database's write lock while the index is built, in one pass
--   over delivery_days (400 days of daily figures: the ingest waits).
-- Performance reports: delivery_days by entity, then day, so that a
-- summary report in its natural order (by entity) sums the days of the
-- entities of its page and stops there, instead of summing every entity
-- of the range before it pages (store.ReportSQL; docs/scaling.md).
-- Without the figures: an update of a day's figures (the ingest's
-- roll-up) leaves the index alone; a page reads its rows through the
-- primary key. PostgreSQL's 00042 is the same.
CREATE INDEX delivery_days_entity ON delivery_days (account_id, environment, level, entity_id, day);

-- +goose Down
DROP INDEX delivery_days_entity;
