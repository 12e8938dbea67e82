-- Phones join by one-time enrollment codes, one per device or per farm host; a farm host (a PC with phones on USB)
-- registers every phone it sees by serial. Device state comes from agents only: what they report is kept here.

CREATE TABLE hosts (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name           text NOT NULL,
  -- Set when the host exchanged its code; the host speaks with this credential from then on.
  token_hash     text UNIQUE,
  enrolled_at    timestamptz(3),
  last_seen_at   timestamptz(3),
  revoked_at     timestamptz(3),
  created_by_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX hosts_workspace_idx ON hosts (workspace_id, created_at DESC);

CREATE TABLE enrollment_codes (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  device_id      uuid REFERENCES devices (id) ON DELETE CASCADE,
  host_id        uuid REFERENCES hosts (id) ON DELETE CASCADE,
  code_hash      text NOT NULL UNIQUE,
  expires_at     timestamptz(3) NOT NULL,
  used_at        timestamptz(3),
  -- A newer code for the same device or host voids this one.
  voided_at      timestamptz(3),
  created_by_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((device_id IS NULL) <> (host_id IS NULL))
);
CREATE INDEX enrollment_codes_device_idx ON enrollment_codes (device_id) WHERE device_id IS NOT NULL;
CREATE INDEX enrollment_codes_host_idx ON enrollment_codes (host_id) WHERE host_id IS NOT NULL;

ALTER TABLE devices ADD COLUMN host_id uuid REFERENCES hosts (id) ON DELETE SET NULL;
ALTER TABLE devices ADD COLUMN serial text;
ALTER TABLE devices ADD COLUMN model text;
ALTER TABLE devices ADD COLUMN android_version text;
-- What the phone last reported: its screen, and the app in front.
ALTER TABLE devices ADD COLUMN screen_on boolean;
ALTER TABLE devices ADD COLUMN foreground_app text;
-- One device per phone serial in a workspace: two hosts seeing one phone register it once.
CREATE UNIQUE INDEX devices_serial_key ON devices (workspace_id, serial) WHERE serial IS NOT NULL;
CREATE INDEX devices_host_idx ON devices (host_id) WHERE host_id IS NOT NULL;

-- Statuses are no longer typed by people: a phone no agent ever reported is offline.
UPDATE devices SET status = 'offline' WHERE last_seen_at IS NULL AND status <> 'offline';
