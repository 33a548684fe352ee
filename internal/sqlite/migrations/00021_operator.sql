-- +goose Up
-- Locks: the database's write lock, briefly: new, empty tables, and a
--   column with a constant default on accounts, which rewrites no row.
-- The marketplace's side (docs/operator.md). operator_keys are the
-- credentials of the marketplace's ad server: instance-level, like users,
-- belonging to no account; secret is sealed like an API key's. Accounts get
-- the IANA time zone their campaigns' days are counted in.
-- delivery_hours holds what the ad server reported per keyword and hour
-- (hour in Unix microseconds, on the hour, UTC; money in cents); a row
-- keeps the keyword's ad group, campaign and account so that its figures
-- outlive the keyword (no foreign keys). campaign_hour_spend is the sum
-- of cost per campaign and hour, kept by the ingest, so that a campaign's
-- spend today is at most 25 rows to add.
-- PostgreSQL's 00021 is the same.
CREATE TABLE operator_keys (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    secret       BLOB NOT NULL,
    disabled     INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER
);
CREATE INDEX operator_keys_created ON operator_keys (created_at, id);
ALTER TABLE accounts ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
CREATE TABLE delivery_hours (
    keyword_id  TEXT NOT NULL,
    hour        INTEGER NOT NULL,
    account_id  TEXT NOT NULL,
    environment TEXT NOT NULL,
    campaign_id TEXT NOT NULL,
    ad_group_id TEXT NOT NULL,
    impressions INTEGER NOT NULL,
    clicks      INTEGER NOT NULL,
    cost        INTEGER NOT NULL,
    orders      INTEGER NOT NULL,
    sales       INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (keyword_id, hour)
) WITHOUT ROWID;
CREATE INDEX delivery_hours_campaign ON delivery_hours (campaign_id, hour);
CREATE TABLE campaign_hour_spend (
    campaign_id TEXT NOT NULL,
    hour        INTEGER NOT NULL,
    cost        INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, hour)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE campaign_hour_spend;
DROP TABLE delivery_hours;
ALTER TABLE accounts DROP COLUMN time_zone;
DROP TABLE operator_keys;
