-- Two-factor sign-in (TOTP), its one-time recovery codes, the pending second step of a login,
-- a workspace's rule that its operators use it, and one-time password reset links.

ALTER TABLE users ADD COLUMN totp_secret text;
ALTER TABLE users ADD COLUMN totp_pending_secret text;
ALTER TABLE users ADD COLUMN totp_enabled_at timestamptz(3);
ALTER TABLE users ADD COLUMN totp_last_step integer;

ALTER TABLE workspaces ADD COLUMN require_two_factor boolean NOT NULL DEFAULT false;

CREATE TABLE recovery_codes (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash   text NOT NULL,
  used_at     timestamptz(3),
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX recovery_codes_user_idx ON recovery_codes (user_id);

CREATE TABLE login_challenges (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash  text NOT NULL UNIQUE,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  attempts    integer NOT NULL DEFAULT 0,
  expires_at  timestamptz(3) NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX login_challenges_user_idx ON login_challenges (user_id);

CREATE TABLE password_resets (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash     text NOT NULL UNIQUE,
  user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  created_by_id  uuid REFERENCES users (id) ON DELETE SET NULL,
  expires_at     timestamptz(3) NOT NULL,
  used_at        timestamptz(3),
  created_at     timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX password_resets_user_idx ON password_resets (user_id);
