-- Which app versions a recipe covers, and the breaker that stops a broken one across the fleet.

-- Settings → Recipes: let shipped templates run on app versions no one verified (off: such runs fail
-- app_version_untested on the phone).
ALTER TABLE workspaces ADD COLUMN try_untested_templates boolean NOT NULL DEFAULT false;

-- App versions a workspace verified a recipe on (a passing dry run, or a person's word): they add to the recipe's
-- own tested range.
CREATE TABLE recipe_verifications (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  recipe_id     text NOT NULL,
  package       text NOT NULL,
  app_version   text NOT NULL,
  locale        text NOT NULL DEFAULT '',
  source        text NOT NULL CHECK (source IN ('dry_run', 'person')),
  verified_by   uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, recipe_id, package, app_version, locale)
);

-- Each run of a recipe that ended app_changed: the breaker counts distinct phones per recipe and app version.
CREATE TABLE recipe_failures (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  recipe_id     text NOT NULL,
  package       text NOT NULL,
  app_version   text NOT NULL,
  device_id     uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  task_id       uuid REFERENCES tasks (id) ON DELETE SET NULL,
  at            timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX recipe_failures_window_idx ON recipe_failures (workspace_id, recipe_id, package, app_version, at);

-- A recipe paused for one app version after it broke on several phones. Turning it back on keeps the row (paused
-- false) and moves counted_from, so earlier failures no longer count.
CREATE TABLE recipe_breakers (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  recipe_id     text NOT NULL,
  recipe_name   text NOT NULL,
  platform      text NOT NULL,
  routines      text[] NOT NULL,
  package       text NOT NULL,
  app_version   text NOT NULL,
  paused        boolean NOT NULL DEFAULT true,
  phones        integer NOT NULL DEFAULT 0,
  tripped_at    timestamptz(3) NOT NULL DEFAULT now(),
  counted_from  timestamptz(3) NOT NULL DEFAULT '-infinity',
  resumed_at    timestamptz(3),
  resumed_by    uuid REFERENCES users (id) ON DELETE SET NULL,
  UNIQUE (workspace_id, recipe_id, package, app_version)
);
CREATE INDEX recipe_breakers_paused_idx ON recipe_breakers (workspace_id) WHERE paused;

-- A stored workspace recipe the current schema refuses: turned off with the field and the reason, never dropped.
ALTER TABLE workspace_recipes ADD COLUMN invalid_field text;
ALTER TABLE workspace_recipes ADD COLUMN invalid_reason text;
