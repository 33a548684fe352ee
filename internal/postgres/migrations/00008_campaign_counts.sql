-- +goose Up
-- Locks: campaigns in SHARE ROW EXCLUSIVE mode while its due index is built
--   and every campaign is counted once (writes to campaigns wait; reads go on).
-- Campaign totals per tenant and stored status, so that a list answers its
-- exact total without counting the tenant's campaigns (SQLite's version
-- 00004 does the same with one counter row per tenant and status).
--
-- Here writes run at SERIALIZABLE, several at once: two transactions that
-- both changed one counter row would conflict, and one would be run again,
-- for every pair of concurrent creates in one account. So triggers never
-- update a counter: each statement that adds, removes or re-statuses
-- campaigns appends its changes to campaign_count_changes, which nobody
-- updates, and a total is the counter plus the tenant's pending changes.
-- The store folds the pending changes into the counters every
-- quarter second (one statement: DELETE ... RETURNING into an upsert), so
-- they stay few whatever the number of campaigns.
CREATE TABLE campaign_counts (
    account_id  TEXT COLLATE "C" NOT NULL,
    environment TEXT NOT NULL,
    status      TEXT NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (account_id, environment, status)
);

CREATE TABLE campaign_count_changes (
    account_id  TEXT COLLATE "C" NOT NULL,
    environment TEXT NOT NULL,
    status      TEXT NOT NULL,
    n           INTEGER NOT NULL
);
CREATE INDEX campaign_count_changes_tenant ON campaign_count_changes (account_id, environment, status) INCLUDE (n);

-- A total by status is corrected for the tenant's campaigns past their end
-- date whose status is not stored as ended yet (they read as ended): a few
-- seconds' worth, as the service stores ended for them, found here without
-- reading the tenant's other campaigns.
CREATE INDEX campaigns_tenant_due ON campaigns (account_id, environment, end_date)
    WHERE end_date IS NOT NULL AND status <> 'ended';

-- No campaign may be written between the count and the triggers.
LOCK TABLE campaigns IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO campaign_counts (account_id, environment, status, n)
SELECT account_id, environment, status, count(*) FROM campaigns GROUP BY account_id, environment, status;

-- A campaign created: one change per row (creates come one at a time).
-- +goose StatementBegin
CREATE FUNCTION campaign_counted_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO campaign_count_changes (account_id, environment, status, n)
    VALUES (NEW.account_id, NEW.environment, NEW.status, 1);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER campaigns_counted_insert AFTER INSERT ON campaigns
    FOR EACH ROW EXECUTE FUNCTION campaign_counted_insert();

-- Campaigns deleted: one change per tenant and status of the statement
-- (an account's deletion removes all its campaigns in one).
-- +goose StatementBegin
CREATE FUNCTION campaign_counted_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO campaign_count_changes (account_id, environment, status, n)
    SELECT account_id, environment, status, -count(*) FROM gone
    GROUP BY account_id, environment, status;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER campaigns_counted_delete AFTER DELETE ON campaigns
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION campaign_counted_delete();

-- A campaign's status changed: it leaves one count for another. Tenants
-- never change.
-- +goose StatementBegin
CREATE FUNCTION campaign_counted_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO campaign_count_changes (account_id, environment, status, n)
    VALUES (OLD.account_id, OLD.environment, OLD.status, -1), (NEW.account_id, NEW.environment, NEW.status, 1);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER campaigns_counted_status AFTER UPDATE OF status ON campaigns
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION campaign_counted_status();

-- +goose Down
DROP TRIGGER campaigns_counted_status ON campaigns;
DROP TRIGGER campaigns_counted_delete ON campaigns;
DROP TRIGGER campaigns_counted_insert ON campaigns;
DROP FUNCTION campaign_counted_status();
DROP FUNCTION campaign_counted_delete();
DROP FUNCTION campaign_counted_insert();
DROP TABLE campaign_count_changes;
DROP TABLE campaign_counts;
DROP INDEX campaigns_tenant_due;
