/**
 * Seeds a large farm with set-based SQL: 2,000 devices, 100,000 tasks, 500,000 activities, in one workspace; then
 * leaves it as a running farm's database is (tallies folded, tables vacuumed).
 */
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '@farm/sql';
import { jobs } from '@farm/workers';

export const FARM = { devices: 2_000, tasks: 100_000, activities: 500_000, vas: 40 };

export async function seedFarm(db: Kysely<DB>, workspaceId: string): Promise<void> {
  await sql`
    insert into users (email, password_hash, name, role)
    select 'va' || g || '@va.bench.farm', 'x', 'VA ' || g, 'va' from generate_series(1, ${FARM.vas}) g`.execute(db);
  await sql`
    insert into workspace_members (workspace_id, user_id, role)
    select ${workspaceId}, id, 'va' from users where email like '%@va.bench.farm'`.execute(db);
  await sql`
    insert into devices (workspace_id, name, status, battery, assigned_to_id, session_time, created_at, last_active)
    select ${workspaceId}, 'Phone ' || g,
           (array['online','offline','busy','idle'])[1 + g % 4], g % 101,
           (select id from users where email = 'va' || (1 + g % ${FARM.vas}) || '@va.bench.farm'),
           g * 13, now() - (g || ' minutes')::interval, now() - (g % 600 || ' seconds')::interval
    from generate_series(1, ${FARM.devices}) g`.execute(db);
  await sql`
    with d as (select id, assigned_to_id, row_number() over (order by id) as n from devices where workspace_id = ${workspaceId})
    insert into tasks (workspace_id, title, type, priority, status, device_id, assigned_to_id, deadline, created_at, completed_at)
    select ${workspaceId}, 'Task ' || g,
           (array['post','engage','warmup','monitor'])[1 + g % 4],
           (array['high','medium','low'])[1 + g % 3],
           (array['pending','in-progress','completed','failed','completed'])[1 + g % 5],
           d.id, d.assigned_to_id,
           now() + (g % 200 || ' hours')::interval,
           now() - (g % 129600 || ' minutes')::interval,
           case when g % 5 in (2, 4) then now() - (g % 1000 || ' minutes')::interval end
    from generate_series(1, ${FARM.tasks}) g join d on d.n = 1 + g % ${FARM.devices}`.execute(db);
  await sql`
    with d as (select id, row_number() over (order by id) as n from devices where workspace_id = ${workspaceId})
    insert into activities (workspace_id, action, device_id, type, created_at)
    select ${workspaceId}, 'Event ' || g, d.id,
           (array['success','warning','info','error'])[1 + g % 4],
           now() - (g % 604800 || ' seconds')::interval
    from generate_series(1, ${FARM.activities}) g join d on d.n = 1 + g % ${FARM.devices}`.execute(db);
  await sql`
    with d as (select id, assigned_to_id from devices where workspace_id = ${workspaceId} and status = 'busy')
    insert into sessions (workspace_id, device_id, va_id, current_task, duration, screenshots, is_active, active_since, started_at)
    select ${workspaceId}, d.id, d.assigned_to_id, 'Working', 120, 3, true, now(), now() - interval '10 minutes' from d`.execute(db);
  // The farm as it stands once it has run a while: the workers' tally job (every 30 s) has folded the appended tally
  // rows, 2,000 for the phones just inserted, into one per key; and the tables are vacuumed, as autovacuum, or the
  // workers' vacuum job where it is off, leaves them.
  await jobs['tasks.tally'](undefined, { db, announce: () => {} });
  await sql`vacuum (analyze)`.execute(db);
}

/** The bench operator's farm is whole in this database: seeded to the end by an earlier run (BENCH_REUSE=1). */
export async function farmSeeded(db: Kysely<DB>): Promise<boolean> {
  const { rows } = await sql<{ devices: number; tasks: number; activities: number }>`
    select (select count(*) from devices d where d.workspace_id = w.workspace_id)::int as devices,
           (select count(*) from tasks t where t.workspace_id = w.workspace_id)::int as tasks,
           (select count(*) from activities a where a.workspace_id = w.workspace_id and a.action like 'Event %')::int as activities
    from users u join workspace_members w on w.user_id = u.id
    where u.email = 'bench@bench.farm'`.execute(db);
  const farm = rows[0];
  return farm !== undefined && farm.devices === FARM.devices && farm.tasks === FARM.tasks && farm.activities === FARM.activities;
}
