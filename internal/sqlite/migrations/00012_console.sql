-- +goose Up
-- Locks: the database's write lock, briefly: new tables, and columns with
--   constant defaults, which rewrite no row.
-- The account console: its users and their membership of accounts, their
-- sessions, one-time tokens (setup and invitation links, steps of forms),
-- failed sign-ins (for throttling), recovery codes; and the credentials'
-- names, creators and requests per day. Tokens, sessions and recovery
-- codes are stored as SHA-256 hashes, passwords as Argon2id hashes:
-- nothing here signs anyone in. PostgreSQL's 00012 is the same.
ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN created_by_type TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN created_by_id TEXT NOT NULL DEFAULT '';

CREATE TABLE users (
    id             TEXT PRIMARY KEY,
    email          TEXT NOT NULL UNIQUE,
    password_hash  TEXT NOT NULL DEFAULT '',
    totp_secret    BLOB,
    totp_last_step INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL
);

CREATE TABLE account_members (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
    added_at   INTEGER NOT NULL,
    PRIMARY KEY (account_id, user_id)
) WITHOUT ROWID;
CREATE INDEX account_members_user ON account_members (user_id, added_at);
CREATE INDEX account_members_added ON account_members (account_id, added_at);

CREATE TABLE console_sessions (
    hash         BLOB PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX console_sessions_user ON console_sessions (user_id);
CREATE INDEX console_sessions_created ON console_sessions (created_at);
CREATE INDEX console_sessions_seen ON console_sessions (last_seen_at);

CREATE TABLE console_tokens (
    hash       BLOB PRIMARY KEY,
    purpose    TEXT NOT NULL,
    user_id    TEXT REFERENCES users (id) ON DELETE CASCADE,
    data       BLOB,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX console_tokens_user ON console_tokens (user_id, purpose);
CREATE INDEX console_tokens_expires ON console_tokens (expires_at);

CREATE TABLE signin_failures (
    key TEXT NOT NULL,
    at  INTEGER NOT NULL
);
CREATE INDEX signin_failures_key ON signin_failures (key, at);
CREATE INDEX signin_failures_at ON signin_failures (at);

CREATE TABLE recovery_codes (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    hash    BLOB NOT NULL,
    PRIMARY KEY (user_id, hash)
) WITHOUT ROWID;

CREATE TABLE api_key_uses (
    key_id TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    day    TEXT NOT NULL,
    n      INTEGER NOT NULL,
    PRIMARY KEY (key_id, day)
) WITHOUT ROWID;
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
