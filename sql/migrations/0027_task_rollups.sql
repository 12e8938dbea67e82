-- The analytics page's task figures without counting the window's tasks on every read. Like the tallies (0024), every
-- statement that changes tasks appends its net effect, in its own transaction, so a figure is exact the moment the
-- change commits; the tasks.tally job folds the rows. Three rollups, each for the reads that sum it:
--   task_created_counts   tasks per workspace, quarter-hour of creation and status (the stat cards' totals);
--   task_finished_counts  completed and failed tasks per workspace, quarter-hour of completion, status and type
--                         (the tasks and engagement series);
--   task_worker_counts    tasks per workspace, phone, VA and status, of all time (the performance lists).
-- Quarter-hours: every window the page asks for starts and ends on a zone's hour or midnight, and every zone in use is
-- a whole number of quarter-hours from UTC (+05:30, +05:45, -03:30). A window that is not (a zone's old local mean
-- time, a range ending now) counts its uneven ends from the tasks themselves: the functions below are exact for any
-- window.

CREATE TABLE task_created_counts (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  status text NOT NULL,
  n integer NOT NULL
);
CREATE INDEX task_created_counts_idx ON task_created_counts (workspace_id, at);

CREATE TABLE task_finished_counts (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  status text NOT NULL,
  type text NOT NULL,
  n integer NOT NULL
);
CREATE INDEX task_finished_counts_idx ON task_finished_counts (workspace_id, at);

-- No foreign keys to phones or people: a phone or VA deleted sets the tasks' column to null, and that update moves
-- the counts here too.
CREATE TABLE task_worker_counts (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  device_id uuid,
  assigned_to_id uuid,
  status text NOT NULL,
  n integer NOT NULL
);
CREATE INDEX task_worker_counts_idx ON task_worker_counts (workspace_id);

CREATE FUNCTION task_quarter(at timestamptz) RETURNS timestamptz AS $$
  SELECT date_bin('15 minutes', at, timestamptz '2000-01-01 00:00:00+00')
$$ LANGUAGE sql IMMUTABLE PARALLEL SAFE;

INSERT INTO task_created_counts (workspace_id, at, status, n)
SELECT workspace_id, task_quarter(created_at), status, count(*) FROM tasks GROUP BY 1, 2, 3;
INSERT INTO task_finished_counts (workspace_id, at, status, type, n)
SELECT workspace_id, task_quarter(completed_at), status, type, count(*) FROM tasks
WHERE status IN ('completed', 'failed') AND completed_at IS NOT NULL GROUP BY 1, 2, 3, 4;
INSERT INTO task_worker_counts (workspace_id, device_id, assigned_to_id, status, n)
SELECT workspace_id, device_id, assigned_to_id, status, count(*) FROM tasks GROUP BY 1, 2, 3, 4;

CREATE FUNCTION roll_up_inserted_tasks() RETURNS trigger AS $$
BEGIN
  INSERT INTO task_created_counts (workspace_id, at, status, n)
  SELECT t.workspace_id, task_quarter(t.created_at), t.status, count(*) FROM added t GROUP BY 1, 2, 3;
  INSERT INTO task_finished_counts (workspace_id, at, status, type, n)
  SELECT t.workspace_id, task_quarter(t.completed_at), t.status, t.type, count(*) FROM added t
  WHERE t.status IN ('completed', 'failed') AND t.completed_at IS NOT NULL GROUP BY 1, 2, 3, 4;
  INSERT INTO task_worker_counts (workspace_id, device_id, assigned_to_id, status, n)
  SELECT t.workspace_id, t.device_id, t.assigned_to_id, t.status, count(*) FROM added t GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION roll_up_updated_tasks() RETURNS trigger AS $$
BEGIN
  -- Most updates (a lease, a progress note) change nothing counted here: they leave without writing.
  IF NOT EXISTS (
    SELECT workspace_id, created_at, completed_at, status, type, device_id, assigned_to_id FROM added
    EXCEPT ALL
    SELECT workspace_id, created_at, completed_at, status, type, device_id, assigned_to_id FROM removed
  ) THEN
    RETURN NULL;
  END IF;
  INSERT INTO task_created_counts (workspace_id, at, status, n)
  SELECT c.workspace_id, task_quarter(c.created_at), c.status, sum(c.n)
  FROM (SELECT workspace_id, created_at, status, 1 AS n FROM added UNION ALL SELECT workspace_id, created_at, status, -1 FROM removed) c
  GROUP BY 1, 2, 3 HAVING sum(c.n) <> 0;
  INSERT INTO task_finished_counts (workspace_id, at, status, type, n)
  SELECT c.workspace_id, task_quarter(c.completed_at), c.status, c.type, sum(c.n)
  FROM (SELECT workspace_id, completed_at, status, type, 1 AS n FROM added
        UNION ALL SELECT workspace_id, completed_at, status, type, -1 FROM removed) c
  WHERE c.status IN ('completed', 'failed') AND c.completed_at IS NOT NULL
  GROUP BY 1, 2, 3, 4 HAVING sum(c.n) <> 0;
  INSERT INTO task_worker_counts (workspace_id, device_id, assigned_to_id, status, n)
  SELECT c.workspace_id, c.device_id, c.assigned_to_id, c.status, sum(c.n)
  FROM (SELECT workspace_id, device_id, assigned_to_id, status, 1 AS n FROM added
        UNION ALL SELECT workspace_id, device_id, assigned_to_id, status, -1 FROM removed) c
  GROUP BY 1, 2, 3, 4 HAVING sum(c.n) <> 0;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- A workspace being deleted takes its rollups with it: its tasks' deletion adds nothing back.
CREATE FUNCTION roll_up_deleted_tasks() RETURNS trigger AS $$
BEGIN
  INSERT INTO task_created_counts (workspace_id, at, status, n)
  SELECT t.workspace_id, task_quarter(t.created_at), t.status, -count(*) FROM removed t
  WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = t.workspace_id) GROUP BY 1, 2, 3;
  INSERT INTO task_finished_counts (workspace_id, at, status, type, n)
  SELECT t.workspace_id, task_quarter(t.completed_at), t.status, t.type, -count(*) FROM removed t
  WHERE t.status IN ('completed', 'failed') AND t.completed_at IS NOT NULL
    AND EXISTS (SELECT 1 FROM workspaces w WHERE w.id = t.workspace_id) GROUP BY 1, 2, 3, 4;
  INSERT INTO task_worker_counts (workspace_id, device_id, assigned_to_id, status, n)
  SELECT t.workspace_id, t.device_id, t.assigned_to_id, t.status, -count(*) FROM removed t
  WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = t.workspace_id) GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER tasks_roll_up_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION roll_up_inserted_tasks();
CREATE TRIGGER tasks_roll_up_update AFTER UPDATE ON tasks REFERENCING OLD TABLE AS removed NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION roll_up_updated_tasks();
CREATE TRIGGER tasks_roll_up_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION roll_up_deleted_tasks();

-- Tasks created in [lo_at, hi_at), per status: the rollup's whole quarter-hours inside the window, and the tasks
-- themselves in the uneven ends (none when the window starts and ends on quarter-hours).
CREATE FUNCTION tasks_created_between(ws uuid, lo_at timestamptz, hi_at timestamptz)
RETURNS TABLE (status text, n bigint) AS $$
  WITH q AS (
    SELECT CASE WHEN task_quarter(lo_at) = lo_at THEN lo_at ELSE task_quarter(lo_at) + interval '15 minutes' END AS lo,
           task_quarter(hi_at) AS hi
  )
  SELECT c.status, sum(c.n)::bigint FROM (
    SELECT r.status, r.n FROM task_created_counts r, q WHERE r.workspace_id = ws AND r.at >= q.lo AND r.at < q.hi
    UNION ALL
    SELECT t.status, 1 FROM tasks t, q WHERE t.workspace_id = ws AND t.created_at >= lo_at AND t.created_at < least(q.lo, hi_at)
    UNION ALL
    SELECT t.status, 1 FROM tasks t, q WHERE t.workspace_id = ws AND t.created_at >= greatest(q.hi, q.lo) AND t.created_at < hi_at
  ) c
  GROUP BY c.status
  HAVING sum(c.n) <> 0
$$ LANGUAGE sql STABLE;

-- Tasks completed or failed in [lo_at, hi_at) by their completion time, per status and type, the same way.
CREATE FUNCTION tasks_finished_between(ws uuid, lo_at timestamptz, hi_at timestamptz)
RETURNS TABLE (status text, type text, n bigint) AS $$
  WITH q AS (
    SELECT CASE WHEN task_quarter(lo_at) = lo_at THEN lo_at ELSE task_quarter(lo_at) + interval '15 minutes' END AS lo,
           task_quarter(hi_at) AS hi
  )
  SELECT c.status, c.type, sum(c.n)::bigint FROM (
    SELECT r.status, r.type, r.n FROM task_finished_counts r, q WHERE r.workspace_id = ws AND r.at >= q.lo AND r.at < q.hi
    UNION ALL
    SELECT t.status, t.type, 1 FROM tasks t, q
    WHERE t.workspace_id = ws AND t.status IN ('completed', 'failed') AND t.completed_at >= lo_at AND t.completed_at < least(q.lo, hi_at)
    UNION ALL
    SELECT t.status, t.type, 1 FROM tasks t, q
    WHERE t.workspace_id = ws AND t.status IN ('completed', 'failed') AND t.completed_at >= greatest(q.hi, q.lo) AND t.completed_at < hi_at
  ) c
  GROUP BY c.status, c.type
  HAVING sum(c.n) <> 0
$$ LANGUAGE sql STABLE;
