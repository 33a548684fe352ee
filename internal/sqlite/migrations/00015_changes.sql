-- +goose Up
-- Locks: the database's write lock, briefly: a new, empty table and its indexes.
-- The change history: one record per change of a campaign, ad group,
-- keyword, API key or member, written in the transaction of the change.
-- Ids are "chg_" and a ULID, so they sort by time: the history lists
-- newest first by id, a cursor is the last id seen, and the retention
-- purge deletes by id range on the primary key (no index on occurred_at
-- is needed). environment is '' for the account's own records (members);
-- campaign_id and ad_group_id hold the campaign and ad group the entity
-- is or lies under (NULL for none). changes is a JSON object, kept as
-- text so that its fields keep their order and its numbers their
-- decimals. No foreign keys: records outlive what they describe.
-- PostgreSQL's 00015 is the same.
CREATE TABLE changes (
    id              TEXT PRIMARY KEY,
    occurred_at     INTEGER NOT NULL,
    account_id      TEXT NOT NULL,
    environment     TEXT NOT NULL,
    entity_type     TEXT NOT NULL,
    entity_id       TEXT NOT NULL,
    campaign_id     TEXT,
    ad_group_id     TEXT,
    operation       TEXT NOT NULL,
    changes         TEXT NOT NULL,
    actor_type      TEXT NOT NULL,
    actor_id        TEXT NOT NULL,
    request_id      TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    transaction_id  TEXT NOT NULL
) WITHOUT ROWID;
-- One index per filter, each ending in id so that a page is a range scan
-- in order. Entity, campaign and ad group ids are unique across accounts:
-- their indexes need not lead with the tenant.
CREATE INDEX changes_tenant ON changes (account_id, environment, id);
CREATE INDEX changes_type ON changes (account_id, environment, entity_type, id);
CREATE INDEX changes_actor_type ON changes (account_id, environment, actor_type, id);
CREATE INDEX changes_actor ON changes (account_id, environment, actor_id, id);
CREATE INDEX changes_entity ON changes (entity_id, id);
CREATE INDEX changes_campaign ON changes (campaign_id, id) WHERE campaign_id IS NOT NULL;
CREATE INDEX changes_ad_group ON changes (ad_group_id, id) WHERE ad_group_id IS NOT NULL;

-- +goose Down
DROP TABLE changes;
