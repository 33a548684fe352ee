-- +goose Up
-- Locks: ACCESS EXCLUSIVE on delivery_hours and delivery_days for a
--   moment: a storage parameter only, no row is rewritten.
-- Room in each page for the next version of its rows, so that a delivery
-- row replaced by a running total or a correction, and the day rows it
-- moves in delivery_days, are updated in their page, touching no index
-- (a HOT update): with full pages every index of delivery_hours (four)
-- and of delivery_days (two) took a new entry for each row of each
-- delivery request (bench/notes/2026-11-27-operator-speed.md). Pages
-- written from now on keep the room; those written before fill up as
-- they are. SQLite has no such setting (a row it updates in place
-- touches no index whose columns stay).
ALTER TABLE delivery_hours SET (fillfactor = 70);
ALTER TABLE delivery_days SET (fillfactor = 70);

-- +goose Down
ALTER TABLE delivery_days RESET (fillfactor);
ALTER TABLE delivery_hours RESET (fillfactor);
