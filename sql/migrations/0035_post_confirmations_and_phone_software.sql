-- A post the phone could not confirm (post_unconfirmed) becomes a question for the phone's VA: did it go up? The
-- person's task names the publishing task it asks about; its answer publishes the post or sends it out again.
ALTER TABLE tasks ADD COLUMN unconfirmed_task_id uuid REFERENCES tasks (id) ON DELETE SET NULL;
CREATE INDEX tasks_unconfirmed_task_idx ON tasks (unconfirmed_task_id) WHERE unconfirmed_task_id IS NOT NULL;

-- What reads a phone's UI and which versions of the apps recipes drive it has installed, as its agent last said in
-- its hello (agents before this say nothing: no row, or a row with no reader). Kept beside the device row so the
-- devices list and its stored answer (0025) stay as they are.
CREATE TABLE device_software (
  device_id          uuid PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
  workspace_id       uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  ui_reader          text CHECK (ui_reader IN ('ui-server', 'dump', 'sim')),
  ui_reader_version  text,
  apps               jsonb NOT NULL DEFAULT '[]'::jsonb,
  agent_version      text,
  reported_at        timestamptz(3) NOT NULL DEFAULT now()
);
