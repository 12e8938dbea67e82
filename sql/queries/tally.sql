-- The SQL of workers/src/tasks/tally.ts: its query functions, called with the fixed arguments of
-- workers/test/queries/tally.cases.ts on a database that only compiles (@farm/sql/snapshot).
-- Written by `pnpm sql:snapshots`; CI fails when this file differs (`pnpm check:sql`).
-- A statement answered with rows says so; the others were answered with none.
-- The clock stands at 2025-01-15T12:00:00.000Z; Math.random() answers 0.5 (a retry's jitter at its middle).

-- processTaskTally(undefined, { db, announce })
with
  f0_keys as (
    select distinct
      workspace_id,
      status
    from task_tallies
    where fresh
  ),
  f0_gone as (
    delete from task_tallies r
    using f0_keys k
    where
      r.workspace_id = k.workspace_id
      and r.status = k.status
    returning
      r.workspace_id,
      r.status,
      r.n
  ),
  f0_kept as (
    insert into task_tallies (workspace_id, status, n, fresh)
    select
      workspace_id,
      status,
      sum(n),
      false
    from f0_gone
    group by
      workspace_id,
      status
    having sum(n) <> 0
    returning 1
  ),
  f1_keys as (
    select distinct
      workspace_id,
      at,
      status
    from task_created_counts
    where fresh
  ),
  f1_gone as (
    delete from task_created_counts r
    using f1_keys k
    where
      r.workspace_id = k.workspace_id
      and r.at = k.at
      and r.status = k.status
    returning
      r.workspace_id,
      r.at,
      r.status,
      r.n
  ),
  f1_kept as (
    insert into task_created_counts (workspace_id, at, status, n, fresh)
    select
      workspace_id,
      at,
      status,
      sum(n),
      false
    from f1_gone
    group by
      workspace_id,
      at,
      status
    having sum(n) <> 0
    returning 1
  ),
  f2_keys as (
    select distinct
      workspace_id,
      at,
      status,
      type
    from task_finished_counts
    where fresh
  ),
  f2_gone as (
    delete from task_finished_counts r
    using f2_keys k
    where
      r.workspace_id = k.workspace_id
      and r.at = k.at
      and r.status = k.status
      and r.type = k.type
    returning
      r.workspace_id,
      r.at,
      r.status,
      r.type,
      r.n
  ),
  f2_kept as (
    insert into task_finished_counts (workspace_id, at, status, type, n, fresh)
    select
      workspace_id,
      at,
      status,
      type,
      sum(n),
      false
    from f2_gone
    group by
      workspace_id,
      at,
      status,
      type
    having sum(n) <> 0
    returning 1
  ),
  f3_keys as (
    select distinct
      workspace_id,
      day,
      status
    from task_created_days
    where fresh
  ),
  f3_gone as (
    delete from task_created_days r
    using f3_keys k
    where
      r.workspace_id = k.workspace_id
      and r.day = k.day
      and r.status = k.status
    returning
      r.workspace_id,
      r.day,
      r.status,
      r.n
  ),
  f3_kept as (
    insert into task_created_days (workspace_id, day, status, n, fresh)
    select
      workspace_id,
      day,
      status,
      sum(n),
      false
    from f3_gone
    group by
      workspace_id,
      day,
      status
    having sum(n) <> 0
    returning 1
  ),
  f4_keys as (
    select distinct
      workspace_id,
      day,
      status,
      type
    from task_finished_days
    where fresh
  ),
  f4_gone as (
    delete from task_finished_days r
    using f4_keys k
    where
      r.workspace_id = k.workspace_id
      and r.day = k.day
      and r.status = k.status
      and r.type = k.type
    returning
      r.workspace_id,
      r.day,
      r.status,
      r.type,
      r.n
  ),
  f4_kept as (
    insert into task_finished_days (workspace_id, day, status, type, n, fresh)
    select
      workspace_id,
      day,
      status,
      type,
      sum(n),
      false
    from f4_gone
    group by
      workspace_id,
      day,
      status,
      type
    having sum(n) <> 0
    returning 1
  ),
  f5_keys as (
    select distinct
      workspace_id,
      device_id,
      assigned_to_id,
      completed
    from task_worker_counts
    where fresh
  ),
  f5_gone as (
    delete from task_worker_counts r
    using f5_keys k
    where
      r.workspace_id = k.workspace_id
      and coalesce(r.device_id, '00000000-0000-0000-0000-000000000000'::uuid) = coalesce(k.device_id, '00000000-0000-0000-0000-000000000000'::uuid)
      and coalesce(r.assigned_to_id, '00000000-0000-0000-0000-000000000000'::uuid) = coalesce(k.assigned_to_id, '00000000-0000-0000-0000-000000000000'::uuid)
      and r.completed = k.completed
    returning
      r.workspace_id,
      r.device_id,
      r.assigned_to_id,
      r.completed,
      r.n
  ),
  f5_kept as (
    insert into task_worker_counts (workspace_id, device_id, assigned_to_id, completed, n, fresh)
    select
      workspace_id,
      device_id,
      assigned_to_id,
      completed,
      sum(n),
      false
    from f5_gone
    group by
      workspace_id,
      device_id,
      assigned_to_id,
      completed
    having sum(n) <> 0
    returning 1
  ),
  f6_keys as (
    select distinct
      workspace_id,
      status
    from device_tallies
    where fresh
  ),
  f6_gone as (
    delete from device_tallies r
    using f6_keys k
    where
      r.workspace_id = k.workspace_id
      and r.status = k.status
    returning
      r.workspace_id,
      r.status,
      r.n
  ),
  f6_kept as (
    insert into device_tallies (workspace_id, status, n, fresh)
    select
      workspace_id,
      status,
      sum(n),
      false
    from f6_gone
    group by
      workspace_id,
      status
    having sum(n) <> 0
    returning 1
  )
select
  ((
    select count(*)
    from f0_gone
  ) + (
    select count(*)
    from f1_gone
  ) + (
    select count(*)
    from f2_gone
  ) + (
    select count(*)
    from f3_gone
  ) + (
    select count(*)
    from f4_gone
  ) + (
    select count(*)
    from f5_gone
  ) + (
    select count(*)
    from f6_gone
  ))::int as folded,
  ((
    select count(*)
    from f0_kept
  ) + (
    select count(*)
    from f1_kept
  ) + (
    select count(*)
    from f2_kept
  ) + (
    select count(*)
    from f3_kept
  ) + (
    select count(*)
    from f4_kept
  ) + (
    select count(*)
    from f5_kept
  ) + (
    select count(*)
    from f6_kept
  ))::int as kept;
