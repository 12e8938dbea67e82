-- Resetting an operator's password takes two operators: one asks (a request), a different one approves, and only
-- then is the one-time link made. A request lives 24 hours; one open request per person at a time.
CREATE TABLE password_reset_requests (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  requested_by_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  approved_by_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  expires_at      timestamptz(3) NOT NULL,
  approved_at     timestamptz(3),
  CONSTRAINT password_reset_requests_two_people CHECK (approved_by_id IS NULL OR approved_by_id <> requested_by_id)
);
CREATE UNIQUE INDEX password_reset_requests_open_idx ON password_reset_requests (user_id) WHERE approved_at IS NULL;
CREATE INDEX password_reset_requests_workspace_idx ON password_reset_requests (workspace_id, created_at);
