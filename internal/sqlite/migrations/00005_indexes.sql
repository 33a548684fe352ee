-- +goose Up
-- Locks: the database's write lock while it builds indexes on campaigns,
--   channel_accounts and api_keys (writes wait; reads go on).
-- Campaigns whose end date has passed read as ended. The service stores
-- that status for them (EndCampaigns, run at start and every few seconds),
-- so that the counters and the status indexes are exact again. This index
-- holds only the campaigns with an end date that are not stored as ended:
-- the sweep, and the correction lists make in the moments before it, find
-- the due ones without reading the ended ones, however many there are.
CREATE INDEX campaigns_due ON campaigns (end_date) WHERE end_date IS NOT NULL AND status <> 'ended';
DROP INDEX campaigns_tenant_end;

-- The lists of channel accounts and keys in their own order, without a
-- sort: channel accounts newest first, keys oldest first, ties by id.
DROP INDEX channel_accounts_account;
CREATE INDEX channel_accounts_account ON channel_accounts (account_id, created_at DESC, id DESC);
DROP INDEX api_keys_account;
CREATE INDEX api_keys_account ON api_keys (account_id, created_at, id);

-- +goose Down
DROP INDEX api_keys_account;
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);
DROP INDEX channel_accounts_account;
CREATE INDEX channel_accounts_account ON channel_accounts (account_id, id);
CREATE INDEX campaigns_tenant_end ON campaigns (account_id, environment, end_date) WHERE end_date IS NOT NULL;
DROP INDEX campaigns_due;
