-- The analytics tables count a window's tasks per phone and per VA (and the stat cards by status) from the tasks
-- created in it. The workspace's index by creation time now carries the three columns those counts read, so
-- PostgreSQL answers them from the index alone instead of visiting a table page for each of the window's tasks.
-- Every change of a task's status already writes a new entry in this index (status and updated_at are indexed
-- elsewhere, so no update of a task is HOT), so carrying them costs only the entries' size.

DROP INDEX tasks_workspace_idx;
CREATE INDEX tasks_workspace_idx ON tasks (workspace_id, created_at DESC, id DESC) INCLUDE (device_id, assigned_to_id, status);
