-- How many tasks a workspace has in each status, without counting them on every read (the Tasks tabs, the dashboard's
-- totals). Every statement that changes tasks appends its net effect per workspace and status, in its own transaction,
-- so a count is exact the moment the change commits. Appending means writers never wait on a shared counter row (a
-- busy farm changes hundreds of tasks a second); the tasks.tally job folds the rows into one per workspace and status.

CREATE TABLE task_tallies (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  status text NOT NULL,
  n integer NOT NULL
);
CREATE INDEX task_tallies_workspace_idx ON task_tallies (workspace_id);

INSERT INTO task_tallies (workspace_id, status, n)
SELECT workspace_id, status, count(*) FROM tasks GROUP BY workspace_id, status;

-- A workspace being deleted takes its tallies with it: its tasks' deletion adds nothing back.
CREATE OR REPLACE FUNCTION tally_inserted_tasks() RETURNS trigger AS $$
BEGIN
  INSERT INTO task_tallies (workspace_id, status, n)
  SELECT t.workspace_id, t.status, count(*) FROM added t GROUP BY t.workspace_id, t.status;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION tally_updated_tasks() RETURNS trigger AS $$
BEGIN
  INSERT INTO task_tallies (workspace_id, status, n)
  SELECT c.workspace_id, c.status, sum(c.n)
  FROM (SELECT workspace_id, status, 1 AS n FROM added UNION ALL SELECT workspace_id, status, -1 AS n FROM removed) c
  GROUP BY c.workspace_id, c.status
  HAVING sum(c.n) <> 0;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION tally_deleted_tasks() RETURNS trigger AS $$
BEGIN
  INSERT INTO task_tallies (workspace_id, status, n)
  SELECT t.workspace_id, t.status, -count(*) FROM removed t
  WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = t.workspace_id)
  GROUP BY t.workspace_id, t.status;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER tasks_tally_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION tally_inserted_tasks();
CREATE TRIGGER tasks_tally_update AFTER UPDATE ON tasks REFERENCING OLD TABLE AS removed NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION tally_updated_tasks();
CREATE TRIGGER tasks_tally_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION tally_deleted_tasks();
