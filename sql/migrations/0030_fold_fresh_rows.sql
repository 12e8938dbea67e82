-- A fold rewrote every row of every tally and rollup each time it ran (every 30 s), changed or not: a farm's
-- quarter-hour rows alone are ~35,000 per workspace over 90 days, each rewritten twice a minute, leaving as many dead
-- rows for vacuum and slowing the reads that scan them. Rows appended by a change are now marked fresh (the column's
-- default: the triggers do not name it), a fold writes its sums as not fresh, and a fold touches only the keys that
-- have a fresh row. A partial index finds those few.

ALTER TABLE task_tallies ADD COLUMN fresh boolean NOT NULL DEFAULT true;
ALTER TABLE task_created_counts ADD COLUMN fresh boolean NOT NULL DEFAULT true;
ALTER TABLE task_finished_counts ADD COLUMN fresh boolean NOT NULL DEFAULT true;
ALTER TABLE task_worker_counts ADD COLUMN fresh boolean NOT NULL DEFAULT true;
ALTER TABLE task_created_days ADD COLUMN fresh boolean NOT NULL DEFAULT true;
ALTER TABLE task_finished_days ADD COLUMN fresh boolean NOT NULL DEFAULT true;
ALTER TABLE device_tallies ADD COLUMN fresh boolean NOT NULL DEFAULT true;

CREATE INDEX task_tallies_fresh_idx ON task_tallies (workspace_id) WHERE fresh;
CREATE INDEX task_created_counts_fresh_idx ON task_created_counts (workspace_id) WHERE fresh;
CREATE INDEX task_finished_counts_fresh_idx ON task_finished_counts (workspace_id) WHERE fresh;
CREATE INDEX task_worker_counts_fresh_idx ON task_worker_counts (workspace_id) WHERE fresh;
CREATE INDEX task_created_days_fresh_idx ON task_created_days (workspace_id) WHERE fresh;
CREATE INDEX task_finished_days_fresh_idx ON task_finished_days (workspace_id) WHERE fresh;
CREATE INDEX device_tallies_fresh_idx ON device_tallies (workspace_id) WHERE fresh;

-- The phone and VA rollup is looked up by its key when folded; a phone or VA may be none (null), which the fold
-- compares as the nil UUID.
CREATE INDEX task_worker_counts_key_idx ON task_worker_counts
  (workspace_id, coalesce(device_id, '00000000-0000-0000-0000-000000000000'::uuid), status);
