-- The app library and staged rollouts (issue #42). A workspace uploads APKs or split sets; what each is (package,
-- version, ABIs) is read from the files, never from a form. Each APK of a version is one stored object, so the
-- files count in the workspace's storage quota (0036) and the farm host fetches them as it fetches media.
CREATE TABLE app_versions (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  package        text NOT NULL CHECK (length(package) BETWEEN 1 AND 255),
  version_code   integer NOT NULL CHECK (version_code >= 0),
  version_name   text,
  min_sdk        integer,
  abis           text[] NOT NULL DEFAULT '{}',
  kind           text NOT NULL CHECK (kind IN ('apk', 'split_set')),
  file_name      text NOT NULL,
  size           integer NOT NULL CHECK (size >= 0),
  uploaded_by_id uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now()
);
-- One upload per version of an app in a workspace: the same version again is refused, not stored twice.
CREATE UNIQUE INDEX app_versions_version_idx ON app_versions (workspace_id, package, version_code);

-- The APKs of a version, the base first (position 0), then its splits.
CREATE TABLE app_version_files (
  version_id  uuid NOT NULL REFERENCES app_versions (id) ON DELETE CASCADE,
  position    smallint NOT NULL,
  name        text NOT NULL,
  object_key  text NOT NULL REFERENCES stored_objects (key),
  size        integer NOT NULL,
  PRIMARY KEY (version_id, position)
);

-- A pinned version of an app for a group of phones: a rollout does not take a phone of the group past it.
CREATE TABLE app_pins (
  group_id      uuid NOT NULL REFERENCES device_groups (id) ON DELETE CASCADE,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  package       text NOT NULL,
  version_code  integer NOT NULL,
  version_name  text,
  pinned_by_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, package)
);
CREATE INDEX app_pins_workspace_idx ON app_pins (workspace_id, package);

-- A staged rollout: the first stage's phones get the app; the rest only once every one of them succeeded.
CREATE TABLE app_rollouts (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id      uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  action            text NOT NULL CHECK (action IN ('install', 'update', 'remove')),
  package           text NOT NULL,
  version_id        uuid REFERENCES app_versions (id) ON DELETE SET NULL,
  version_code      integer,
  version_name      text,
  first_stage_size  integer NOT NULL CHECK (first_stage_size >= 1),
  allow_downgrade   boolean NOT NULL DEFAULT false,
  status            text NOT NULL CHECK (status IN ('first_stage', 'rest', 'done', 'stopped')),
  created_by_id     uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at        timestamptz(3) NOT NULL DEFAULT now(),
  finished_at       timestamptz(3)
);
CREATE INDEX app_rollouts_workspace_idx ON app_rollouts (workspace_id, created_at DESC);

-- Each phone of a rollout and how it went there, with the package manager's code and its meaning in words.
CREATE TABLE app_rollout_phones (
  rollout_id    uuid NOT NULL REFERENCES app_rollouts (id) ON DELETE CASCADE,
  device_id     uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  stage         smallint NOT NULL CHECK (stage IN (1, 2)),
  position      integer NOT NULL,
  status        text NOT NULL CHECK (status IN ('waiting', 'sent', 'succeeded', 'failed', 'skipped')),
  code          text,
  reason        text,
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (rollout_id, device_id)
);
CREATE INDEX app_rollout_phones_sent_idx ON app_rollout_phones (device_id) WHERE status = 'sent';
