-- App uploads under the storage quota and the package manager's version codes.
--
-- A reservation holds bytes of a workspace's storage quota while an upload is received and read: taken under the
-- quota's lock before anything is written, so two uploads at once cannot both pass the edge; deleted when the upload
-- is stored (its files then count) or refused. One left by a crash stops counting once it expires.
CREATE TABLE storage_reservations (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  bytes         bigint NOT NULL CHECK (bytes >= 0),
  expires_at    timestamptz(3) NOT NULL
);
CREATE INDEX storage_reservations_workspace_idx ON storage_reservations (workspace_id, expires_at);

-- The long version code, (versionCodeMajor << 32) | versionCode, does not fit 32 bits; nor does a versionCode above
-- 2^31 read as unsigned.
ALTER TABLE app_versions ALTER COLUMN version_code TYPE bigint;
ALTER TABLE app_pins ALTER COLUMN version_code TYPE bigint;
ALTER TABLE app_rollouts ALTER COLUMN version_code TYPE bigint;
