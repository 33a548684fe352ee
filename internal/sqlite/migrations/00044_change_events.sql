-- +goose Up
-- Locks: the database's write lock, for a moment (a column without a
--   default is added to the schema alone, no row is rewritten).
-- A change record whose webhook event is the record itself carries the
-- event's type (issue 36): GET /events answers those events from the
-- history, and the dispatcher stores an event (webhook_events, with its
-- payload) only when an enabled endpoint takes it, for its deliveries.
-- NULL: the record is no event of its own, or it was written before this
-- migration (its event, if any, was stored whole, or is in the outbox and
-- the dispatcher stores it as before).
ALTER TABLE changes ADD COLUMN event_type TEXT;

-- +goose Down
ALTER TABLE changes DROP COLUMN event_type;
