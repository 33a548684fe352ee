-- +goose Up
-- Locks: nothing in use: it creates the first tables.
-- The PostgreSQL twin of the SQLite schema, version for version. Times are
-- Unix microseconds (BIGINT), as in SQLite, so both stores round-trip the
-- same values; dates are 'YYYY-MM-DD' text; money is integer cents. Ids and
-- dates compare byte by byte (COLLATE "C"), as in SQLite, whatever the
-- database's default collation: lists order by id, campaigns by end date.
CREATE TABLE accounts (
    id         TEXT COLLATE "C" PRIMARY KEY,
    name       TEXT NOT NULL,
    email      TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL
);

CREATE TABLE channel_accounts (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id  TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    marketplace TEXT NOT NULL,
    name        TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX channel_accounts_account ON channel_accounts (account_id, id);

CREATE TABLE api_keys (
    id                  TEXT COLLATE "C" PRIMARY KEY,
    account_id          TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    environment         TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    secret              BYTEA NOT NULL,
    previous_secret     BYTEA,
    previous_expires_at BIGINT,
    disabled            BOOLEAN NOT NULL DEFAULT false,
    created_at          BIGINT NOT NULL,
    last_used_at        BIGINT
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

CREATE TABLE campaigns (
    id                 TEXT COLLATE "C" PRIMARY KEY,
    account_id         TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    environment        TEXT NOT NULL CHECK (environment IN ('production', 'sandbox')),
    name               TEXT NOT NULL,
    budget_daily       BIGINT NOT NULL,
    marketplace        TEXT NOT NULL,
    channel_account_id BIGINT REFERENCES channel_accounts (id) ON DELETE SET NULL,
    start_date         TEXT COLLATE "C",
    end_date           TEXT COLLATE "C",
    status             TEXT NOT NULL CHECK (status IN ('active', 'paused', 'ended')),
    version            BIGINT NOT NULL,
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL
);
CREATE INDEX campaigns_tenant ON campaigns (account_id, environment, created_at DESC, id DESC);
CREATE INDEX campaigns_tenant_status ON campaigns (account_id, environment, status, created_at DESC, id DESC);
CREATE INDEX campaigns_channel_account ON campaigns (channel_account_id);

-- +goose Down
DROP TABLE campaigns;
DROP TABLE api_keys;
DROP TABLE channel_accounts;
DROP TABLE accounts;
