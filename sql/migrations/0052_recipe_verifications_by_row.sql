-- A verification belongs to one stored recipe row (one version of a workspace recipe) and is made only by a passing
-- dry run an operator started or confirmed. Until now it named the recipe's document id alone, so a run of any
-- version (a VA's draft included) covered every recipe with that id, the shipped template of the same id too.
--
-- What was verified before is kept only where an operator's passing, verified run of the same recipe, app version
-- and language still shows it, keyed by that run's recipe row; everything else is dropped (a VA's run, a person's
-- word with no run behind it, a run the screenshot retention already removed). An operator runs it again to verify.

CREATE TABLE recipe_verifications_before_0052 AS
  SELECT workspace_id, recipe_id, package, app_version, locale FROM recipe_verifications;

DROP TABLE recipe_verifications;

CREATE TABLE recipe_verifications (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  -- The recipe row that ran (its document id and version kept beside it, to say so): a new version is not verified.
  recipe_row_id   uuid NOT NULL REFERENCES workspace_recipes (id) ON DELETE CASCADE,
  recipe_id       text NOT NULL,
  recipe_version  integer NOT NULL,
  package         text NOT NULL,
  app_version     text NOT NULL,
  locale          text NOT NULL DEFAULT '',
  -- 'dry_run': an operator's own run; 'confirmed': an operator confirmed someone else's passing run.
  source          text NOT NULL CHECK (source IN ('dry_run', 'confirmed')),
  dry_run_id      uuid REFERENCES recipe_dry_runs (id) ON DELETE SET NULL,
  verified_by     uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (recipe_row_id, package, app_version, locale)
);
CREATE INDEX recipe_verifications_workspace_idx ON recipe_verifications (workspace_id, created_at DESC);

INSERT INTO recipe_verifications
  (workspace_id, recipe_row_id, recipe_id, recipe_version, package, app_version, locale, source, dry_run_id, verified_by, created_at)
SELECT DISTINCT ON (r.recipe_row_id, r.app_package, r.app_version, coalesce(r.locale, ''))
  r.workspace_id, r.recipe_row_id, r.recipe_id, r.recipe_version, r.app_package, r.app_version, coalesce(r.locale, ''),
  'dry_run', r.id, r.started_by_id, coalesce(r.finished_at, r.started_at)
FROM recipe_dry_runs r
JOIN workspace_members m ON m.workspace_id = r.workspace_id AND m.user_id = r.started_by_id AND m.role = 'operator'
WHERE r.verified
  AND r.status = 'passed'
  AND r.app_package IS NOT NULL
  AND r.app_version IS NOT NULL
  AND EXISTS (
    SELECT 1 FROM recipe_verifications_before_0052 v
    WHERE v.workspace_id = r.workspace_id
      AND v.recipe_id = r.recipe_id
      AND v.package = r.app_package
      AND v.app_version = r.app_version
      AND v.locale = coalesce(r.locale, '')
  )
ORDER BY r.recipe_row_id, r.app_package, r.app_version, coalesce(r.locale, ''), r.finished_at DESC NULLS LAST;

-- A run whose verification was dropped no longer says it verified anything.
UPDATE recipe_dry_runs r SET verified = false
WHERE r.verified
  AND NOT (
    EXISTS (
      SELECT 1 FROM workspace_members m
      WHERE m.workspace_id = r.workspace_id AND m.user_id = r.started_by_id AND m.role = 'operator'
    )
    AND EXISTS (
      SELECT 1 FROM recipe_verifications v
      WHERE v.recipe_row_id = r.recipe_row_id
        AND v.package = r.app_package
        AND v.app_version = r.app_version
        AND v.locale = coalesce(r.locale, '')
    )
  );

DROP TABLE recipe_verifications_before_0052;

-- A stored frame of a phone's screen is read by whoever may control that phone (a VA: the phones assigned to them):
-- the file route finds the capture or the dry-run step a frame belongs to by its key.
CREATE INDEX ui_captures_frame_idx ON ui_captures (frame_key);
CREATE INDEX recipe_trace_steps_frame_idx ON recipe_trace_steps (frame_key) WHERE frame_key IS NOT NULL;
