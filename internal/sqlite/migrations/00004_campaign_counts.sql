-- +goose Up
-- Locks: the database's write lock while it counts every campaign once
--   and indexes campaigns' end dates (writes wait; reads go on).
-- Campaign totals per tenant and stored status, kept by triggers in the
-- same transaction as every insert, delete and status change, so that a
-- list answers its exact total without counting the table.
CREATE TABLE campaign_counts (
    account_id  TEXT NOT NULL,
    environment TEXT NOT NULL,
    status      TEXT NOT NULL,
    n           INTEGER NOT NULL,
    PRIMARY KEY (account_id, environment, status)
) WITHOUT ROWID;

INSERT INTO campaign_counts (account_id, environment, status, n)
SELECT account_id, environment, status, count(*) FROM campaigns GROUP BY account_id, environment, status;

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

-- Campaigns with an end date, for the ones that ended by date.
CREATE INDEX campaigns_tenant_end ON campaigns (account_id, environment, end_date) WHERE end_date IS NOT NULL;

-- +goose Down
DROP INDEX campaigns_tenant_end;
DROP TRIGGER campaigns_counted_status;
DROP TRIGGER campaigns_counted_delete;
DROP TRIGGER campaigns_counted_insert;
DROP TABLE campaign_counts;
