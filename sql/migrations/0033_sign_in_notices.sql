-- Notices for a person, shown once at their next sign-in: what happened to their sign-in while they were away
-- (codes of their app refused after too many wrong ones, a password reset made for them). There is no e-mail
-- here, so this is how the person is told; seen_at is set when the console has shown it.
CREATE TABLE user_notices (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind        text NOT NULL,
  message     text NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  seen_at     timestamptz(3)
);
CREATE INDEX user_notices_unseen_idx ON user_notices (user_id, created_at) WHERE seen_at IS NULL;
