-- Live screen and remote control: who controls a phone (one person at a time; its tasks wait meanwhile), and every
-- watch and control session, for the usage report and hands-on hours.

ALTER TABLE devices ADD COLUMN controlled_by_id uuid REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE devices ADD COLUMN controlled_by_name text;
ALTER TABLE devices ADD COLUMN controlled_since timestamptz;

CREATE TABLE device_usage (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  device_id uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  user_name text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('watch', 'control')),
  started_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz,
  -- Renewed while the person's connection is open; a session whose instance died is closed at its last sight.
  seen_at timestamptz NOT NULL DEFAULT now(),
  end_reason text
);

-- One controller per phone, whatever races.
CREATE UNIQUE INDEX device_usage_one_controller ON device_usage (device_id) WHERE mode = 'control' AND ended_at IS NULL;
CREATE INDEX device_usage_workspace_started_idx ON device_usage (workspace_id, started_at DESC);
CREATE INDEX device_usage_device_started_idx ON device_usage (device_id, started_at DESC);
CREATE INDEX device_usage_user_started_idx ON device_usage (user_id, started_at DESC);
CREATE INDEX device_usage_open_idx ON device_usage (seen_at) WHERE ended_at IS NULL;
