-- +goose Up
-- Locks: the database's write lock while the new indexes are built (about
--   a second a million records).
-- A change's record went into eight B-trees: the table and seven indexes,
-- each a page written at every commit. Two fewer now, with every filter of
-- the history still a range scan in id order (see changeBranches in
-- changes.go):
--  - changes_kind serves the filters by entity type, by actor type and by
--    both, in place of changes_type and changes_actor_type: a filter by
--    one of them reads one range per value of the other (four actor
--    types, nine entity types), merged in id order.
--  - A campaign's own records are found by changes_entity, and only what
--    lies under it by changes_campaign (the same for an ad group and
--    changes_ad_group): the filter by campaign merges the two ranges. A
--    campaign's record, the commonest, goes into five B-trees, not seven.
-- PostgreSQL took the same indexes later, in its 00045.
DROP INDEX changes_type;
DROP INDEX changes_actor_type;
DROP INDEX changes_campaign;
DROP INDEX changes_ad_group;
CREATE INDEX changes_kind ON changes (account_id, environment, entity_type, actor_type, id);
CREATE INDEX changes_campaign ON changes (campaign_id, id) WHERE campaign_id IS NOT NULL AND campaign_id <> entity_id;
CREATE INDEX changes_ad_group ON changes (ad_group_id, id) WHERE ad_group_id IS NOT NULL AND ad_group_id <> entity_id;

-- +goose Down
DROP INDEX changes_kind;
DROP INDEX changes_campaign;
DROP INDEX changes_ad_group;
CREATE INDEX changes_type ON changes (account_id, environment, entity_type, id);
CREATE INDEX changes_actor_type ON changes (account_id, environment, actor_type, id);
CREATE INDEX changes_campaign ON changes (campaign_id, id) WHERE campaign_id IS NOT NULL;
CREATE INDEX changes_ad_group ON changes (ad_group_id, id) WHERE ad_group_id IS NOT NULL;
