-- +goose Up
-- Locks: nothing in use: it creates new tables.
CREATE TABLE ad_groups (
    id          TEXT COLLATE "C" PRIMARY KEY,
    campaign_id TEXT COLLATE "C" NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    account_id  TEXT COLLATE "C" NOT NULL,
    environment TEXT NOT NULL,
    name        TEXT NOT NULL,
    default_bid BIGINT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('active', 'paused')),
    version     BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX ad_groups_campaign ON ad_groups (campaign_id, created_at DESC, id DESC);
CREATE INDEX ad_groups_campaign_status ON ad_groups (campaign_id, status, created_at DESC, id DESC);

CREATE TABLE keywords (
    id          TEXT COLLATE "C" PRIMARY KEY,
    ad_group_id TEXT COLLATE "C" NOT NULL REFERENCES ad_groups (id) ON DELETE CASCADE,
    account_id  TEXT COLLATE "C" NOT NULL,
    environment TEXT NOT NULL,
    text        TEXT NOT NULL,
    text_key    TEXT NOT NULL, -- case-folded, NFC-normalised text: the uniqueness key
    match_type  TEXT NOT NULL CHECK (match_type IN ('exact', 'phrase', 'broad')),
    bid         BIGINT,        -- NULL: the ad group's default bid
    status      TEXT NOT NULL CHECK (status IN ('active', 'paused')),
    version     BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
-- The name is what the store recognises a duplicate keyword by (with SQLSTATE 23505).
CREATE UNIQUE INDEX keywords_unique_text ON keywords (ad_group_id, match_type, text_key);
CREATE INDEX keywords_ad_group ON keywords (ad_group_id, created_at DESC, id DESC);

-- +goose Down
DROP TABLE keywords;
DROP TABLE ad_groups;
