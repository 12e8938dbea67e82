-- Heartbeats rewrite every connected phone's row every few seconds (battery, last_seen_at, and the answer of 0025).
-- With last_seen_at indexed, each rewrite added an entry to all seven indexes of devices; without it, a heartbeat that
-- leaves the phone's status as it was changes no indexed column and PostgreSQL keeps the new version on the same page
-- (a HOT update) without touching any index — if the page has room, hence the fill factor. The devices watchdog, the
-- index's only reader, scans the table every 5 s instead (about 2 ms at 10,000 phones).

DROP INDEX devices_seen_idx;
ALTER TABLE devices SET (fillfactor = 70);
