-- The recipe studio: a recorded draft keeps each step's screenshot (the small picture of the screen the step was made
-- on), shown beside the step in the editor. Kept with the recipe's row as [{ "fingerprint": what the step does and to
-- what, "image": a data: URL }], carried to the versions saved from it; a step edited past recognition loses its
-- picture. `step_shots_bytes` counts in the workspace's storage quota.
ALTER TABLE workspace_recipes ADD COLUMN step_shots jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE workspace_recipes ADD COLUMN step_shots_bytes integer NOT NULL DEFAULT 0 CHECK (step_shots_bytes >= 0);
