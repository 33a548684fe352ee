-- +goose NO TRANSACTION
-- +goose Up
-- Locks: the database's write lock, statement by statement (NO TRANSACTION),
--   the longest while it copies every campaign into a new table and indexes it
--   again (writes wait; reads go on).
-- Campaigns keyed by their id (WITHOUT ROWID). As a rowid table with a
-- TEXT primary key, a campaign was two b-trees: the key's index, whose
-- entry gives the rowid, then the table. A lookup by id walked both, and
-- with a million campaigns their leaves rarely sit in the page cache, so
-- a get read two pages from the file where it now reads one; an insert
-- wrote both.
--
-- Rebuilding a table that others reference takes foreign keys off, which
-- only works outside a transaction (SQLite's twelve steps of ALTER TABLE):
-- hence NO TRANSACTION and the explicit one here. Rows are copied as they
-- are, so no reference breaks.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
CREATE TABLE campaigns_keyed (
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
) WITHOUT ROWID;
INSERT INTO campaigns_keyed SELECT id, account_id, environment, name, budget_daily, marketplace, channel_account_id,
    start_date, end_date, status, version, created_at, updated_at FROM campaigns;
DROP TABLE campaigns;
ALTER TABLE campaigns_keyed RENAME TO campaigns;
CREATE INDEX campaigns_tenant ON campaigns (account_id, environment, created_at DESC, id DESC);
CREATE INDEX campaigns_tenant_status ON campaigns (account_id, environment, status, created_at DESC, id DESC);
CREATE INDEX campaigns_channel_account ON campaigns (channel_account_id) WHERE channel_account_id IS NOT NULL;
CREATE INDEX campaigns_due ON campaigns (end_date) WHERE end_date IS NOT NULL AND status <> 'ended';
-- +goose StatementBegin
CREATE TRIGGER campaigns_counted_insert AFTER INSERT ON campaigns BEGIN
    INSERT INTO campaign_counts (account_id, environment, status, n)
    VALUES (NEW.account_id, NEW.environment, NEW.status, 1)
    ON CONFLICT (account_id, environment, status) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER campaigns_counted_delete AFTER DELETE ON campaigns BEGIN
    UPDATE campaign_counts SET n = n - 1
    WHERE account_id = OLD.account_id AND environment = OLD.environment AND status = OLD.status;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER campaigns_counted_status AFTER UPDATE OF status ON campaigns WHEN OLD.status <> NEW.status BEGIN
    UPDATE campaign_counts SET n = n - 1
    WHERE account_id = OLD.account_id AND environment = OLD.environment AND status = OLD.status;
    INSERT INTO campaign_counts (account_id, environment, status, n)
    VALUES (NEW.account_id, NEW.environment, NEW.status, 1)
    ON CONFLICT (account_id, environment, status) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
COMMIT;
PRAGMA foreign_keys = ON;

-- +goose Down
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
CREATE TABLE campaigns_rowid (
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
INSERT INTO campaigns_rowid SELECT id, account_id, environment, name, budget_daily, marketplace, channel_account_id,
    start_date, end_date, status, version, created_at, updated_at FROM campaigns;
DROP TABLE campaigns;
ALTER TABLE campaigns_rowid RENAME TO campaigns;
CREATE INDEX campaigns_tenant ON campaigns (account_id, environment, created_at DESC, id DESC);
CREATE INDEX campaigns_tenant_status ON campaigns (account_id, environment, status, created_at DESC, id DESC);
CREATE INDEX campaigns_channel_account ON campaigns (channel_account_id) WHERE channel_account_id IS NOT NULL;
CREATE INDEX campaigns_due ON campaigns (end_date) WHERE end_date IS NOT NULL AND status <> 'ended';
-- +goose StatementBegin
CREATE TRIGGER campaigns_counted_insert AFTER INSERT ON campaigns BEGIN
    INSERT INTO campaign_counts (account_id, environment, status, n)
    VALUES (NEW.account_id, NEW.environment, NEW.status, 1)
    ON CONFLICT (account_id, environment, status) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER campaigns_counted_delete AFTER DELETE ON campaigns BEGIN
    UPDATE campaign_counts SET n = n - 1
    WHERE account_id = OLD.account_id AND environment = OLD.environment AND status = OLD.status;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER campaigns_counted_status AFTER UPDATE OF status ON campaigns WHEN OLD.status <> NEW.status BEGIN
    UPDATE campaign_counts SET n = n - 1
    WHERE account_id = OLD.account_id AND environment = OLD.environment AND status = OLD.status;
    INSERT INTO campaign_counts (account_id, environment, status, n)
    VALUES (NEW.account_id, NEW.environment, NEW.status, 1)
    ON CONFLICT (account_id, environment, status) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
COMMIT;
PRAGMA foreign_keys = ON;
