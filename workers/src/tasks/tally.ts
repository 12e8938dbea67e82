/**
 * Folds the task tallies (migration 0024) and the analytics rollups (migration 0027): every change to tasks appends
 * its net effect per workspace and status (and quarter-hour, type, phone or VA); this sums them into one row per key,
 * so a figure reads a handful of rows. One statement: rows appended while it runs are not in its snapshot and stay
 * for the next fold; two folds at once never count a row twice (the second skips rows the first deleted).
 */
import { sql } from 'kysely';
import type { JobDeps } from '../jobs.types.ts';

export async function processTaskTally(_data: unknown, deps: JobDeps): Promise<{ folded: number; kept: number }> {
  const result = await sql<{ folded: number; kept: number }>`
    with gone as (delete from task_tallies returning workspace_id, status, n),
         kept as (
           insert into task_tallies (workspace_id, status, n)
           select workspace_id, status, sum(n) from gone group by workspace_id, status having sum(n) <> 0
           returning 1),
         created_gone as (delete from task_created_counts returning workspace_id, at, status, n),
         created_kept as (
           insert into task_created_counts (workspace_id, at, status, n)
           select workspace_id, at, status, sum(n) from created_gone group by 1, 2, 3 having sum(n) <> 0
           returning 1),
         finished_gone as (delete from task_finished_counts returning workspace_id, at, status, type, n),
         finished_kept as (
           insert into task_finished_counts (workspace_id, at, status, type, n)
           select workspace_id, at, status, type, sum(n) from finished_gone group by 1, 2, 3, 4 having sum(n) <> 0
           returning 1),
         worker_gone as (delete from task_worker_counts returning workspace_id, device_id, assigned_to_id, status, n),
         worker_kept as (
           insert into task_worker_counts (workspace_id, device_id, assigned_to_id, status, n)
           select workspace_id, device_id, assigned_to_id, status, sum(n) from worker_gone group by 1, 2, 3, 4 having sum(n) <> 0
           returning 1)
    select ((select count(*) from gone) + (select count(*) from created_gone) + (select count(*) from finished_gone)
              + (select count(*) from worker_gone))::int as folded,
           ((select count(*) from kept) + (select count(*) from created_kept) + (select count(*) from finished_kept)
              + (select count(*) from worker_kept))::int as kept`.execute(deps.db);
  return result.rows[0] ?? { folded: 0, kept: 0 };
}
