-- +goose Up
-- Locks: the database's write lock while the index is built, in one pass
--   over delivery_days (400 days of daily figures: the ingest waits).
-- Performance reports: delivery_days by entity, then day, so that a
-- summary report in its natural order (by entity) sums the days of the
-- entities of its page and stops there, instead of summing every entity
-- of the range before it pages (store.ReportSQL; docs/scaling.md). It
-- covers the figures: a WITHOUT ROWID table's secondary index finds its
-- rows through the primary key, one seek per entry read, before the day
-- is compared (a page of 101 keywords read 40,400 rows to sum 9,090).
-- The cost is on the roll-up's writes: a day's update rewrites its
-- entry here too (bench/notes/reports.md). PostgreSQL's 00042 is the
-- same index without the figures.
CREATE INDEX delivery_days_entity ON delivery_days (account_id, environment, level, entity_id, day,
    campaign_id, ad_group_id, impressions, clicks, cost, orders, sales);

-- +goose Down
DROP INDEX delivery_days_entity;
