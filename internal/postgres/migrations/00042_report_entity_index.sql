-- +goose Up
-- Locks: delivery_days in SHARE mode while the index is built (one pass
--   over 400 days of daily figures: the ingest waits).
-- Performance reports: delivery_days by entity, then day; SQLite's 00042
-- says why. Without the figures (SQLite's covers them): PostgreSQL
-- compares the day in the index entry before it reads the row, and an
-- update of a day's figures leaves this index alone (a HOT update).
CREATE INDEX delivery_days_entity ON delivery_days (account_id, environment, level, entity_id, day);

-- +goose Down
DROP INDEX delivery_days_entity;
