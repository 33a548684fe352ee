-- +goose Up
-- Locks: ad_groups and keywords in SHARE ROW EXCLUSIVE mode while every ad
--   group and keyword is counted once (writes to them wait; reads go on).
-- Totals of the ad groups of each campaign (per status) and of the
-- keywords of each ad group (per status and match type), kept as 00008
-- keeps the campaigns' (SQLite's 00009 is the same for its store): the
-- triggers append changes, which nobody updates, so that concurrent
-- serializable writes under one parent do not conflict over a counter;
-- a total is the counters plus the pending changes, and the store folds
-- the changes into the counters every quarter second. A counter row
-- carries its parent's tenant, which every total is read with; counters
-- that fall to zero are removed when folded (found through a partial
-- index), so that nothing is left of a parent once its children are gone.
CREATE TABLE ad_group_counts (
    campaign_id TEXT COLLATE "C" NOT NULL,
    status      TEXT NOT NULL,
    account_id  TEXT COLLATE "C" NOT NULL,
    environment TEXT NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (campaign_id, status)
);
CREATE INDEX ad_group_counts_zero ON ad_group_counts (campaign_id) WHERE n = 0;

CREATE TABLE ad_group_count_changes (
    campaign_id TEXT COLLATE "C" NOT NULL,
    status      TEXT NOT NULL,
    account_id  TEXT COLLATE "C" NOT NULL,
    environment TEXT NOT NULL,
    n           INTEGER NOT NULL
);
CREATE INDEX ad_group_count_changes_campaign ON ad_group_count_changes (campaign_id, status)
    INCLUDE (account_id, environment, n);

CREATE TABLE keyword_counts (
    ad_group_id TEXT COLLATE "C" NOT NULL,
    status      TEXT NOT NULL,
    match_type  TEXT NOT NULL,
    account_id  TEXT COLLATE "C" NOT NULL,
    environment TEXT NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (ad_group_id, status, match_type)
);
CREATE INDEX keyword_counts_zero ON keyword_counts (ad_group_id) WHERE n = 0;

CREATE TABLE keyword_count_changes (
    ad_group_id TEXT COLLATE "C" NOT NULL,
    status      TEXT NOT NULL,
    match_type  TEXT NOT NULL,
    account_id  TEXT COLLATE "C" NOT NULL,
    environment TEXT NOT NULL,
    n           INTEGER NOT NULL
);
CREATE INDEX keyword_count_changes_ad_group ON keyword_count_changes (ad_group_id, status, match_type)
    INCLUDE (account_id, environment, n);

-- No ad group or keyword may be written between the count and the triggers.
LOCK TABLE ad_groups, keywords IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO ad_group_counts (campaign_id, status, account_id, environment, n)
SELECT campaign_id, status, account_id, environment, count(*) FROM ad_groups
GROUP BY campaign_id, status, account_id, environment;

INSERT INTO keyword_counts (ad_group_id, status, match_type, account_id, environment, n)
SELECT ad_group_id, status, match_type, account_id, environment, count(*) FROM keywords
GROUP BY ad_group_id, status, match_type, account_id, environment;

-- Ad groups created (one at a time) or deleted (all of a campaign when it
-- is deleted), and a status changed. Parents and tenants never change.
-- +goose StatementBegin
CREATE FUNCTION ad_group_counted_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ad_group_count_changes (campaign_id, status, account_id, environment, n)
    VALUES (NEW.campaign_id, NEW.status, NEW.account_id, NEW.environment, 1);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER ad_groups_counted_insert AFTER INSERT ON ad_groups
    FOR EACH ROW EXECUTE FUNCTION ad_group_counted_insert();

-- +goose StatementBegin
CREATE FUNCTION ad_group_counted_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ad_group_count_changes (campaign_id, status, account_id, environment, n)
    SELECT campaign_id, status, account_id, environment, -count(*) FROM gone
    GROUP BY campaign_id, status, account_id, environment;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER ad_groups_counted_delete AFTER DELETE ON ad_groups
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION ad_group_counted_delete();

-- +goose StatementBegin
CREATE FUNCTION ad_group_counted_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ad_group_count_changes (campaign_id, status, account_id, environment, n)
    VALUES (OLD.campaign_id, OLD.status, OLD.account_id, OLD.environment, -1),
           (NEW.campaign_id, NEW.status, NEW.account_id, NEW.environment, 1);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER ad_groups_counted_status AFTER UPDATE OF status ON ad_groups
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION ad_group_counted_status();

-- Keywords created (in batches: one change per group of the statement) or
-- deleted, and a status or match type changed.
-- +goose StatementBegin
CREATE FUNCTION keyword_counted_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO keyword_count_changes (ad_group_id, status, match_type, account_id, environment, n)
    SELECT ad_group_id, status, match_type, account_id, environment, count(*) FROM added
    GROUP BY ad_group_id, status, match_type, account_id, environment;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER keywords_counted_insert AFTER INSERT ON keywords
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION keyword_counted_insert();

-- +goose StatementBegin
CREATE FUNCTION keyword_counted_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO keyword_count_changes (ad_group_id, status, match_type, account_id, environment, n)
    SELECT ad_group_id, status, match_type, account_id, environment, -count(*) FROM gone
    GROUP BY ad_group_id, status, match_type, account_id, environment;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER keywords_counted_delete AFTER DELETE ON keywords
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION keyword_counted_delete();

-- +goose StatementBegin
CREATE FUNCTION keyword_counted_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO keyword_count_changes (ad_group_id, status, match_type, account_id, environment, n)
    VALUES (OLD.ad_group_id, OLD.status, OLD.match_type, OLD.account_id, OLD.environment, -1),
           (NEW.ad_group_id, NEW.status, NEW.match_type, NEW.account_id, NEW.environment, 1);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER keywords_counted_change AFTER UPDATE OF status, match_type ON keywords
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.match_type IS DISTINCT FROM NEW.match_type)
    EXECUTE FUNCTION keyword_counted_change();

-- +goose Down
DROP TRIGGER keywords_counted_change ON keywords;
DROP TRIGGER keywords_counted_delete ON keywords;
DROP TRIGGER keywords_counted_insert ON keywords;
DROP TRIGGER ad_groups_counted_status ON ad_groups;
DROP TRIGGER ad_groups_counted_delete ON ad_groups;
DROP TRIGGER ad_groups_counted_insert ON ad_groups;
DROP FUNCTION keyword_counted_change();
DROP FUNCTION keyword_counted_delete();
DROP FUNCTION keyword_counted_insert();
DROP FUNCTION ad_group_counted_status();
DROP FUNCTION ad_group_counted_delete();
DROP FUNCTION ad_group_counted_insert();
DROP TABLE keyword_count_changes;
DROP TABLE keyword_counts;
DROP TABLE ad_group_count_changes;
DROP TABLE ad_group_counts;
