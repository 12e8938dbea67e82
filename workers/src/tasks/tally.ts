/**
 * Folds the task tallies (migration 0024): every change to tasks appends its net effect per workspace and status;
 * this sums them into one row per workspace and status, so a count reads a handful of rows. One statement: rows
 * appended while it runs are not in its snapshot and stay for the next fold; two folds at once never count a row
 * twice (the second skips rows the first deleted).
 */
import { sql } from 'kysely';
import type { JobDeps } from '../jobs.types.ts';

export async function processTaskTally(_data: unknown, deps: JobDeps): Promise<{ folded: number; kept: number }> {
  const result = await sql<{ folded: number; kept: number }>`
    with gone as (delete from task_tallies returning workspace_id, status, n),
         kept as (
           insert into task_tallies (workspace_id, status, n)
           select workspace_id, status, sum(n) from gone group by workspace_id, status having sum(n) <> 0
           returning 1)
    select (select count(*) from gone)::int as folded, (select count(*) from kept)::int as kept`.execute(deps.db);
  return result.rows[0] ?? { folded: 0, kept: 0 };
}
