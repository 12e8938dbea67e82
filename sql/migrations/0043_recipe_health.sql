-- The recipe health board (Settings → Recipes, GET /api/recipes/health): each recipe's runs per app version, counted
-- once when the phone's result for an attempt is first recorded, and kept per day so a 90-day window reads a few rows
-- per recipe and version instead of every attempt.

-- The run behind an attempt, as the phone said it (agents that say nothing leave these null): the recipe and its
-- version, the app it drove ('' when the run ended before the pre-flight read it) and how long it ran. A failed
-- attempt's row is the evidence the board lists under "last failures".
ALTER TABLE task_attempts ADD COLUMN recipe_id text;
ALTER TABLE task_attempts ADD COLUMN recipe_version integer;
ALTER TABLE task_attempts ADD COLUMN app_package text;
ALTER TABLE task_attempts ADD COLUMN app_version text;
ALTER TABLE task_attempts ADD COLUMN run_ms integer;
CREATE INDEX task_attempts_recipe_failures_idx ON task_attempts (workspace_id, recipe_id, app_package, app_version, ended_at DESC)
  WHERE outcome = 'failed' AND recipe_id IS NOT NULL;

-- Runs per workspace day (the date in the workspace's time zone when the result arrived), recipe and app version.
-- `failure_codes` is {code: n}; `duration_buckets` counts timed runs per duration bucket (the bounds are the
-- workers' RUN_MS_BOUNDS: under 2 s, 5 s, 10 s, 20 s, 30 s, 1 min, 2 min, 5 min, 10 min, 20 min, 30 min, 1 h, 2 h,
-- and longer), from which the median is estimated; `timed_runs` counts the runs that said their duration.
CREATE TABLE recipe_runs_daily (
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  day              date NOT NULL,
  recipe_id        text NOT NULL,
  package          text NOT NULL,
  app_version      text NOT NULL,
  runs             integer NOT NULL DEFAULT 0,
  succeeded        integer NOT NULL DEFAULT 0,
  failed           integer NOT NULL DEFAULT 0,
  failure_codes    jsonb NOT NULL DEFAULT '{}'::jsonb,
  timed_runs       integer NOT NULL DEFAULT 0,
  duration_ms_sum  bigint NOT NULL DEFAULT 0,
  duration_buckets integer[] NOT NULL DEFAULT '{0,0,0,0,0,0,0,0,0,0,0,0,0,0}',
  PRIMARY KEY (workspace_id, day, recipe_id, package, app_version)
);

-- The phones each recipe and app version ran on, per day: a set, written once per phone and day.
CREATE TABLE recipe_run_devices (
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  day           date NOT NULL,
  recipe_id     text NOT NULL,
  package       text NOT NULL,
  app_version   text NOT NULL,
  device_id     uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  PRIMARY KEY (workspace_id, day, recipe_id, package, app_version, device_id)
);
CREATE INDEX recipe_run_devices_device_idx ON recipe_run_devices (device_id);
-- Retention drops days past the board's longest range, across workspaces.
CREATE INDEX recipe_run_devices_day_idx ON recipe_run_devices (day);
