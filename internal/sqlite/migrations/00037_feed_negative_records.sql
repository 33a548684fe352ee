-- +goose Up
-- Locks: the database's write lock, for a moment: one row of
--   serving_feed written and deleted, one of instance_settings.
-- The serving feed carries negative keywords and campaigns' attached lists
-- as records of their own, and keywords no longer repeat them (issue 35):
-- an ad server that followed the feed before holds keywords without those
-- records, so every position given until now is made to answer 410
-- POSITION_EXPIRED (take a new snapshot). A row written and deleted moves
-- the journal's sequence past every old position; the positions below it
-- are marked purged.
INSERT INTO serving_feed (environment, kind, entity_id, created_at) VALUES ('', 'upgrade', '', 0);
DELETE FROM serving_feed WHERE kind = 'upgrade';
INSERT INTO instance_settings (name, value)
SELECT 'serving_feed.purged', CAST(seq AS TEXT) FROM sqlite_sequence WHERE name = 'serving_feed'
ON CONFLICT (name) DO UPDATE SET value = excluded.value;

-- +goose Down
-- Positions are not given back: nothing to undo.
SELECT 1;
