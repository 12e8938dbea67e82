-- A campaign's routine run, once due, becomes one task for the phone that holds the routine's account.
ALTER TABLE tasks ADD COLUMN campaign_session_id uuid REFERENCES campaign_sessions (id) ON DELETE SET NULL;
CREATE UNIQUE INDEX tasks_campaign_session_key ON tasks (campaign_session_id) WHERE campaign_session_id IS NOT NULL;
CREATE INDEX campaign_sessions_due_pending_idx ON campaign_sessions (scheduled_at) WHERE status = 'pending';
