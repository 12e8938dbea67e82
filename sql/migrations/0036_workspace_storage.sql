-- A workspace's stored bytes are summed under a lock on its row before each new file is recorded (the storage
-- quota): this index keeps that sum to the workspace's own rows.
CREATE INDEX stored_objects_workspace_idx ON stored_objects (workspace_id) INCLUDE (size);
