-- +goose Up
-- Locks: campaigns in ACCESS EXCLUSIVE mode while every campaign's status
--   and environment are checked against the new domains (no row is rewritten;
--   reads and writes of campaigns wait).
-- A campaign's status and environment were held to their values by CHECK
-- constraints, which PostgreSQL parses and plans again for every statement
-- that writes the table: 7 µs of the 120 a campaign's INSERT or UPDATE
-- costs it (pgbench with one client;
-- bench/notes/2026-11-26-postgresql-fourth-pass.md), in the
-- API's busiest writes. The same checks as domains refuse the same values
-- at no cost per statement: PostgreSQL plans a domain's check once, in its
-- type cache. The other tables keep their CHECK constraints; none is
-- written as often. The status trigger names the column, so it is made
-- again around the change of type. The indexes on these columns are
-- rebuilt, and the table is locked while they are: 5.4 s for a million
-- campaigns on the machine of bench/README.md.
DROP TRIGGER campaigns_counted_status ON campaigns;
CREATE DOMAIN campaign_status AS TEXT CHECK (VALUE IN ('active', 'paused', 'ended'));
CREATE DOMAIN campaign_environment AS TEXT CHECK (VALUE IN ('production', 'sandbox'));
ALTER TABLE campaigns
    DROP CONSTRAINT campaigns_status_check,
    DROP CONSTRAINT campaigns_environment_check,
    ALTER COLUMN status TYPE campaign_status,
    ALTER COLUMN environment TYPE campaign_environment;
CREATE TRIGGER campaigns_counted_status AFTER UPDATE OF status ON campaigns
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION campaign_counted_status();

-- +goose Down
DROP TRIGGER campaigns_counted_status ON campaigns;
ALTER TABLE campaigns
    ALTER COLUMN status TYPE TEXT,
    ALTER COLUMN environment TYPE TEXT,
    ADD CONSTRAINT campaigns_status_check CHECK (status IN ('active', 'paused', 'ended')),
    ADD CONSTRAINT campaigns_environment_check CHECK (environment IN ('production', 'sandbox'));
DROP DOMAIN campaign_status;
DROP DOMAIN campaign_environment;
CREATE TRIGGER campaigns_counted_status AFTER UPDATE OF status ON campaigns
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION campaign_counted_status();
