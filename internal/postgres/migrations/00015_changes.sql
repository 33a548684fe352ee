-- +goose Up
-- Locks: nothing in use: it creates a new table and its indexes.
-- The change history, as in SQLite's 00015: one record per change of a
-- campaign, ad group, keyword, API key or member, written in the
-- transaction of the change. Ids are "chg_" and a ULID, so they sort by
-- time (in the "C" collation): the history lists newest first by id, a
-- cursor is the last id seen, and the retention purge deletes by id range
-- on the primary key. environment is '' for the account's own records
-- (members); campaign_id and ad_group_id hold the campaign and ad group
-- the entity is or lies under (NULL for none). changes is a JSON object
-- kept as text (jsonb would reorder its fields). No foreign keys: records
-- outlive what they describe.
CREATE TABLE changes (
    id              TEXT COLLATE "C" PRIMARY KEY,
    occurred_at     BIGINT NOT NULL,
    account_id      TEXT COLLATE "C" NOT NULL,
    environment     TEXT COLLATE "C" NOT NULL,
    entity_type     TEXT COLLATE "C" NOT NULL,
    entity_id       TEXT COLLATE "C" NOT NULL,
    campaign_id     TEXT COLLATE "C",
    ad_group_id     TEXT COLLATE "C",
    operation       TEXT NOT NULL,
    changes         TEXT NOT NULL,
    actor_type      TEXT COLLATE "C" NOT NULL,
    actor_id        TEXT COLLATE "C" NOT NULL,
    request_id      TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    transaction_id  TEXT NOT NULL
);
CREATE INDEX changes_tenant ON changes (account_id, environment, id);
CREATE INDEX changes_type ON changes (account_id, environment, entity_type, id);
CREATE INDEX changes_actor_type ON changes (account_id, environment, actor_type, id);
CREATE INDEX changes_actor ON changes (account_id, environment, actor_id, id);
CREATE INDEX changes_entity ON changes (entity_id, id);
CREATE INDEX changes_campaign ON changes (campaign_id, id) WHERE campaign_id IS NOT NULL;
CREATE INDEX changes_ad_group ON changes (ad_group_id, id) WHERE ad_group_id IS NOT NULL;

-- +goose Down
DROP TABLE changes;
