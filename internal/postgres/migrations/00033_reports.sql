-- +goose Up
-- Locks: delivery_hours in SHARE mode while its two new indexes are built
--   (one pass over at most 31 days of hourly figures: deliveries wait),
--   and briefly in ACCESS EXCLUSIVE mode for a column without a default
--   (no row is rewritten); campaigns, ad_groups and keywords briefly in
--   SHARE ROW EXCLUSIVE mode for their new triggers; the rest are new,
--   empty tables.
-- Performance reports (docs/reports.md); SQLite's 00033 says what each
-- table holds. Money in cents, times in Unix microseconds, days as the
-- integer YYYYMMDD.
ALTER TABLE delivery_hours ADD COLUMN day INTEGER;
CREATE INDEX delivery_hours_undated ON delivery_hours (hour) WHERE day IS NULL;
CREATE INDEX delivery_hours_account ON delivery_hours (account_id, environment, hour);
CREATE TABLE delivery_days (
    account_id  TEXT COLLATE "C" NOT NULL,
    environment TEXT NOT NULL,
    level       SMALLINT NOT NULL,
    day         INTEGER NOT NULL,
    entity_id   TEXT COLLATE "C" NOT NULL,
    campaign_id TEXT COLLATE "C" NOT NULL,
    ad_group_id TEXT COLLATE "C" NOT NULL,
    impressions BIGINT NOT NULL,
    clicks      BIGINT NOT NULL,
    cost        BIGINT NOT NULL,
    orders      BIGINT NOT NULL,
    sales       BIGINT NOT NULL,
    PRIMARY KEY (account_id, environment, level, day, entity_id)
);
CREATE TABLE report_names (
    entity_id   TEXT COLLATE "C" PRIMARY KEY,
    account_id  TEXT COLLATE "C" NOT NULL,
    environment TEXT NOT NULL,
    name        TEXT NOT NULL,
    match_type  TEXT NOT NULL,
    deleted_at  BIGINT NOT NULL
);
CREATE INDEX report_names_deleted ON report_names (deleted_at);
-- +goose StatementBegin
CREATE FUNCTION report_names_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'keywords' THEN
        INSERT INTO report_names (entity_id, account_id, environment, name, match_type, deleted_at)
        SELECT id, account_id, environment, text, match_type, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint FROM gone
        ON CONFLICT (entity_id) DO UPDATE SET name = excluded.name, deleted_at = excluded.deleted_at;
    ELSE
        INSERT INTO report_names (entity_id, account_id, environment, name, match_type, deleted_at)
        SELECT id, account_id, environment, name, '', (extract(epoch FROM clock_timestamp()) * 1000000)::bigint FROM gone
        ON CONFLICT (entity_id) DO UPDATE SET name = excluded.name, deleted_at = excluded.deleted_at;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER campaigns_report_names AFTER DELETE ON campaigns
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION report_names_deleted();
CREATE TRIGGER ad_groups_report_names AFTER DELETE ON ad_groups
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION report_names_deleted();
CREATE TRIGGER keywords_report_names AFTER DELETE ON keywords
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION report_names_deleted();

-- +goose Down
DROP TRIGGER keywords_report_names ON keywords;
DROP TRIGGER ad_groups_report_names ON ad_groups;
DROP TRIGGER campaigns_report_names ON campaigns;
DROP FUNCTION report_names_deleted();
DROP TABLE report_names;
DROP TABLE delivery_days;
DROP INDEX delivery_hours_account;
DROP INDEX delivery_hours_undated;
ALTER TABLE delivery_hours DROP COLUMN day;
