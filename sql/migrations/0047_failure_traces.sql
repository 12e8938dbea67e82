-- A failed run's evidence (the recipe studio): the step a real (dispatched) run failed on, as its phone sent it in the
-- result's `failure.trace` — the selector that missed, what it matched or touched, the screen's frame (a stored object,
-- counted in the workspace's storage quota) and its UI tree (kept here, its size counted in the quota too). One row per
-- attempt: a result sent again, or two copies racing, keep the first. Kept with the workspace's screenshot retention
-- (the retention job removes the row with its frame) and gone with its task.
CREATE TABLE task_failure_traces (
  task_id         uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  attempt         integer NOT NULL,
  workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  device_id       uuid REFERENCES devices (id) ON DELETE SET NULL,
  recipe_id       text,
  recipe_version  integer,
  package         text,
  app_version     text,
  seq             integer NOT NULL,
  step_path       text NOT NULL,
  label           text NOT NULL,
  "do"            text NOT NULL,
  detail          text,
  selector        jsonb,
  matched         jsonb,
  point           jsonb,
  ms              integer NOT NULL DEFAULT 0,
  frame_key       text REFERENCES stored_objects (key) ON DELETE SET NULL,
  frame_size      integer,
  frame_width     integer,
  frame_height    integer,
  tree            text,
  tree_bytes      integer NOT NULL DEFAULT 0,
  -- Why the frame and tree were not kept (the workspace's storage was full), in a sentence; null when they were.
  dropped         text,
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (task_id, attempt)
);
CREATE INDEX task_failure_traces_workspace_idx ON task_failure_traces (workspace_id, created_at);
CREATE INDEX task_failure_traces_device_idx ON task_failure_traces (device_id);
CREATE INDEX task_failure_traces_frame_idx ON task_failure_traces (frame_key) WHERE frame_key IS NOT NULL;
