-- +goose Up
-- Locks: nothing in use: it creates the first tables.
-- Times are Unix microseconds (INTEGER); dates are 'YYYY-MM-DD' text;
-- money is integer cents.
CREATE TABLE accounts (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    email      TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
);

CREATE TABLE channel_accounts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    marketplace TEXT NOT NULL,
    name        TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX channel_accounts_account ON channel_accounts (account_id, id);

CREATE TABLE api_keys (
    id                  TEXT PRIMARY KEY,
    account_id          TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    environment         TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    secret              BLOB NOT NULL,
    previous_secret     BLOB,
    previous_expires_at INTEGER,
    disabled            INTEGER NOT NULL DEFAULT 0,
    created_at          INTEGER NOT NULL,
    last_used_at        INTEGER
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

CREATE TABLE campaigns (
    id                 TEXT PRIMARY KEY,
    account_id         TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    environment        TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    name               TEXT NOT NULL,
    budget_daily       INTEGER NOT NULL,
    marketplace        TEXT NOT NULL,
    channel_account_id INTEGER REFERENCES channel_accounts (id) ON DELETE SET NULL,
    start_date         TEXT,
    end_date           TEXT,
    status             TEXT NOT NULL CHECK (status IN ('active', 'paused', 'ended')),
    version            INTEGER NOT NULL,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
);
CREATE INDEX campaigns_tenant ON campaigns (account_id, environment, created_at DESC, id DESC);
CREATE INDEX campaigns_tenant_status ON campaigns (account_id, environment, status, created_at DESC, id DESC);
CREATE INDEX campaigns_channel_account ON campaigns (channel_account_id);

-- +goose Down
DROP TABLE campaigns;
DROP TABLE api_keys;
DROP TABLE channel_accounts;
DROP TABLE accounts;
