-- +goose Up
-- Locks: the database's write lock, briefly: columns with constant defaults
--   rewrite no row.
-- Scoped keys: a credential's levels per group of operations (written as
-- "campaigns=write,reports=read,..."; every existing key keeps full
-- access), its expiry (NULL: never), the client address ranges it may be
-- used from (comma-separated CIDRs, '' for anywhere) and its own rate
-- limit in requests per second (0: the server's alone). PostgreSQL's
-- 00027 is the same.
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL
    DEFAULT 'campaigns=write,reports=write,history=write,webhooks=write';
ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
ALTER TABLE api_keys ADD COLUMN allowed_ips TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN rate_limit INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE api_keys DROP COLUMN rate_limit;
ALTER TABLE api_keys DROP COLUMN allowed_ips;
ALTER TABLE api_keys DROP COLUMN expires_at;
ALTER TABLE api_keys DROP COLUMN scopes;
