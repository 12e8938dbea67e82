-- A workspace's stored bytes are summed under a lock on its row before each new file is recorded (the storage
-- quota): this index keeps that sum to the workspace's own rows.
CREATE INDEX stored_objects_workspace_idx ON stored_objects (workspace_id) INCLUDE (size);

-- A post's media may name only the workspace's stored files. Posts saved before that rule with outside addresses
-- have them fetched once by the server (the posts.media job) and stored as the workspace's files; where that fails,
-- the post says why here and needs new media (cleared when its media is edited).
ALTER TABLE posts ADD COLUMN media_problem text;
