-- The whole product schema: tenancy, auth, the fleet, work, campaigns and content.
-- Enumerations are CHECK constraints carrying the spec's exact values.

CREATE OR REPLACE FUNCTION set_updated_at() RETURNS trigger AS $$
BEGIN
  NEW.updated_at = now();
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TABLE workspaces (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name        text NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  updated_at  timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email          text NOT NULL,
  password_hash  text NOT NULL,
  name           text NOT NULL,
  role           text NOT NULL CHECK (role IN ('operator', 'va')),
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  updated_at     timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE workspace_members (
  workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role            text NOT NULL CHECK (role IN ('operator', 'va')),
  deactivated_at  timestamptz(3),
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  updated_at      timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);
-- One agency per person: a user belongs to at most one workspace.
CREATE UNIQUE INDEX workspace_members_user_key ON workspace_members (user_id);

CREATE TABLE auth_sessions (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash    text NOT NULL UNIQUE,
  user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  last_seen_at  timestamptz(3) NOT NULL DEFAULT now(),
  expires_at    timestamptz(3) NOT NULL,
  ip            text,
  user_agent    text
);
CREATE INDEX auth_sessions_user_idx ON auth_sessions (user_id);

CREATE TABLE invitations (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  token_hash      text NOT NULL UNIQUE,
  role            text NOT NULL DEFAULT 'va' CHECK (role IN ('operator', 'va')),
  email           text,
  created_by_id   uuid REFERENCES users (id) ON DELETE SET NULL,
  expires_at      timestamptz(3) NOT NULL,
  accepted_at     timestamptz(3),
  accepted_by_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at      timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX invitations_workspace_idx ON invitations (workspace_id, created_at DESC);

CREATE TABLE audit_log (
  id            bigserial PRIMARY KEY,
  workspace_id  uuid REFERENCES workspaces (id) ON DELETE CASCADE,
  actor_id      uuid REFERENCES users (id) ON DELETE SET NULL,
  action        text NOT NULL,
  entity_type   text NOT NULL,
  entity_id     text,
  data          jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_workspace_idx ON audit_log (workspace_id, created_at DESC);

CREATE TABLE devices (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name            text NOT NULL,
  status          text NOT NULL DEFAULT 'offline' CHECK (status IN ('online', 'offline', 'busy', 'idle')),
  battery         integer NOT NULL DEFAULT 100 CHECK (battery BETWEEN 0 AND 100),
  last_active     timestamptz(3) NOT NULL DEFAULT now(),
  assigned_to_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  session_time    integer NOT NULL DEFAULT 0 CHECK (session_time >= 0),
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  updated_at      timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX devices_workspace_idx ON devices (workspace_id, created_at, id);
CREATE INDEX devices_workspace_status_idx ON devices (workspace_id, status);
CREATE INDEX devices_assigned_idx ON devices (assigned_to_id);

CREATE TABLE tasks (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  title           text NOT NULL,
  description     text,
  type            text NOT NULL CHECK (type IN ('post', 'engage', 'warmup', 'monitor')),
  priority        text NOT NULL CHECK (priority IN ('high', 'medium', 'low')),
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'in-progress', 'completed', 'failed')),
  device_id       uuid REFERENCES devices (id) ON DELETE SET NULL,
  assigned_to_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  deadline        timestamptz(3),
  started_at      timestamptz(3),
  completed_at    timestamptz(3),
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  updated_at      timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX tasks_workspace_idx ON tasks (workspace_id, created_at DESC, id DESC);
CREATE INDEX tasks_workspace_status_idx ON tasks (workspace_id, status, created_at DESC, id DESC);
CREATE INDEX tasks_device_idx ON tasks (device_id);
CREATE INDEX tasks_assigned_idx ON tasks (assigned_to_id);

CREATE TABLE sessions (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  device_id     uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  va_id         uuid REFERENCES users (id) ON DELETE SET NULL,
  task_id       uuid REFERENCES tasks (id) ON DELETE SET NULL,
  current_task  text,
  duration      integer NOT NULL DEFAULT 0 CHECK (duration >= 0),
  screenshots   integer NOT NULL DEFAULT 0 CHECK (screenshots >= 0),
  is_active     boolean NOT NULL DEFAULT true,
  -- When the session last began running; duration holds the seconds run before that.
  active_since  timestamptz(3) DEFAULT now(),
  started_at    timestamptz(3) NOT NULL DEFAULT now(),
  ended_at      timestamptz(3)
);
CREATE INDEX sessions_workspace_idx ON sessions (workspace_id, is_active, started_at DESC);
CREATE INDEX sessions_device_idx ON sessions (device_id);
-- At most one open (running or paused) session per phone.
CREATE UNIQUE INDEX sessions_one_open_per_device ON sessions (device_id) WHERE ended_at IS NULL;

CREATE TABLE activities (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id       uuid REFERENCES users (id) ON DELETE SET NULL,
  action        text NOT NULL,
  device_id     uuid REFERENCES devices (id) ON DELETE SET NULL,
  type          text NOT NULL DEFAULT 'info' CHECK (type IN ('success', 'warning', 'info', 'error')),
  created_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX activities_workspace_idx ON activities (workspace_id, created_at DESC, id DESC);

CREATE TABLE campaigns (
  id                           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id                 uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name                         text NOT NULL,
  platform                     text NOT NULL CHECK (platform IN ('instagram', 'tiktok', 'tinder')),
  niche                        text NOT NULL,
  keywords                     text[] NOT NULL DEFAULT '{}',
  reference_accounts           text[] NOT NULL DEFAULT '{}',
  engagement_target            integer NOT NULL DEFAULT 100 CHECK (engagement_target > 0),
  status                       text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'paused', 'completed')),
  custom_lore                  text,
  guidelines                   text,
  search_and_like              boolean NOT NULL DEFAULT false,
  follow_account_list          boolean NOT NULL DEFAULT false,
  follow_from_account          boolean NOT NULL DEFAULT false,
  search_keywords              text[] NOT NULL DEFAULT '{}',
  search_and_like_actions      text[] NOT NULL DEFAULT '{}',
  accounts_to_follow           text[] NOT NULL DEFAULT '{}',
  follow_target_accounts       text[] NOT NULL DEFAULT '{}',
  follow_type                  text CHECK (follow_type IN ('followers', 'following')),
  engage_commenters            boolean NOT NULL DEFAULT false,
  engage_commenters_actions    text[] NOT NULL DEFAULT '{}',
  auto_like_enabled            boolean NOT NULL DEFAULT false,
  auto_like_reference_images   text[] NOT NULL DEFAULT '{}',
  auto_like_guidelines         text,
  autoswipe_enabled            boolean NOT NULL DEFAULT false,
  autoswipe_gender_preference  text CHECK (autoswipe_gender_preference IN ('men', 'women', 'everyone')),
  autoswipe_age_min            integer NOT NULL DEFAULT 18 CHECK (autoswipe_age_min BETWEEN 18 AND 100),
  autoswipe_age_max            integer NOT NULL DEFAULT 35 CHECK (autoswipe_age_max BETWEEN 18 AND 100),
  autoswipe_distance_max       integer NOT NULL DEFAULT 50 CHECK (autoswipe_distance_max BETWEEN 1 AND 160),
  autoswipe_bio_keywords       text[] NOT NULL DEFAULT '{}',
  created_by_id                uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at                   timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                   timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX campaigns_workspace_idx ON campaigns (workspace_id, created_at DESC);

CREATE TABLE accounts (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id        uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  username            text NOT NULL,
  platform            text NOT NULL CHECK (platform IN ('tiktok', 'instagram', 'facebook', 'twitter', 'youtube', 'tinder')),
  status              text NOT NULL DEFAULT 'creation_pending' CHECK (status IN ('creation_pending', 'warmup', 'active', 'paused', 'suspended')),
  device_id           uuid REFERENCES devices (id) ON DELETE SET NULL,
  profile_picture     text,
  bio                 text,
  followers           integer NOT NULL DEFAULT 0 CHECK (followers >= 0),
  following           integer NOT NULL DEFAULT 0 CHECK (following >= 0),
  warmup_start_date   timestamptz(3),
  warmup_end_date     timestamptz(3),
  gender              text CHECK (gender IN ('man', 'woman', 'non-binary', 'other')),
  age                 integer CHECK (age BETWEEN 18 AND 100),
  birthday            date,
  profile_images      text[] NOT NULL DEFAULT '{}',
  interests           text[] NOT NULL DEFAULT '{}',
  sexual_orientation  text CHECK (sexual_orientation IN ('straight', 'gay', 'lesbian', 'bisexual', 'asexual', 'pansexual', 'queer', 'questioning')),
  relationship_goal   text CHECK (relationship_goal IN ('long-term', 'short-term', 'new-friends', 'still-figuring')),
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX accounts_workspace_idx ON accounts (workspace_id, created_at DESC);
CREATE INDEX accounts_device_idx ON accounts (device_id, platform);

CREATE TABLE routines (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  campaign_id   uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  type          text NOT NULL CHECK (type IN ('basic', 'warmup', 'doom_scroll', 'branch_from_account', 'create_post', 'basic_scroll', 'engage_comments')),
  platform      text NOT NULL,
  account_id    uuid REFERENCES accounts (id) ON DELETE SET NULL,
  name          text NOT NULL,
  intensity     integer NOT NULL DEFAULT 5 CHECK (intensity BETWEEN 1 AND 10),
  duration      integer NOT NULL DEFAULT 0 CHECK (duration >= 0),
  actions       text[] NOT NULL DEFAULT '{}',
  settings      jsonb NOT NULL DEFAULT '{}'::jsonb,
  sequence      integer NOT NULL DEFAULT 1,
  is_active     boolean NOT NULL DEFAULT true,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX routines_campaign_idx ON routines (campaign_id, sequence);

CREATE TABLE campaign_sessions (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  campaign_id   uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  routine_id    uuid REFERENCES routines (id) ON DELETE SET NULL,
  account_id    uuid REFERENCES accounts (id) ON DELETE SET NULL,
  session_id    uuid REFERENCES sessions (id) ON DELETE SET NULL,
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'in-progress', 'completed', 'failed')),
  scheduled_at  timestamptz(3),
  started_at    timestamptz(3),
  completed_at  timestamptz(3),
  created_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX campaign_sessions_campaign_idx ON campaign_sessions (campaign_id, created_at DESC);
CREATE INDEX campaign_sessions_due_idx ON campaign_sessions (status, scheduled_at);

CREATE TABLE posts (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  account_id     uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  campaign_id    uuid REFERENCES campaigns (id) ON DELETE SET NULL,
  caption        text NOT NULL CHECK (length(caption) >= 1),
  status         text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'scheduled', 'published', 'failed')),
  media_urls     text[] NOT NULL DEFAULT '{}',
  hashtags       text[] NOT NULL DEFAULT '{}',
  scheduled_at   timestamptz(3),
  published_at   timestamptz(3),
  created_by_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  updated_at     timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX posts_workspace_idx ON posts (workspace_id, created_at DESC);
CREATE INDEX posts_campaign_idx ON posts (campaign_id);
CREATE INDEX posts_account_idx ON posts (account_id);
CREATE INDEX posts_due_idx ON posts (status, scheduled_at) WHERE status = 'scheduled';

CREATE TABLE campaign_accounts (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  campaign_id   uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (campaign_id, account_id)
);
CREATE INDEX campaign_accounts_account_idx ON campaign_accounts (account_id);

CREATE TABLE stored_objects (
  key            text PRIMARY KEY,
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  content_type   text,
  size           integer,
  created_by_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  uploaded_at    timestamptz(3)
);

CREATE TRIGGER workspaces_updated_at BEFORE UPDATE ON workspaces FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER users_updated_at BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER workspace_members_updated_at BEFORE UPDATE ON workspace_members FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER devices_updated_at BEFORE UPDATE ON devices FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER tasks_updated_at BEFORE UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER campaigns_updated_at BEFORE UPDATE ON campaigns FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER accounts_updated_at BEFORE UPDATE ON accounts FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER routines_updated_at BEFORE UPDATE ON routines FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER posts_updated_at BEFORE UPDATE ON posts FOR EACH ROW EXECUTE FUNCTION set_updated_at();
