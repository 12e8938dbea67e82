-- A dry run's media are stored uploads the person picked, fetched by the phone as a task's media are: the run keeps
-- their object keys, and the agent's media route serves them to that phone while the run is under way. Before this,
-- a dry run's `params.media` went to the phone as farm-host paths and was copied from the host's disk.
ALTER TABLE recipe_dry_runs ADD COLUMN media_keys text[] NOT NULL DEFAULT '{}';

-- Runs under way, per workspace: checked again whenever a phone or a person's rights change.
CREATE INDEX recipe_dry_runs_under_way_idx ON recipe_dry_runs (workspace_id) WHERE status IN ('starting', 'running');

-- Past dry runs that reached a step copying files to the phone: their media could only have been farm-host paths
-- (dry runs fetched nothing), so each goes to the audit log once, with the media steps it traced (a push_media step's
-- detail is the file's place on the phone, which carries the host file's name). The request's params were not kept.
INSERT INTO audit_log (workspace_id, actor_id, action, entity_type, entity_id, data)
SELECT r.workspace_id,
       r.started_by_id,
       'dryrun.host_media',
       'dry_run',
       r.id::text,
       jsonb_build_object(
         'message', 'A dry run before this upgrade copied files named by a path on the farm host to its phone; check what it copied and regenerate the host''s adb key if in doubt',
         'recipeId', r.recipe_id,
         'version', r.recipe_version,
         'deviceId', r.device_id,
         'startedAt', r.started_at,
         'steps', (
           SELECT jsonb_agg(jsonb_build_object('seq', s.seq, 'do', s."do", 'verdict', s.verdict, 'detail', s.detail) ORDER BY s.seq)
           FROM recipe_trace_steps s
           WHERE s.dry_run_id = r.id AND s."do" IN ('share_media', 'push_media')
         )
       )
FROM recipe_dry_runs r
WHERE EXISTS (SELECT 1 FROM recipe_trace_steps s WHERE s.dry_run_id = r.id AND s."do" IN ('share_media', 'push_media'));
