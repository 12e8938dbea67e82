-- Day rows beside the quarter-hour rows of 0027, so a window of days sums a few rows per day instead of 96 per day
-- and status (a 90-day window read 35,000 rows; it now reads a few hundred). Days are UTC days: a zone's day that
-- does not start at UTC midnight sums the day rows inside it and the quarter-hours of its ends, and the functions
-- still count the tasks themselves only in ends that are not whole quarter-hours, so every window stays exact.
-- Changes append their net effect here in the same statement triggers as the quarter-hours; tasks.tally folds both.

CREATE TABLE task_created_days (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  day timestamptz NOT NULL,
  status text NOT NULL,
  n integer NOT NULL
);
CREATE INDEX task_created_days_idx ON task_created_days (workspace_id, day);

CREATE TABLE task_finished_days (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  day timestamptz NOT NULL,
  status text NOT NULL,
  type text NOT NULL,
  n integer NOT NULL
);
CREATE INDEX task_finished_days_idx ON task_finished_days (workspace_id, day);

-- The UTC midnight at or before `at` (a day is 24 hours here, whatever the session's zone).
CREATE FUNCTION task_day(at timestamptz) RETURNS timestamptz AS $$
  SELECT date_bin('1 day', at, timestamptz '2000-01-01 00:00:00+00')
$$ LANGUAGE sql IMMUTABLE PARALLEL SAFE;

INSERT INTO task_created_days (workspace_id, day, status, n)
SELECT workspace_id, task_day(created_at), status, count(*) FROM tasks GROUP BY 1, 2, 3;
INSERT INTO task_finished_days (workspace_id, day, status, type, n)
SELECT workspace_id, task_day(completed_at), status, type, count(*) FROM tasks
WHERE status IN ('completed', 'failed') AND completed_at IS NOT NULL GROUP BY 1, 2, 3, 4;

-- The trigger functions of 0027, each now appending to the day rows as well: one statement per pair of rollups, so
-- the transition table is read once for both.
CREATE OR REPLACE FUNCTION roll_up_inserted_tasks() RETURNS trigger AS $$
BEGIN
  WITH c AS (SELECT t.workspace_id, t.created_at, t.status FROM added t),
       quarters AS (
         INSERT INTO task_created_counts (workspace_id, at, status, n)
         SELECT workspace_id, task_quarter(created_at), status, count(*) FROM c GROUP BY 1, 2, 3)
  INSERT INTO task_created_days (workspace_id, day, status, n)
  SELECT workspace_id, task_day(created_at), status, count(*) FROM c GROUP BY 1, 2, 3;
  WITH c AS (
         SELECT t.workspace_id, t.completed_at, t.status, t.type FROM added t
         WHERE t.status IN ('completed', 'failed') AND t.completed_at IS NOT NULL),
       quarters AS (
         INSERT INTO task_finished_counts (workspace_id, at, status, type, n)
         SELECT workspace_id, task_quarter(completed_at), status, type, count(*) FROM c GROUP BY 1, 2, 3, 4)
  INSERT INTO task_finished_days (workspace_id, day, status, type, n)
  SELECT workspace_id, task_day(completed_at), status, type, count(*) FROM c GROUP BY 1, 2, 3, 4;
  INSERT INTO task_worker_counts (workspace_id, device_id, assigned_to_id, status, n)
  SELECT t.workspace_id, t.device_id, t.assigned_to_id, t.status, count(*) FROM added t GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION roll_up_updated_tasks() RETURNS trigger AS $$
BEGIN
  -- Most updates (a lease, a progress note) change nothing counted here: they leave without writing.
  IF NOT EXISTS (
    SELECT workspace_id, created_at, completed_at, status, type, device_id, assigned_to_id FROM added
    EXCEPT ALL
    SELECT workspace_id, created_at, completed_at, status, type, device_id, assigned_to_id FROM removed
  ) THEN
    RETURN NULL;
  END IF;
  WITH c AS (SELECT workspace_id, created_at, status, 1 AS n FROM added UNION ALL SELECT workspace_id, created_at, status, -1 FROM removed),
       quarters AS (
         INSERT INTO task_created_counts (workspace_id, at, status, n)
         SELECT workspace_id, task_quarter(created_at), status, sum(n) FROM c GROUP BY 1, 2, 3 HAVING sum(n) <> 0)
  INSERT INTO task_created_days (workspace_id, day, status, n)
  SELECT workspace_id, task_day(created_at), status, sum(n) FROM c GROUP BY 1, 2, 3 HAVING sum(n) <> 0;
  WITH c AS (
         SELECT * FROM (
           SELECT workspace_id, completed_at, status, type, 1 AS n FROM added
           UNION ALL SELECT workspace_id, completed_at, status, type, -1 FROM removed) u
         WHERE u.status IN ('completed', 'failed') AND u.completed_at IS NOT NULL),
       quarters AS (
         INSERT INTO task_finished_counts (workspace_id, at, status, type, n)
         SELECT workspace_id, task_quarter(completed_at), status, type, sum(n) FROM c GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0)
  INSERT INTO task_finished_days (workspace_id, day, status, type, n)
  SELECT workspace_id, task_day(completed_at), status, type, sum(n) FROM c GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0;
  INSERT INTO task_worker_counts (workspace_id, device_id, assigned_to_id, status, n)
  SELECT c.workspace_id, c.device_id, c.assigned_to_id, c.status, sum(c.n)
  FROM (SELECT workspace_id, device_id, assigned_to_id, status, 1 AS n FROM added
        UNION ALL SELECT workspace_id, device_id, assigned_to_id, status, -1 FROM removed) c
  GROUP BY 1, 2, 3, 4 HAVING sum(c.n) <> 0;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- A workspace being deleted takes its rollups with it: its tasks' deletion adds nothing back.
CREATE OR REPLACE FUNCTION roll_up_deleted_tasks() RETURNS trigger AS $$
BEGIN
  WITH c AS (SELECT t.workspace_id, t.created_at, t.status FROM removed t WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = t.workspace_id)),
       quarters AS (
         INSERT INTO task_created_counts (workspace_id, at, status, n)
         SELECT workspace_id, task_quarter(created_at), status, -count(*) FROM c GROUP BY 1, 2, 3)
  INSERT INTO task_created_days (workspace_id, day, status, n)
  SELECT workspace_id, task_day(created_at), status, -count(*) FROM c GROUP BY 1, 2, 3;
  WITH c AS (
         SELECT t.workspace_id, t.completed_at, t.status, t.type FROM removed t
         WHERE t.status IN ('completed', 'failed') AND t.completed_at IS NOT NULL
           AND EXISTS (SELECT 1 FROM workspaces w WHERE w.id = t.workspace_id)),
       quarters AS (
         INSERT INTO task_finished_counts (workspace_id, at, status, type, n)
         SELECT workspace_id, task_quarter(completed_at), status, type, -count(*) FROM c GROUP BY 1, 2, 3, 4)
  INSERT INTO task_finished_days (workspace_id, day, status, type, n)
  SELECT workspace_id, task_day(completed_at), status, type, -count(*) FROM c GROUP BY 1, 2, 3, 4;
  INSERT INTO task_worker_counts (workspace_id, device_id, assigned_to_id, status, n)
  SELECT t.workspace_id, t.device_id, t.assigned_to_id, t.status, -count(*) FROM removed t
  WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = t.workspace_id) GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- Tasks created in [lo_at, hi_at), per status: the day rows of the whole UTC days inside the window, the quarter-hour
-- rows of the whole quarter-hours around them, and the tasks themselves in the uneven ends (none when the window
-- starts and ends on quarter-hours). Each part is empty when its bounds cross (a window inside one day or quarter).
-- PL/pgSQL with a generic plan: a connection plans the five parts once and afterwards only runs them. As a SQL
-- function it was inlined into each caller and planned again on every call for its values, which cost more than
-- running it (the stat cards' statement: 2.0 ms a call, 1.0 ms on a generic plan).
CREATE OR REPLACE FUNCTION tasks_created_between(ws uuid, lo_at timestamptz, hi_at timestamptz)
RETURNS TABLE (status text, n bigint)
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
  RETURN QUERY
  WITH q AS (
    SELECT CASE WHEN task_quarter(lo_at) = lo_at THEN lo_at ELSE task_quarter(lo_at) + interval '15 minutes' END AS lo,
           task_quarter(hi_at) AS hi
  ), d AS (
    SELECT CASE WHEN task_day(q.lo) = q.lo THEN q.lo ELSE task_day(q.lo) + interval '24 hours' END AS lo, task_day(q.hi) AS hi FROM q
  )
  SELECT c.status, sum(c.n)::bigint FROM (
    SELECT r.status, r.n FROM task_created_days r, d WHERE r.workspace_id = ws AND r.day >= d.lo AND r.day < d.hi
    UNION ALL
    SELECT r.status, r.n FROM task_created_counts r, q, d WHERE r.workspace_id = ws AND r.at >= q.lo AND r.at < least(d.lo, q.hi)
    UNION ALL
    SELECT r.status, r.n FROM task_created_counts r, q, d WHERE r.workspace_id = ws AND r.at >= greatest(d.hi, d.lo) AND r.at < q.hi
    UNION ALL
    SELECT t.status, 1 FROM tasks t, q WHERE t.workspace_id = ws AND t.created_at >= lo_at AND t.created_at < least(q.lo, hi_at)
    UNION ALL
    SELECT t.status, 1 FROM tasks t, q WHERE t.workspace_id = ws AND t.created_at >= greatest(q.hi, q.lo) AND t.created_at < hi_at
  ) c
  GROUP BY c.status
  HAVING sum(c.n) <> 0;
END;
$$ LANGUAGE plpgsql STABLE;

-- Tasks completed or failed in [lo_at, hi_at) by their completion time, per status and type, the same way.
CREATE OR REPLACE FUNCTION tasks_finished_between(ws uuid, lo_at timestamptz, hi_at timestamptz)
RETURNS TABLE (status text, type text, n bigint)
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
  RETURN QUERY
  WITH q AS (
    SELECT CASE WHEN task_quarter(lo_at) = lo_at THEN lo_at ELSE task_quarter(lo_at) + interval '15 minutes' END AS lo,
           task_quarter(hi_at) AS hi
  ), d AS (
    SELECT CASE WHEN task_day(q.lo) = q.lo THEN q.lo ELSE task_day(q.lo) + interval '24 hours' END AS lo, task_day(q.hi) AS hi FROM q
  )
  SELECT c.status, c.type, sum(c.n)::bigint FROM (
    SELECT r.status, r.type, r.n FROM task_finished_days r, d WHERE r.workspace_id = ws AND r.day >= d.lo AND r.day < d.hi
    UNION ALL
    SELECT r.status, r.type, r.n FROM task_finished_counts r, q, d
    WHERE r.workspace_id = ws AND r.at >= q.lo AND r.at < least(d.lo, q.hi)
    UNION ALL
    SELECT r.status, r.type, r.n FROM task_finished_counts r, q, d
    WHERE r.workspace_id = ws AND r.at >= greatest(d.hi, d.lo) AND r.at < q.hi
    UNION ALL
    SELECT t.status, t.type, 1 FROM tasks t, q
    WHERE t.workspace_id = ws AND t.status IN ('completed', 'failed') AND t.completed_at >= lo_at AND t.completed_at < least(q.lo, hi_at)
    UNION ALL
    SELECT t.status, t.type, 1 FROM tasks t, q
    WHERE t.workspace_id = ws AND t.status IN ('completed', 'failed') AND t.completed_at >= greatest(q.hi, q.lo) AND t.completed_at < hi_at
  ) c
  GROUP BY c.status, c.type
  HAVING sum(c.n) <> 0;
END;
$$ LANGUAGE plpgsql STABLE;
