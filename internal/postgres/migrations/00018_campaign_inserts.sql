-- +goose Up
-- Locks: campaigns in ACCESS EXCLUSIVE mode and accounts in SHARE ROW EXCLUSIVE
--   mode, briefly: it drops a trigger and a foreign key and adds a trigger on
--   accounts; no row is read or rewritten.
-- Creating a campaign is the API's busiest write, and two per-row
-- functions ran inside each one:
--
--   - the row trigger that counted the new campaign (a PL/pgSQL call),
--   - the foreign key check on its account (a query that takes a KEY
--     SHARE lock on the account's row, the same row for every create of
--     the account).
--
-- Each cost about a fifth of PostgreSQL's time for a create (pgbench of the
-- create's statement, 8 clients;
-- bench/notes/2026-11-26-postgresql-third-pass.md). The statement that
-- inserts a campaign now writes its count's change itself (insertCampaign in
-- campaigns.go, the only INSERT INTO campaigns), and the account is the one
-- whose API key signed the request, which exists by construction (api_keys
-- keeps its foreign key). Deleting an account still deletes its campaigns,
-- and their ad groups and keywords with them, now by a statement trigger on
-- accounts instead of ON DELETE CASCADE. The service never deletes accounts;
-- an account deleted by hand while one of its campaigns is being created may
-- leave that campaign behind, unreachable (no key can name its account).
DROP TRIGGER campaigns_counted_insert ON campaigns;
DROP FUNCTION campaign_counted_insert();
ALTER TABLE campaigns DROP CONSTRAINT campaigns_account_id_fkey;
-- +goose StatementBegin
CREATE FUNCTION account_campaigns_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM campaigns WHERE account_id IN (SELECT id FROM gone);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER accounts_delete_campaigns AFTER DELETE ON accounts
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION account_campaigns_deleted();

-- +goose Down
DROP TRIGGER accounts_delete_campaigns ON accounts;
DROP FUNCTION account_campaigns_deleted();
DELETE FROM campaigns WHERE account_id NOT IN (SELECT id FROM accounts);
ALTER TABLE campaigns ADD CONSTRAINT campaigns_account_id_fkey
    FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE;
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
