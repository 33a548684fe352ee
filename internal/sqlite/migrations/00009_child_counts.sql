-- +goose Up
-- Locks: the database's write lock while it counts every ad group and
--   keyword once (writes wait; reads go on).
-- Totals of the ad groups of each campaign (per status) and of the
-- keywords of each ad group (per status and match type), kept by triggers
-- like campaign_counts (00004), so that those lists answer their exact
-- total without counting the parent's rows (PostgreSQL's 00009 is the
-- same for its store). A counter row carries its
-- parent's tenant, which every total is read with. A row whose count falls
-- to zero is removed, so that nothing is left of a parent once its
-- children are gone (a parent's delete cascades to them, and the cascade
-- runs their triggers).
CREATE TABLE ad_group_counts (
    campaign_id TEXT NOT NULL,
    status      TEXT NOT NULL,
    account_id  TEXT NOT NULL,
    environment TEXT NOT NULL,
    n           INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, status)
) WITHOUT ROWID;

CREATE TABLE keyword_counts (
    ad_group_id TEXT NOT NULL,
    status      TEXT NOT NULL,
    match_type  TEXT NOT NULL,
    account_id  TEXT NOT NULL,
    environment TEXT NOT NULL,
    n           INTEGER NOT NULL,
    PRIMARY KEY (ad_group_id, status, match_type)
) WITHOUT ROWID;

INSERT INTO ad_group_counts (campaign_id, status, account_id, environment, n)
SELECT campaign_id, status, account_id, environment, count(*) FROM ad_groups
GROUP BY campaign_id, status, account_id, environment;

INSERT INTO keyword_counts (ad_group_id, status, match_type, account_id, environment, n)
SELECT ad_group_id, status, match_type, account_id, environment, count(*) FROM keywords
GROUP BY ad_group_id, status, match_type, account_id, environment;

-- +goose StatementBegin
CREATE TRIGGER ad_groups_counted_insert AFTER INSERT ON ad_groups BEGIN
    INSERT INTO ad_group_counts (campaign_id, status, account_id, environment, n)
    VALUES (NEW.campaign_id, NEW.status, NEW.account_id, NEW.environment, 1)
    ON CONFLICT (campaign_id, status) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER ad_groups_counted_delete AFTER DELETE ON ad_groups BEGIN
    DELETE FROM ad_group_counts WHERE campaign_id = OLD.campaign_id AND status = OLD.status AND n = 1;
    UPDATE ad_group_counts SET n = n - 1 WHERE campaign_id = OLD.campaign_id AND status = OLD.status;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER ad_groups_counted_status AFTER UPDATE OF status ON ad_groups WHEN OLD.status <> NEW.status BEGIN
    DELETE FROM ad_group_counts WHERE campaign_id = OLD.campaign_id AND status = OLD.status AND n = 1;
    UPDATE ad_group_counts SET n = n - 1 WHERE campaign_id = OLD.campaign_id AND status = OLD.status;
    INSERT INTO ad_group_counts (campaign_id, status, account_id, environment, n)
    VALUES (NEW.campaign_id, NEW.status, NEW.account_id, NEW.environment, 1)
    ON CONFLICT (campaign_id, status) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER keywords_counted_insert AFTER INSERT ON keywords BEGIN
    INSERT INTO keyword_counts (ad_group_id, status, match_type, account_id, environment, n)
    VALUES (NEW.ad_group_id, NEW.status, NEW.match_type, NEW.account_id, NEW.environment, 1)
    ON CONFLICT (ad_group_id, status, match_type) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER keywords_counted_delete AFTER DELETE ON keywords BEGIN
    DELETE FROM keyword_counts
    WHERE ad_group_id = OLD.ad_group_id AND status = OLD.status AND match_type = OLD.match_type AND n = 1;
    UPDATE keyword_counts SET n = n - 1
    WHERE ad_group_id = OLD.ad_group_id AND status = OLD.status AND match_type = OLD.match_type;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER keywords_counted_change AFTER UPDATE OF status, match_type ON keywords
WHEN OLD.status <> NEW.status OR OLD.match_type <> NEW.match_type BEGIN
    DELETE FROM keyword_counts
    WHERE ad_group_id = OLD.ad_group_id AND status = OLD.status AND match_type = OLD.match_type AND n = 1;
    UPDATE keyword_counts SET n = n - 1
    WHERE ad_group_id = OLD.ad_group_id AND status = OLD.status AND match_type = OLD.match_type;
    INSERT INTO keyword_counts (ad_group_id, status, match_type, account_id, environment, n)
    VALUES (NEW.ad_group_id, NEW.status, NEW.match_type, NEW.account_id, NEW.environment, 1)
    ON CONFLICT (ad_group_id, status, match_type) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER keywords_counted_change;
DROP TRIGGER keywords_counted_delete;
DROP TRIGGER keywords_counted_insert;
DROP TRIGGER ad_groups_counted_status;
DROP TRIGGER ad_groups_counted_delete;
DROP TRIGGER ad_groups_counted_insert;
DROP TABLE keyword_counts;
DROP TABLE ad_group_counts;
