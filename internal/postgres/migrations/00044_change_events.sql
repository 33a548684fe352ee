-- +goose Up
-- Locks: changes, ACCESS EXCLUSIVE for a moment (a column without a
--   default: no row is rewritten).
-- As SQLite's 00044: a change record whose
-- webhook event is the record carries the event's type; GET /events
-- answers those from the history, and the dispatcher stores an event only
-- when an enabled endpoint takes it.
ALTER TABLE changes ADD COLUMN event_type TEXT;

-- +goose Down
ALTER TABLE changes DROP COLUMN event_type;
