-- +goose Up
-- Locks: ACCESS EXCLUSIVE on delivery_hours and delivery_days for a
--   moment: a storage parameter only, no row is rewritten.
-- Room in each page for the next version of its rows, so that a delivery
-- row replaced by a correction or a running total (and its day's rows in
-- delivery_days) is updated in its page, touching no index (a HOT
-- update): with full pages each of the four indexes of delivery_hours
-- took a new entry per row, most of a 10,000-row request's time
-- (bench/notes/2026-11-27-operator-speed.md). Pages written from now on
-- keep the room; those of before fill up as they are.
-- SQLite's 00038 does nothing (a row updated in place there touches no
-- index whose columns it keeps).
ALTER TABLE delivery_hours SET (fillfactor = 70);
ALTER TABLE delivery_days SET (fillfactor = 70);

-- +goose Down
ALTER TABLE delivery_days RESET (fillfactor);
ALTER TABLE delivery_hours RESET (fillfactor);
