-- +goose Up
-- Locks: the database's write lock, briefly: a column with a constant
--   default, which rewrites no row.
-- An endpoint's ordering (docs/webhooks.md): 'none', or 'per_campaign',
-- which holds a campaign's event back while an earlier one of the same
-- campaign is being retried. PostgreSQL's 00032 is the same.
ALTER TABLE webhook_endpoints ADD COLUMN ordering TEXT NOT NULL DEFAULT 'none';

-- +goose Down
ALTER TABLE webhook_endpoints DROP COLUMN ordering;
