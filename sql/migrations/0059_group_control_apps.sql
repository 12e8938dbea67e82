-- Group control (issue #52) acts only in the built-in allowlist of setup apps (the launcher, Settings, the permission
-- controller, the package installer, the setup wizard, the Play Store) and the packages operators of the workspace
-- added; never one a recipe drives nor one of the built-in social, dating, messaging, video and browser apps (checked
-- when added, and again at each action).
ALTER TABLE workspaces ADD COLUMN group_control_packages text[] NOT NULL DEFAULT '{}';
