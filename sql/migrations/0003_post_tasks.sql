-- A scheduled post, once due, becomes one task for the phone that holds its account.
-- The unique index is what guarantees "none twice": a second scheduler run finds the task already there.
ALTER TABLE tasks ADD COLUMN post_id uuid REFERENCES posts (id) ON DELETE SET NULL;
CREATE UNIQUE INDEX tasks_post_key ON tasks (post_id) WHERE post_id IS NOT NULL;
