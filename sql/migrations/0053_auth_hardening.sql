-- When a member last was an operator. Resets treat anyone who was an operator in the last 30 days as one: otherwise
-- an operator could demote a peer to VA, make the peer's reset link alone, take the account and promote it back.
-- Kept on every demotion; for a current operator the role says it, and the column holds the upgrade's time.
ALTER TABLE workspace_members ADD COLUMN last_operator_at timestamptz(3);

UPDATE workspace_members SET last_operator_at = now() WHERE role = 'operator';

-- A member who is a VA now but joined or was promoted as an operator (the audit log records both, with the role):
-- the first role change away from operator after the last time they became one is when they stopped. Where the log
-- holds no such change, they are taken as an operator until now.
WITH became AS (
  SELECT a.workspace_id, a.entity_id, max(a.created_at) AS at
  FROM audit_log a
  WHERE a.entity_type = 'user'
    AND a.action IN ('user.joined', 'user.updated')
    AND a.data ->> 'role' = 'operator'
  GROUP BY a.workspace_id, a.entity_id
)
UPDATE workspace_members m
SET last_operator_at = coalesce(
  (
    SELECT min(d.created_at)
    FROM audit_log d
    WHERE d.workspace_id = m.workspace_id
      AND d.entity_type = 'user'
      AND d.entity_id = m.user_id::text
      AND d.action = 'user.updated'
      AND d.data ->> 'role' IS NOT NULL
      AND d.data ->> 'role' <> 'operator'
      AND d.created_at >= b.at
  ),
  now()
)
FROM became b
WHERE m.role <> 'operator'
  AND b.workspace_id = m.workspace_id
  AND b.entity_id = m.user_id::text;

-- Wrong second-factor codes per account, counted here and not in Redis: a cap that Redis trouble skips, or that each
-- API instance counts apart without Redis, is no cap against guesses spread over addresses and instances. One row
-- per person: the failures of the window that started at `window_start`, counted by one guarded upsert.
CREATE TABLE second_factor_failures (
  user_id       uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  window_start  timestamptz(3) NOT NULL,
  failures      integer NOT NULL CHECK (failures >= 0)
);
