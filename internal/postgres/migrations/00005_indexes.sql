-- +goose Up
-- Locks: campaigns, channel_accounts and api_keys in SHARE mode while each
--   index is built (writes to them wait; reads go on); ACCESS EXCLUSIVE on
--   channel_accounts and api_keys for the DROP INDEX, briefly.
-- Campaigns whose end date has passed read as ended; the service stores
-- that status for them (EndCampaigns, run at start and every few seconds).
-- This index holds only the campaigns with an end date not stored as
-- ended, so the sweep finds the due ones without reading the others.
-- (Version 00004 is SQLite's campaign counters; this store has its own,
-- another way, since version 00008.)
CREATE INDEX campaigns_due ON campaigns (end_date) WHERE end_date IS NOT NULL AND status <> 'ended';

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
DROP INDEX campaigns_due;
