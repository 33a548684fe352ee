-- +goose Up
-- Locks: accounts in ACCESS EXCLUSIVE mode, briefly: a column with a
--   constant default rewrites no row; the rest are new, empty tables.
-- The marketplace's side (docs/operator.md); SQLite's 00021 says what
-- each table holds. Money in cents, times in Unix microseconds.
CREATE TABLE operator_keys (
    id           TEXT COLLATE "C" PRIMARY KEY,
    name         TEXT NOT NULL,
    secret       BYTEA NOT NULL,
    disabled     BOOLEAN NOT NULL DEFAULT false,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT
);
CREATE INDEX operator_keys_created ON operator_keys (created_at, id);
ALTER TABLE accounts ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
CREATE TABLE delivery_hours (
    keyword_id  TEXT COLLATE "C" NOT NULL,
    hour        BIGINT NOT NULL,
    account_id  TEXT COLLATE "C" NOT NULL,
    environment TEXT NOT NULL,
    campaign_id TEXT COLLATE "C" NOT NULL,
    ad_group_id TEXT COLLATE "C" NOT NULL,
    impressions BIGINT NOT NULL,
    clicks      BIGINT NOT NULL,
    cost        BIGINT NOT NULL,
    orders      BIGINT NOT NULL,
    sales       BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (keyword_id, hour)
);
CREATE INDEX delivery_hours_campaign ON delivery_hours (campaign_id, hour);
CREATE TABLE campaign_hour_spend (
    campaign_id TEXT COLLATE "C" NOT NULL,
    hour        BIGINT NOT NULL,
    cost        BIGINT NOT NULL,
    PRIMARY KEY (campaign_id, hour)
);

-- +goose Down
DROP TABLE campaign_hour_spend;
DROP TABLE delivery_hours;
ALTER TABLE accounts DROP COLUMN time_zone;
DROP TABLE operator_keys;
