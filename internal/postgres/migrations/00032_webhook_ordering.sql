-- +goose Up
-- Locks: ACCESS EXCLUSIVE on webhook_endpoints, briefly: a column with a
--   constant default is added without rewriting the table.
-- An endpoint's ordering (docs/webhooks.md): 'none', or 'per_campaign',
-- which holds a campaign's event back while an earlier one of the same
-- campaign is being retried. As SQLite's 00032.
ALTER TABLE webhook_endpoints ADD COLUMN ordering TEXT COLLATE "C" NOT NULL DEFAULT 'none';

-- +goose Down
ALTER TABLE webhook_endpoints DROP COLUMN ordering;
