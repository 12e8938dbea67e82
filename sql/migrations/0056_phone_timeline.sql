-- A phone whose farm host lost its transport (adb lists it offline, or no more) and waits for it to come back shows
-- "Reconnecting" beside its status (issue #50): since when, until it is back or its connection closes.
ALTER TABLE device_health ADD COLUMN reconnecting_since timestamptz(3);

-- Each phone's timeline (its blips, recovery rungs and reboots) is read from the audit log by device, newest first.
CREATE INDEX audit_log_entity_idx ON audit_log (workspace_id, entity_type, entity_id, created_at DESC, id DESC);
