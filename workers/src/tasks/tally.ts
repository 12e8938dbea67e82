/**
 * Folds the task tallies (migration 0024), the analytics rollups (migrations 0027 and 0028) and the phone tallies
 * (0029): every change to tasks or phones appends its net effect per workspace and status (and quarter-hour or day,
 * type, phone or VA) as a fresh row; this sums the rows of each key that has a fresh one into a single row (0030), so
 * a figure reads a handful of rows and a key nothing changed is left alone. One statement: rows appended while it
 * runs are not in its snapshot and stay for the next fold; two folds at once never count a row twice (the second
 * skips rows the first deleted).
 */
import { sql, type RawBuilder } from 'kysely';
import type { JobDeps } from '../jobs.types.ts';

interface Folded {
  table: string;
  /** The columns a row is counted by; `nullable` ones compare null as equal (the nil UUID). */
  keys: readonly string[];
  nullable?: readonly string[];
}

const NIL = `'00000000-0000-0000-0000-000000000000'::uuid`;

const folded: readonly Folded[] = [
  { table: 'task_tallies', keys: ['workspace_id', 'status'] },
  { table: 'task_created_counts', keys: ['workspace_id', 'at', 'status'] },
  { table: 'task_finished_counts', keys: ['workspace_id', 'at', 'status', 'type'] },
  { table: 'task_created_days', keys: ['workspace_id', 'day', 'status'] },
  { table: 'task_finished_days', keys: ['workspace_id', 'day', 'status', 'type'] },
  { table: 'task_worker_counts', keys: ['workspace_id', 'device_id', 'assigned_to_id', 'completed'], nullable: ['device_id', 'assigned_to_id'] },
  { table: 'device_tallies', keys: ['workspace_id', 'status'] },
];

/** The common table expressions folding one table: `<name>_gone` (rows deleted) and `<name>_kept` (sums written). */
function foldOf({ table, keys, nullable = [] }: Folded, name: string): RawBuilder<unknown> {
  const list = keys.join(', ');
  const match = keys.map((key) => (nullable.includes(key) ? `coalesce(r.${key}, ${NIL}) = coalesce(k.${key}, ${NIL})` : `r.${key} = k.${key}`)).join(' and ');
  return sql.raw(`${name}_keys as (select distinct ${list} from ${table} where fresh),
    ${name}_gone as (delete from ${table} r using ${name}_keys k where ${match} returning ${keys.map((key) => `r.${key}`).join(', ')}, r.n),
    ${name}_kept as (
      insert into ${table} (${list}, n, fresh)
      select ${list}, sum(n), false from ${name}_gone group by ${list} having sum(n) <> 0
      returning 1)`);
}

/** The whole fold as one statement, written once. */
const fold = (() => {
  const names = folded.map((_, i) => `f${i}`);
  const total = (suffix: 'gone' | 'kept') => sql.raw(names.map((name) => `(select count(*) from ${name}_${suffix})`).join(' + '));
  return sql<{ folded: number; kept: number }>`
    with ${sql.join(
      folded.map((table, i) => foldOf(table, names[i]!)),
      sql`, `,
    )}
    select (${total('gone')})::int as folded, (${total('kept')})::int as kept`;
})();

export async function processTaskTally(_data: unknown, deps: JobDeps): Promise<{ folded: number; kept: number }> {
  const result = await fold.execute(deps.db);
  return result.rows[0] ?? { folded: 0, kept: 0 };
}
