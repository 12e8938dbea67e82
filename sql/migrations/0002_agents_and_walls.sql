-- Phone agents: a credential per device, screenshots they send, and leases of the tasks given to them.
-- Wall screens: revocable read-only links to a workspace's live device grid.

CREATE TABLE device_credentials (
  device_id     uuid PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  token_hash    text NOT NULL UNIQUE,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  last_used_at  timestamptz(3)
);

CREATE TABLE screenshots (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  device_id     uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  session_id    uuid REFERENCES sessions (id) ON DELETE SET NULL,
  object_key    text NOT NULL REFERENCES stored_objects (key) ON DELETE CASCADE,
  captured_at   timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX screenshots_device_idx ON screenshots (device_id, captured_at DESC);

-- A task handed to a phone is leased: each hand-over is a new attempt, and a result counts only for the
-- attempt it answers, so a retried dispatch never completes (or publishes) twice.
ALTER TABLE tasks ADD COLUMN attempt integer NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN dispatched_at timestamptz(3);

CREATE TABLE wall_links (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name           text NOT NULL DEFAULT 'Wall screen',
  token_hash     text NOT NULL UNIQUE,
  created_by_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  revoked_at     timestamptz(3)
);
CREATE INDEX wall_links_workspace_idx ON wall_links (workspace_id, created_at DESC);
