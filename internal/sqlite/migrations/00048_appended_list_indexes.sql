-- +goose Up
-- Locks: the database's write lock while it builds eight indexes again
--   (writes wait; reads go on): longer the more keywords there are.
-- The indexes that give lists their order (newest first) held it
-- descending: a new row, the newest of its parent, went in at the start
-- of its parent's range, and a page that filled there split into two
-- half-full pages, each change of the sitting writing two or three pages
-- of these indexes (bench/notes/39-sqlite.md). Ascending, a new row is
-- appended at the end of its parent's range (at the end of the index, a
-- new page of its own: SQLite's quick balance). A list reads the range
-- backwards, as fast, and sorts nothing (TestQueryPlansUseIndexes).
DROP INDEX campaigns_tenant;
CREATE INDEX campaigns_tenant ON campaigns (account_id, environment, created_at, id);
DROP INDEX campaigns_tenant_status;
CREATE INDEX campaigns_tenant_status ON campaigns (account_id, environment, status, created_at, id);
DROP INDEX ad_groups_campaign;
CREATE INDEX ad_groups_campaign ON ad_groups (campaign_id, created_at, id);
DROP INDEX ad_groups_campaign_status;
CREATE INDEX ad_groups_campaign_status ON ad_groups (campaign_id, status, created_at, id);
DROP INDEX keywords_ad_group;
CREATE INDEX keywords_ad_group ON keywords (ad_group_id, created_at, id);
DROP INDEX channel_accounts_account;
CREATE INDEX channel_accounts_account ON channel_accounts (account_id, created_at, id);
DROP INDEX negative_keyword_lists_tenant;
CREATE INDEX negative_keyword_lists_tenant ON negative_keyword_lists (account_id, environment, created_at, id);
DROP INDEX negative_keywords_parent;
CREATE INDEX negative_keywords_parent ON negative_keywords (parent_id, created_at, id);

-- +goose Down
DROP INDEX campaigns_tenant;
CREATE INDEX campaigns_tenant ON campaigns (account_id, environment, created_at DESC, id DESC);
DROP INDEX campaigns_tenant_status;
CREATE INDEX campaigns_tenant_status ON campaigns (account_id, environment, status, created_at DESC, id DESC);
DROP INDEX ad_groups_campaign;
CREATE INDEX ad_groups_campaign ON ad_groups (campaign_id, created_at DESC, id DESC);
DROP INDEX ad_groups_campaign_status;
CREATE INDEX ad_groups_campaign_status ON ad_groups (campaign_id, status, created_at DESC, id DESC);
DROP INDEX keywords_ad_group;
CREATE INDEX keywords_ad_group ON keywords (ad_group_id, created_at DESC, id DESC);
DROP INDEX channel_accounts_account;
CREATE INDEX channel_accounts_account ON channel_accounts (account_id, created_at DESC, id DESC);
DROP INDEX negative_keyword_lists_tenant;
CREATE INDEX negative_keyword_lists_tenant ON negative_keyword_lists (account_id, environment, created_at DESC, id DESC);
DROP INDEX negative_keywords_parent;
CREATE INDEX negative_keywords_parent ON negative_keywords (parent_id, created_at DESC, id DESC);
