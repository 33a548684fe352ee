-- +goose Up
-- Locks: one row of instance_settings, for a moment.
-- The serving feed carries negative keywords and campaigns' attached lists
-- as records of their own (issue 35; SQLite's 00037 says why): every
-- position given until now answers 410 POSITION_EXPIRED. A position is a
-- horizon of transaction ids: those given before this transaction
-- commits are at most its id. Only where the feed was used: a transaction
-- older than this one, still running on the server, holds positions back
-- below it for its while (a fresh snapshot's position would answer 410
-- until it ends), which a new database need not suffer.
INSERT INTO instance_settings (name, value)
SELECT 'serving_feed.purged', convert_to((pg_current_xact_id()::text::bigint + 1)::text, 'UTF8')
WHERE EXISTS (SELECT 1 FROM serving_feed)
ON CONFLICT (name) DO UPDATE SET value = excluded.value;

-- +goose Down
-- Positions are not given back: nothing to undo.
SELECT 1;
