-- A workspace's own step recipes: shipped recipes are templates a farm checks on its own phones and app versions;
-- what it checked (or fixed) is stored here, validated by the recipe schema, and wins over the shipped one for the
-- same routine and platform when a task is dispatched.

CREATE TABLE workspace_recipes (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  -- The recipe's own id and version (from its body), e.g. instagram.post version 3.
  recipe_id      text NOT NULL,
  version        integer NOT NULL CHECK (version >= 1),
  name           text NOT NULL,
  platform       text NOT NULL,
  routines       text[] NOT NULL,
  body           jsonb NOT NULL,
  -- Off: kept, but not sent to phones.
  enabled        boolean NOT NULL DEFAULT true,
  created_by_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  updated_at     timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, recipe_id, version)
);
CREATE INDEX workspace_recipes_dispatch_idx ON workspace_recipes (workspace_id, platform) WHERE enabled;
