-- The automation engine: one task lifecycle with leases, retries and reasons; one key per source of work so a
-- post version, a campaign run or a warm-up slot becomes at most one task; campaigns that repeat daily inside
-- their active hours with account safety; devices whose liveness comes from their agents.

-- Tasks: pending -> dispatched (pending + dispatched_at, leased to one phone) -> in-progress -> completed | failed | cancelled.
ALTER TABLE tasks DROP CONSTRAINT tasks_status_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_status_check CHECK (status IN ('pending', 'in-progress', 'completed', 'failed', 'cancelled'));
ALTER TABLE tasks ADD COLUMN max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts >= 1);
ALTER TABLE tasks ADD COLUMN lease_expires_at timestamptz(3);
ALTER TABLE tasks ADD COLUMN next_attempt_at timestamptz(3);
ALTER TABLE tasks ADD COLUMN last_progress_at timestamptz(3);
ALTER TABLE tasks ADD COLUMN progress integer CHECK (progress BETWEEN 0 AND 100);
ALTER TABLE tasks ADD COLUMN progress_note text;
ALTER TABLE tasks ADD COLUMN failure_code text CHECK (failure_code IN ('no_agent', 'device_offline', 'ack_timeout', 'lease_expired', 'app_crashed', 'login_required', 'account_blocked', 'rate_limited', 'element_missing', 'network', 'cancelled', 'no_device', 'daily_cap', 'unknown'));
ALTER TABLE tasks ADD COLUMN failure_message text;
-- Seconds the work is expected to take on the phone: the lease after the ack lasts this plus a margin.
ALTER TABLE tasks ADD COLUMN expected_seconds integer NOT NULL DEFAULT 300 CHECK (expected_seconds > 0);
-- The typed work the phone runs (protocol 2): { kind: 'post.publish' | 'routine.run' | 'manual', ... }.
ALTER TABLE tasks ADD COLUMN work jsonb NOT NULL DEFAULT '{}'::jsonb;
-- What made the task ('post:<id>:<version>', 'run:<id>', 'warmup:<account>:<day>:<slot>'): made once, whatever retries.
ALTER TABLE tasks ADD COLUMN source_key text;
ALTER TABLE tasks ADD COLUMN account_id uuid REFERENCES accounts (id) ON DELETE SET NULL;
-- Engagement actions the phone reported for the work: { likes, follows, comments, posts }.
ALTER TABLE tasks ADD COLUMN engagement jsonb NOT NULL DEFAULT '{}'::jsonb;

UPDATE tasks SET source_key = 'post:' || post_id || ':0' WHERE post_id IS NOT NULL;
UPDATE tasks SET source_key = 'run:' || campaign_session_id WHERE campaign_session_id IS NOT NULL AND post_id IS NULL;
DROP INDEX tasks_post_key;
ALTER TABLE tasks ADD CONSTRAINT tasks_source_key UNIQUE (source_key);
CREATE INDEX tasks_post_idx ON tasks (post_id) WHERE post_id IS NOT NULL;
CREATE INDEX tasks_account_idx ON tasks (account_id, completed_at);

-- At most one attempt out per phone: keep the newest lease of each phone, return the others to waiting.
UPDATE tasks t SET dispatched_at = NULL
WHERE t.dispatched_at IS NOT NULL AND t.status IN ('pending', 'in-progress')
  AND t.id <> (
    SELECT x.id FROM tasks x
    WHERE x.device_id = t.device_id AND x.dispatched_at IS NOT NULL AND x.status IN ('pending', 'in-progress')
    ORDER BY x.dispatched_at DESC, x.id LIMIT 1);
UPDATE tasks SET dispatched_at = NULL WHERE dispatched_at IS NOT NULL AND status IN ('pending', 'in-progress') AND device_id IS NULL;
UPDATE tasks SET lease_expires_at = now() + interval '2 minutes' WHERE dispatched_at IS NOT NULL AND status IN ('pending', 'in-progress');
CREATE UNIQUE INDEX tasks_one_out_per_device ON tasks (device_id) WHERE dispatched_at IS NOT NULL AND status IN ('pending', 'in-progress');
-- Work waiting for a phone, and leases the watchdog sweeps.
CREATE INDEX tasks_ready_idx ON tasks (device_id, created_at) WHERE status = 'pending' AND dispatched_at IS NULL;
CREATE INDEX tasks_leased_idx ON tasks (lease_expires_at) WHERE dispatched_at IS NOT NULL AND status IN ('pending', 'in-progress');

-- Every hand-over of a task to a phone: which phone held which attempt, and how it ended. A phone's result counts
-- only for an attempt it was given; the device's history shows each attempt with its reason.
CREATE TABLE task_attempts (
  task_id          uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  attempt          integer NOT NULL,
  workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  device_id        uuid REFERENCES devices (id) ON DELETE SET NULL,
  dispatched_at    timestamptz(3) NOT NULL DEFAULT now(),
  acked_at         timestamptz(3),
  ended_at         timestamptz(3),
  outcome          text CHECK (outcome IN ('completed', 'failed', 'expired', 'withdrawn', 'cancelled')),
  failure_code     text,
  failure_message  text,
  PRIMARY KEY (task_id, attempt)
);
CREATE INDEX task_attempts_device_idx ON task_attempts (device_id, dispatched_at DESC);
INSERT INTO task_attempts (task_id, attempt, workspace_id, device_id, dispatched_at)
  SELECT id, attempt, workspace_id, device_id, dispatched_at FROM tasks
  WHERE dispatched_at IS NOT NULL AND status IN ('pending', 'in-progress') AND attempt >= 1;

-- Posts: a schedule version (bumped by every change of what or when) keys the post's task; the reason it failed,
-- and while it waits, why.
ALTER TABLE posts ADD COLUMN schedule_version integer NOT NULL DEFAULT 0;
ALTER TABLE posts ADD COLUMN failure_code text;
ALTER TABLE posts ADD COLUMN failure_message text;
ALTER TABLE posts ADD COLUMN waiting_code text;
ALTER TABLE posts ADD COLUMN waiting_message text;

-- Campaigns repeat daily inside their active hours, with a cooldown between runs on one account and daily caps
-- per action that override the platform's defaults.
ALTER TABLE campaigns ADD COLUMN active_hours_start integer NOT NULL DEFAULT 9 CHECK (active_hours_start BETWEEN 0 AND 23);
ALTER TABLE campaigns ADD COLUMN active_hours_end integer NOT NULL DEFAULT 21 CHECK (active_hours_end BETWEEN 1 AND 24);
ALTER TABLE campaigns ADD COLUMN cooldown_minutes integer NOT NULL DEFAULT 30 CHECK (cooldown_minutes BETWEEN 0 AND 1440);
ALTER TABLE campaigns ADD COLUMN daily_caps jsonb NOT NULL DEFAULT '{}'::jsonb;

-- Campaign runs: planned per day and round; cancelled runs leave room for a new plan.
ALTER TABLE campaign_sessions DROP CONSTRAINT campaign_sessions_status_check;
ALTER TABLE campaign_sessions ADD CONSTRAINT campaign_sessions_status_check CHECK (status IN ('pending', 'in-progress', 'completed', 'failed', 'cancelled'));
ALTER TABLE campaign_sessions ADD COLUMN plan_day date;
ALTER TABLE campaign_sessions ADD COLUMN round integer;
ALTER TABLE campaign_sessions ADD COLUMN engagement_actions integer NOT NULL DEFAULT 0 CHECK (engagement_actions >= 0);
ALTER TABLE campaign_sessions ADD COLUMN failure_code text;
ALTER TABLE campaign_sessions ADD COLUMN note text;
CREATE UNIQUE INDEX campaign_sessions_plan_key ON campaign_sessions (routine_id, plan_day, round) WHERE plan_day IS NOT NULL AND status <> 'cancelled';
CREATE INDEX campaign_sessions_day_idx ON campaign_sessions (campaign_id, plan_day);

-- Accounts: why automation stopped for the account (a safety pause waits for a person to resume it).
ALTER TABLE accounts ADD COLUMN paused_code text;
ALTER TABLE accounts ADD COLUMN paused_message text;

-- What each account did per day, as its phones reported it: what the daily caps are counted against.
CREATE TABLE account_daily_actions (
  account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  day           date NOT NULL,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  likes         integer NOT NULL DEFAULT 0,
  follows       integer NOT NULL DEFAULT 0,
  comments      integer NOT NULL DEFAULT 0,
  posts         integer NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, day)
);

-- Devices: when an agent was last heard, and what it speaks.
ALTER TABLE devices ADD COLUMN last_seen_at timestamptz(3);
ALTER TABLE devices ADD COLUMN agent_protocol integer;
ALTER TABLE devices ADD COLUMN agent_version text;
CREATE INDEX devices_seen_idx ON devices (last_seen_at) WHERE status <> 'offline';
