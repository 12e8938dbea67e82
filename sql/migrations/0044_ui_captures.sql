-- Inspect's saved captures (the recipe studio): a screen's UI tree and its frame, named by the person, per app
-- package, version and language, to compare selectors across app updates. The frame is a stored object (counted in
-- the workspace's storage quota with the rest); the tree is kept here and its size counted in the quota too.
CREATE TABLE ui_captures (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  device_id      uuid REFERENCES devices (id) ON DELETE SET NULL,
  created_by_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  screen_name    text NOT NULL,
  package        text NOT NULL DEFAULT '',
  app_version    text NOT NULL DEFAULT '',
  locale         text NOT NULL DEFAULT '',
  tree           jsonb NOT NULL,
  tree_bytes     integer NOT NULL,
  frame_key      text NOT NULL,
  width          integer NOT NULL,
  height         integer NOT NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX ui_captures_screen_idx ON ui_captures (workspace_id, package, lower(screen_name), created_at DESC);
