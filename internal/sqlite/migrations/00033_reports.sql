-- +goose Up
-- Locks: the database's write lock while it runs: new, empty tables and
--   triggers, a column without a default on delivery_hours (no row is
--   rewritten), and two indexes on delivery_hours, built in one pass over
--   its rows (at most 31 days of hourly figures).
-- Performance reports (docs/reports.md). delivery_days holds the daily
-- figures in the account's time zone, rolled up from delivery_hours by
-- the ingest in the same transaction, at three levels (1 campaign, 2 ad
-- group, 3 keyword: entity_id is the campaign's, the ad group's or the
-- keyword's id; ad_group_id is '' on a campaign's row). day is the
-- account's date written as the integer YYYYMMDD. An hour's row records
-- the day it was added to (delivery_hours.day), so that a correction
-- takes its old figures off that day even after the account changed its
-- time zone; hours stored before this migration have no day and are
-- rolled up by the background duty of adcamp serve. report_names keeps
-- the last name of each deleted campaign, ad group and keyword (triggers
-- on the deletes, cascades included), so that a report names them.
-- PostgreSQL's 00033 is the same.
ALTER TABLE delivery_hours ADD COLUMN day INTEGER;
CREATE INDEX delivery_hours_undated ON delivery_hours (hour) WHERE day IS NULL;
CREATE INDEX delivery_hours_account ON delivery_hours (account_id, environment, hour);
CREATE TABLE delivery_days (
    account_id  TEXT NOT NULL,
    environment TEXT NOT NULL,
    level       INTEGER NOT NULL,
    day         INTEGER NOT NULL,
    entity_id   TEXT NOT NULL,
    campaign_id TEXT NOT NULL,
    ad_group_id TEXT NOT NULL,
    impressions INTEGER NOT NULL,
    clicks      INTEGER NOT NULL,
    cost        INTEGER NOT NULL,
    orders      INTEGER NOT NULL,
    sales       INTEGER NOT NULL,
    PRIMARY KEY (account_id, environment, level, day, entity_id)
) WITHOUT ROWID;
CREATE TABLE report_names (
    entity_id   TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL,
    environment TEXT NOT NULL,
    name        TEXT NOT NULL,
    match_type  TEXT NOT NULL,
    deleted_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX report_names_deleted ON report_names (deleted_at);
-- +goose StatementBegin
CREATE TRIGGER campaigns_report_names AFTER DELETE ON campaigns BEGIN
    INSERT INTO report_names (entity_id, account_id, environment, name, match_type, deleted_at)
    VALUES (OLD.id, OLD.account_id, OLD.environment, OLD.name, '', CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER))
    ON CONFLICT (entity_id) DO UPDATE SET name = excluded.name, deleted_at = excluded.deleted_at;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER ad_groups_report_names AFTER DELETE ON ad_groups BEGIN
    INSERT INTO report_names (entity_id, account_id, environment, name, match_type, deleted_at)
    VALUES (OLD.id, OLD.account_id, OLD.environment, OLD.name, '', CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER))
    ON CONFLICT (entity_id) DO UPDATE SET name = excluded.name, deleted_at = excluded.deleted_at;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER keywords_report_names AFTER DELETE ON keywords BEGIN
    INSERT INTO report_names (entity_id, account_id, environment, name, match_type, deleted_at)
    VALUES (OLD.id, OLD.account_id, OLD.environment, OLD.text, OLD.match_type, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER))
    ON CONFLICT (entity_id) DO UPDATE SET name = excluded.name, deleted_at = excluded.deleted_at;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER keywords_report_names;
DROP TRIGGER ad_groups_report_names;
DROP TRIGGER campaigns_report_names;
DROP TABLE report_names;
DROP TABLE delivery_days;
DROP INDEX delivery_hours_account;
DROP INDEX delivery_hours_undated;
ALTER TABLE delivery_hours DROP COLUMN day;
