-- Which revision of the recipe rules a stored workspace recipe was last read with. The check at start reads again
-- only the rows an older revision (or none) passed, so a restart with nothing changed opens no document; a revision
-- that refuses more (patterns RE2 cannot run, media in defaults, an activity that is not a class name) reads them all
-- once more and turns off those it now refuses.
ALTER TABLE workspace_recipes ADD COLUMN rules_checked integer;
