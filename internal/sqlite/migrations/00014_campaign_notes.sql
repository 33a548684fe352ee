-- +goose Up
-- Locks: the database's write lock, briefly: a column with a constant
--   default rewrites no row.
-- A campaign's notes: the account holder's own free text, '' when none
-- (the API shows null). Adding a column with a constant default rewrites
-- no row.
ALTER TABLE campaigns ADD COLUMN notes TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE campaigns DROP COLUMN notes;
