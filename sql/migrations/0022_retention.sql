-- Retention: a farm's screenshots, activity and finished tasks are pruned by age (and screenshots by count per
-- phone), per workspace, so its disk does not fill. The settings live on the workspace; these are the defaults.

ALTER TABLE workspaces ADD COLUMN keep_screenshots_days integer NOT NULL DEFAULT 14 CHECK (keep_screenshots_days BETWEEN 1 AND 3650);
ALTER TABLE workspaces ADD COLUMN keep_screenshots_per_device integer NOT NULL DEFAULT 1000 CHECK (keep_screenshots_per_device BETWEEN 10 AND 100000);
ALTER TABLE workspaces ADD COLUMN keep_activity_days integer NOT NULL DEFAULT 180 CHECK (keep_activity_days BETWEEN 7 AND 3650);
ALTER TABLE workspaces ADD COLUMN keep_finished_tasks_days integer NOT NULL DEFAULT 180 CHECK (keep_finished_tasks_days BETWEEN 7 AND 3650);

CREATE INDEX screenshots_captured_idx ON screenshots (captured_at);
CREATE INDEX activities_created_idx ON activities (created_at);
CREATE INDEX tasks_finished_idx ON tasks (updated_at) WHERE status IN ('completed', 'failed', 'cancelled');
