-- +goose Up
-- Locks: changes in SHARE mode while the three new indexes are built (one
--   pass over the history each, about ten seconds a million records in
--   all): changes that write a history record wait, reads of the history
--   go on. Then ACCESS EXCLUSIVE for the drops and renames at the end,
--   until the commit: a moment.
-- As SQLite's 00035: a change's record went into the table and up to
-- eight indexes (the primary key and seven), each a page written and
-- logged in the change's statement: about half of PostgreSQL's statement
-- time under load. One or two fewer now, with every filter of the history
-- still a range scan in id order (see changeBranches in changes.go):
--  - changes_kind serves the filters by entity type, by actor type and by
--    both, in place of changes_type and changes_actor_type: a filter by
--    one of them reads one range per value of the other (four actor
--    types, nine entity types), merged in id order.
--  - A campaign's own records are found by changes_entity, and only what
--    lies under it by changes_campaign (the same for an ad group and
--    changes_ad_group): the filter by campaign merges the two ranges. A
--    campaign's record, the commonest, goes into five indexes, not seven;
--    an ad group's into six, not eight; a keyword's into seven.
-- Built under new names before the old ones are dropped, so that the
-- table is closed to reads only at the end. Not CONCURRENTLY: goose runs a
-- migration in a transaction, as every other one here.
CREATE INDEX changes_kind ON changes (account_id, environment, entity_type, actor_type, id);
CREATE INDEX changes_campaign_under ON changes (campaign_id, id)
    WHERE campaign_id IS NOT NULL AND campaign_id <> entity_id;
CREATE INDEX changes_ad_group_under ON changes (ad_group_id, id)
    WHERE ad_group_id IS NOT NULL AND ad_group_id <> entity_id;
DROP INDEX changes_type, changes_actor_type, changes_campaign, changes_ad_group;
ALTER INDEX changes_campaign_under RENAME TO changes_campaign;
ALTER INDEX changes_ad_group_under RENAME TO changes_ad_group;

-- +goose Down
CREATE INDEX changes_type ON changes (account_id, environment, entity_type, id);
CREATE INDEX changes_actor_type ON changes (account_id, environment, actor_type, id);
CREATE INDEX changes_campaign_all ON changes (campaign_id, id) WHERE campaign_id IS NOT NULL;
CREATE INDEX changes_ad_group_all ON changes (ad_group_id, id) WHERE ad_group_id IS NOT NULL;
DROP INDEX changes_kind, changes_campaign, changes_ad_group;
ALTER INDEX changes_campaign_all RENAME TO changes_campaign;
ALTER INDEX changes_ad_group_all RENAME TO changes_ad_group;
