-- The fleet's size and how much of it is connected, per workspace and status, without counting the phones on every
-- read (the stat cards read every row of a 2,000-phone farm for two numbers). Like the task tallies (0024): each
-- change appends its net effect in its own transaction, so the sums are exact once it commits, and tasks.tally folds
-- the rows. A row trigger that fires only when a phone's status or workspace changes, so a heartbeat that changes
-- neither (nearly all of them) costs nothing here.

CREATE TABLE device_tallies (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  status text NOT NULL,
  n integer NOT NULL
);
CREATE INDEX device_tallies_idx ON device_tallies (workspace_id);

INSERT INTO device_tallies (workspace_id, status, n) SELECT workspace_id, status, count(*) FROM devices GROUP BY 1, 2;

-- A workspace being deleted takes its tallies with it: its phones' deletion adds nothing back.
CREATE FUNCTION tally_device() RETURNS trigger AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND EXISTS (SELECT 1 FROM workspaces w WHERE w.id = OLD.workspace_id) THEN
    INSERT INTO device_tallies (workspace_id, status, n) VALUES (OLD.workspace_id, OLD.status, -1);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO device_tallies (workspace_id, status, n) VALUES (NEW.workspace_id, NEW.status, 1);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER devices_tally_insert AFTER INSERT ON devices FOR EACH ROW EXECUTE FUNCTION tally_device();
CREATE TRIGGER devices_tally_update AFTER UPDATE OF status, workspace_id ON devices
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.workspace_id IS DISTINCT FROM NEW.workspace_id)
  EXECUTE FUNCTION tally_device();
CREATE TRIGGER devices_tally_delete AFTER DELETE ON devices FOR EACH ROW EXECUTE FUNCTION tally_device();
