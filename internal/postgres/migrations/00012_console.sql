-- +goose Up
-- Locks: api_keys in ACCESS EXCLUSIVE mode, briefly: columns with constant
--   defaults rewrite no row; the rest is new tables.
-- The account console, as in SQLite's 00012: users and their membership of
-- accounts, sessions, one-time tokens, failed sign-ins, recovery codes; the
-- credentials' names, creators and requests per day. Tokens, sessions and
-- recovery codes are stored as SHA-256 hashes, passwords as Argon2id
-- hashes. Sessions live here so that every process serves every session.
ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN created_by_type TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN created_by_id TEXT NOT NULL DEFAULT '';

CREATE TABLE users (
    id             TEXT COLLATE "C" PRIMARY KEY,
    email          TEXT COLLATE "C" NOT NULL UNIQUE,
    password_hash  TEXT NOT NULL DEFAULT '',
    totp_secret    BYTEA,
    totp_last_step BIGINT NOT NULL DEFAULT 0,
    created_at     BIGINT NOT NULL
);

CREATE TABLE account_members (
    account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    user_id    TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
    added_at   BIGINT NOT NULL,
    PRIMARY KEY (account_id, user_id)
);
CREATE INDEX account_members_user ON account_members (user_id, added_at);
CREATE INDEX account_members_added ON account_members (account_id, added_at);

CREATE TABLE console_sessions (
    hash         BYTEA PRIMARY KEY,
    user_id      TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL
);
CREATE INDEX console_sessions_user ON console_sessions (user_id);
CREATE INDEX console_sessions_created ON console_sessions (created_at);
CREATE INDEX console_sessions_seen ON console_sessions (last_seen_at);

CREATE TABLE console_tokens (
    hash       BYTEA PRIMARY KEY,
    purpose    TEXT NOT NULL,
    user_id    TEXT COLLATE "C" REFERENCES users (id) ON DELETE CASCADE,
    data       BYTEA,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX console_tokens_user ON console_tokens (user_id, purpose);
CREATE INDEX console_tokens_expires ON console_tokens (expires_at);

CREATE TABLE signin_failures (
    key TEXT COLLATE "C" NOT NULL,
    at  BIGINT NOT NULL
);
CREATE INDEX signin_failures_key ON signin_failures (key, at);
CREATE INDEX signin_failures_at ON signin_failures (at);

CREATE TABLE recovery_codes (
    user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    hash    BYTEA NOT NULL,
    PRIMARY KEY (user_id, hash)
);

CREATE TABLE api_key_uses (
    key_id TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    day    TEXT COLLATE "C" NOT NULL,
    n      BIGINT NOT NULL,
    PRIMARY KEY (key_id, day)
);
CREATE INDEX api_key_uses_day ON api_key_uses (day);

-- +goose Down
DROP TABLE api_key_uses;
DROP TABLE recovery_codes;
DROP TABLE signin_failures;
DROP TABLE console_tokens;
DROP TABLE console_sessions;
DROP TABLE account_members;
DROP TABLE users;
ALTER TABLE api_keys DROP COLUMN created_by_id;
ALTER TABLE api_keys DROP COLUMN created_by_type;
ALTER TABLE api_keys DROP COLUMN name;
