-- posts.due takes due posts in batches of 500 in (scheduled_at, id) order and goes on after the last one it took.
-- A post stays 'scheduled' while its task runs, so a batch that started from the beginning again read every post
-- taken before it (10,000 posts due at once read 95,000 rows in 20 batches); the index now holds that order, so a
-- batch starts where the one before ended. The partial index's status column said nothing its predicate did not.
CREATE INDEX posts_due_order_idx ON posts (scheduled_at, id) WHERE status = 'scheduled';
DROP INDEX posts_due_idx;
