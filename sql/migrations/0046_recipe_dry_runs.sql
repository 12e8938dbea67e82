-- Dry runs of the recipe studio: a person runs one workspace recipe on one phone, straight through or a step at a
-- time, and keeps a trace of every step (its screenshot, the UI tree it read, the node it matched, what it did, its
-- verdict and time). At most one dry run is under way per phone; while it is, the dispatcher hands the phone no task.
-- Frames are stored objects and trees are kept here with their size, both counted in the workspace's storage quota;
-- traces go with the workspace's screenshot retention.
CREATE TABLE recipe_dry_runs (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  recipe_row_id    uuid NOT NULL REFERENCES workspace_recipes (id) ON DELETE CASCADE,
  recipe_id        text NOT NULL,
  recipe_version   integer NOT NULL,
  recipe_name      text NOT NULL DEFAULT '',
  device_id        uuid REFERENCES devices (id) ON DELETE SET NULL,
  started_by_id    uuid REFERENCES users (id) ON DELETE SET NULL,
  account_id       uuid REFERENCES accounts (id) ON DELETE SET NULL,
  mode             text NOT NULL CHECK (mode IN ('straight', 'step')),
  effects          boolean NOT NULL,
  status           text NOT NULL DEFAULT 'starting' CHECK (status IN ('starting', 'running', 'passed', 'failed', 'stopped')),
  failure_code     text,
  failure_message  text,
  app_package      text,
  app_version      text,
  locale           text,
  actions          jsonb NOT NULL DEFAULT '{}',
  steps            integer NOT NULL DEFAULT 0,
  started_at       timestamptz(3) NOT NULL DEFAULT now(),
  -- The last sign of life (the start, a step): the sweep ends a run that has been silent too long.
  heard_at         timestamptz(3) NOT NULL DEFAULT now(),
  finished_at      timestamptz(3),
  -- A pass that added the app version to the versions the workspace verified the recipe on.
  verified         boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX recipe_dry_runs_one_per_phone ON recipe_dry_runs (device_id) WHERE status IN ('starting', 'running');
CREATE INDEX recipe_dry_runs_recipe_idx ON recipe_dry_runs (workspace_id, recipe_row_id, started_at DESC);
CREATE INDEX recipe_dry_runs_started_idx ON recipe_dry_runs (started_at);

CREATE TABLE recipe_trace_steps (
  dry_run_id    uuid NOT NULL REFERENCES recipe_dry_runs (id) ON DELETE CASCADE,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  seq           integer NOT NULL,
  path          text NOT NULL,
  "do"          text NOT NULL,
  label         text NOT NULL DEFAULT '',
  verdict       text NOT NULL CHECK (verdict IN ('done', 'skipped', 'failed', 'stopped')),
  detail        text,
  selector      jsonb,
  matched       jsonb,
  point         jsonb,
  action        text,
  ms            integer NOT NULL DEFAULT 0,
  frame_key     text,
  frame_mime    text,
  frame_size    integer NOT NULL DEFAULT 0,
  frame_width   integer,
  frame_height  integer,
  tree          jsonb,
  tree_bytes    integer NOT NULL DEFAULT 0,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (dry_run_id, seq)
);
CREATE INDEX recipe_trace_steps_workspace_idx ON recipe_trace_steps (workspace_id);
