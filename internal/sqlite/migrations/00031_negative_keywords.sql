-- +goose Up
-- Locks: the database's write lock, briefly: new, empty tables and their indexes.
-- Negative keywords and the shared lists that hold them (issue 35).
-- A negative belongs to one parent: an ad group (ad_group_id, with
-- campaign_id its campaign), a campaign (campaign_id only) or a list
-- (list_id only); parent_id repeats that parent's id so that one unique
-- index (parent, match type, text key) holds the rule "unique per parent
-- and match type", and one index serves every parent's page. The foreign
-- keys delete a parent's negatives with it. PostgreSQL's 00031 is the same.
CREATE TABLE negative_keyword_lists (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL,
    environment TEXT NOT NULL,
    name        TEXT NOT NULL,
    version     INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX negative_keyword_lists_tenant ON negative_keyword_lists (account_id, environment, created_at DESC, id DESC);

CREATE TABLE negative_keywords (
    id          TEXT PRIMARY KEY,
    parent_id   TEXT NOT NULL,
    campaign_id TEXT REFERENCES campaigns (id) ON DELETE CASCADE,
    ad_group_id TEXT REFERENCES ad_groups (id) ON DELETE CASCADE,
    list_id     TEXT REFERENCES negative_keyword_lists (id) ON DELETE CASCADE,
    account_id  TEXT NOT NULL,
    environment TEXT NOT NULL,
    text        TEXT NOT NULL,
    text_key    TEXT NOT NULL, -- adcamp.KeywordKey(text): the uniqueness key
    match_type  TEXT NOT NULL CHECK (match_type IN ('exact', 'phrase')),
    status      TEXT NOT NULL CHECK (status IN ('active', 'paused')),
    version     INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    CHECK (parent_id = coalesce(list_id, ad_group_id, campaign_id))
);
CREATE UNIQUE INDEX negative_keywords_unique_text ON negative_keywords (parent_id, match_type, text_key);
CREATE INDEX negative_keywords_parent ON negative_keywords (parent_id, created_at DESC, id DESC);
-- For the foreign keys' cascades (a campaign's delete finds its negatives
-- by campaign_id, an ad group's by ad_group_id, a list's by list_id).
CREATE INDEX negative_keywords_campaign ON negative_keywords (campaign_id) WHERE campaign_id IS NOT NULL;
CREATE INDEX negative_keywords_ad_group ON negative_keywords (ad_group_id) WHERE ad_group_id IS NOT NULL;
CREATE INDEX negative_keywords_list ON negative_keywords (list_id) WHERE list_id IS NOT NULL;

-- Which lists each campaign has attached.
CREATE TABLE campaign_negative_lists (
    campaign_id TEXT NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    list_id     TEXT NOT NULL REFERENCES negative_keyword_lists (id) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, list_id)
) WITHOUT ROWID;
CREATE INDEX campaign_negative_lists_list ON campaign_negative_lists (list_id, campaign_id);

-- +goose Down
DROP TABLE campaign_negative_lists;
DROP TABLE negative_keywords;
DROP TABLE negative_keyword_lists;
