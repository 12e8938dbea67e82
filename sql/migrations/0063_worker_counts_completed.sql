-- The phone and VA rollup (0027) counted tasks by status, but its one reader, the performance lists, asks only for a
-- phone's (a VA's) tasks and how many of them completed. So every ack, pending to in progress, wrote a row taking the
-- task from one status and a row adding it to the other for each phone in the statement: two rows a task that no read
-- tells apart. The rollup now counts by `completed`, and a change that does not move a task in or out of completed
-- (a lease, an ack, a retry) nets to nothing and writes nothing here.

ALTER TABLE task_worker_counts ADD COLUMN completed boolean NOT NULL DEFAULT false;
-- Rows of the same phone, VA and `completed` are summed by the next fold (0030 folds the keys with a fresh row).
UPDATE task_worker_counts SET completed = (status = 'completed'), fresh = true;
ALTER TABLE task_worker_counts ALTER COLUMN completed DROP DEFAULT;
DROP INDEX task_worker_counts_key_idx;
ALTER TABLE task_worker_counts DROP COLUMN status;
CREATE INDEX task_worker_counts_key_idx ON task_worker_counts
  (workspace_id, coalesce(device_id, '00000000-0000-0000-0000-000000000000'::uuid), completed);

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
  INSERT INTO task_worker_counts (workspace_id, device_id, assigned_to_id, completed, n)
  SELECT t.workspace_id, t.device_id, t.assigned_to_id, t.status = 'completed', count(*) FROM added t GROUP BY 1, 2, 3, 4;
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
  INSERT INTO task_worker_counts (workspace_id, device_id, assigned_to_id, completed, n)
  SELECT c.workspace_id, c.device_id, c.assigned_to_id, c.completed, sum(c.n)
  FROM (SELECT workspace_id, device_id, assigned_to_id, status = 'completed' AS completed, 1 AS n FROM added
        UNION ALL SELECT workspace_id, device_id, assigned_to_id, status = 'completed', -1 AS n FROM removed) c
  GROUP BY 1, 2, 3, 4 HAVING sum(c.n) <> 0;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

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
  INSERT INTO task_worker_counts (workspace_id, device_id, assigned_to_id, completed, n)
  SELECT t.workspace_id, t.device_id, t.assigned_to_id, t.status = 'completed', -count(*) FROM removed t
  WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = t.workspace_id) GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
