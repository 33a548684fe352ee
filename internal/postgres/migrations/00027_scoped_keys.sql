-- +goose Up
-- Locks: api_keys in ACCESS EXCLUSIVE mode, briefly: columns with constant
--   defaults rewrite no row.
-- Scoped keys, as in SQLite's 00027: levels per group of operations
-- ("campaigns=write,reports=read,..."; every existing key keeps full
-- access), expiry (NULL: never), allowed client address ranges
-- (comma-separated CIDRs, '' for anywhere), own rate limit (0: none).
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL
    DEFAULT 'campaigns=write,reports=write,history=write,webhooks=write';
ALTER TABLE api_keys ADD COLUMN expires_at BIGINT;
ALTER TABLE api_keys ADD COLUMN allowed_ips TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN rate_limit INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE api_keys DROP COLUMN rate_limit;
ALTER TABLE api_keys DROP COLUMN allowed_ips;
ALTER TABLE api_keys DROP COLUMN expires_at;
ALTER TABLE api_keys DROP COLUMN scopes;
