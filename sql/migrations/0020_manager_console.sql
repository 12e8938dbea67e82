-- The manager's console: the workspace's time zone, the address on audit entries, histories that analytics
-- reads over time (account growth, phones' connected time), workspace webhooks and their delivery log.

-- An IANA zone name (Europe/Paris); analytics buckets, the calendar and automation read days in it.
ALTER TABLE workspaces ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC';

-- The address a write came from.
ALTER TABLE audit_log ADD COLUMN ip text;
CREATE INDEX audit_log_workspace_page_idx ON audit_log (workspace_id, created_at DESC, id DESC);

-- Calendar windows and time series read posts by either time.
CREATE INDEX posts_workspace_scheduled_idx ON posts (workspace_id, scheduled_at) WHERE scheduled_at IS NOT NULL;
CREATE INDEX posts_workspace_published_idx ON posts (workspace_id, published_at) WHERE published_at IS NOT NULL;
CREATE INDEX tasks_workspace_completed_idx ON tasks (workspace_id, completed_at) WHERE completed_at IS NOT NULL;
CREATE INDEX sessions_workspace_started_idx ON sessions (workspace_id, started_at);

-- Followers and following as they change, written by the database whoever changes them (a form, a phone).
CREATE TABLE account_stats_history (
  id            bigserial PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  followers     integer NOT NULL,
  following     integer NOT NULL,
  recorded_at   timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX account_stats_history_account_idx ON account_stats_history (account_id, recorded_at);

CREATE OR REPLACE FUNCTION record_account_stats() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.followers IS DISTINCT FROM OLD.followers OR NEW.following IS DISTINCT FROM OLD.following THEN
    INSERT INTO account_stats_history (workspace_id, account_id, followers, following)
    VALUES (NEW.workspace_id, NEW.id, NEW.followers, NEW.following);
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER accounts_stats_history AFTER INSERT OR UPDATE OF followers, following ON accounts
  FOR EACH ROW EXECUTE FUNCTION record_account_stats();
INSERT INTO account_stats_history (workspace_id, account_id, followers, following, recorded_at)
  SELECT workspace_id, id, followers, following, updated_at FROM accounts;

-- Each change of a phone's status from then on: its connected time per hour or day is computed from these.
CREATE TABLE device_status_history (
  id            bigserial PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  device_id     uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  status        text NOT NULL,
  changed_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX device_status_history_workspace_idx ON device_status_history (workspace_id, changed_at);
CREATE INDEX device_status_history_device_idx ON device_status_history (device_id, changed_at);

CREATE OR REPLACE FUNCTION record_device_status() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
    INSERT INTO device_status_history (workspace_id, device_id, status) VALUES (NEW.workspace_id, NEW.id, NEW.status);
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER devices_status_history AFTER INSERT OR UPDATE OF status ON devices
  FOR EACH ROW EXECUTE FUNCTION record_device_status();
INSERT INTO device_status_history (workspace_id, device_id, status) SELECT workspace_id, id, status FROM devices;

-- Where a workspace wants its alerts: a URL, the events it wants, the secret its deliveries are signed with.
CREATE TABLE webhooks (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url              text NOT NULL,
  secret           text NOT NULL,
  events           text[] NOT NULL DEFAULT '{}',
  offline_minutes  integer NOT NULL DEFAULT 15 CHECK (offline_minutes BETWEEN 1 AND 10080),
  is_active        boolean NOT NULL DEFAULT true,
  created_by_id    uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at       timestamptz(3) NOT NULL DEFAULT now(),
  updated_at       timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_workspace_idx ON webhooks (workspace_id, created_at);
CREATE TRIGGER webhooks_updated_at BEFORE UPDATE ON webhooks FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- One row per alert per webhook: the delivery log, and the queue's source of truth (the job only triggers).
-- dedupe_key names the occurrence (a post's failure, a phone's offline spell), so it is delivered once.
CREATE TABLE webhook_deliveries (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  webhook_id       uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event            text NOT NULL,
  dedupe_key       text NOT NULL,
  payload          jsonb NOT NULL DEFAULT '{}'::jsonb,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz(3) NOT NULL DEFAULT now(),
  last_status      integer,
  last_error       text,
  delivered_at     timestamptz(3),
  created_at       timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (webhook_id, dedupe_key)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC);
