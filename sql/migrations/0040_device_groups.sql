-- Groups and tags of phones (issue #42): a farm sorts its phones by client, hub or account type and manages a group
-- at once. A phone may be in several. A tag is a group shown as a label; both share one namespace per workspace,
-- compared without case, so "Hub A" and "hub a" cannot both exist.
CREATE TABLE device_groups (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  kind          text NOT NULL DEFAULT 'group' CHECK (kind IN ('group', 'tag')),
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX device_groups_name_idx ON device_groups (workspace_id, lower(name));

-- Which phones are in which group. The workspace is kept on the row for the list filters; the API adds a phone only
-- to a group of the phone's own workspace.
CREATE TABLE device_group_members (
  group_id      uuid NOT NULL REFERENCES device_groups (id) ON DELETE CASCADE,
  device_id     uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  added_at      timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, device_id)
);
CREATE INDEX device_group_members_device_idx ON device_group_members (device_id);
