/**
 * The embedded default (PGlite) runs no autovacuum. A farm's life on it, twice from the same start: phones
 * heartbeating (battery, last seen), tasks created and finished, the tallies folded; once as before (nothing
 * vacuums) and once with the `database.vacuum` job on its schedule. Every tenth round prints the busy tables' size
 * and the time of the reads the console makes most: the devices page, the tasks page and the task counts.
 */
import { sql } from 'kysely';
import { migrate, openDatabase, type Database } from '@farm/sql';
import { jobs } from '@farm/workers';
import { percentile } from '../lib.ts';

const PHONES = Number(process.env.BENCH_PHONES ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
/** Rounds between two runs of the job: a round stands for a minute of the farm (every phone heard, tasks moving), the job runs every 10 minutes. */
const VACUUM_EVERY = 10;
const TASKS_PER_ROUND = 200;
const READS = 200;

async function seed(database: Database) {
  const { db } = database;
  const ws = (await db.insertInto('workspaces').values({ name: 'Embedded farm' }).returning('id').executeTakeFirstOrThrow()).id;
  await sql`
    insert into devices (workspace_id, name, status, battery, created_at)
    select ${ws}, 'Phone ' || g, (array['online','busy','idle'])[1 + g % 3], g % 101, now() - (g || ' minutes')::interval
    from generate_series(1, ${PHONES}) g`.execute(db);
  await sql`
    with d as (select id, row_number() over (order by id) as n from devices where workspace_id = ${ws})
    insert into tasks (workspace_id, title, type, priority, status, device_id, created_at)
    select ${ws}, 'Task ' || g, 'engage', 'medium', (array['pending','completed','failed','completed'])[1 + g % 4], d.id,
           now() - (g || ' seconds')::interval
    from generate_series(1, ${PHONES * 20}) g join d on d.n = 1 + g % ${PHONES}`.execute(db);
  return ws;
}

/** One minute of the farm: every phone heard from, tasks created, pending ones finished, the tallies folded. */
async function round(database: Database, ws: string, i: number) {
  const { db } = database;
  await sql`update devices set battery = (battery + 1) % 101, last_seen_at = now(), last_active = now() where workspace_id = ${ws}`.execute(db);
  await sql`
    with d as (select id, row_number() over (order by id) as n from devices where workspace_id = ${ws})
    insert into tasks (workspace_id, title, type, priority, device_id)
    select ${ws}, 'Round ' || ${i} || ' task ' || g, 'engage', 'medium', d.id
    from generate_series(1, ${TASKS_PER_ROUND}) g join d on d.n = 1 + (g + ${i}) % ${PHONES}`.execute(db);
  await sql`
    update tasks set status = 'in-progress', started_at = now()
    where id in (select id from tasks where workspace_id = ${ws} and status = 'pending' order by created_at limit ${TASKS_PER_ROUND})`.execute(db);
  await sql`
    update tasks set status = 'completed', completed_at = now(), progress = 100
    where id in (select id from tasks where workspace_id = ${ws} and status = 'in-progress' order by created_at limit ${TASKS_PER_ROUND})`.execute(db);
  await jobs['tasks.tally'](undefined, { db, announce: () => undefined });
}

/** Milliseconds per read (p50) of the console's most frequent reads, and the busy tables' size on disk. */
async function look(database: Database, ws: string) {
  const { db } = database;
  const reads = {
    devices: sql`select answer_json from devices where workspace_id = ${ws} order by created_at, id limit 100`,
    tasks: sql`select id, title, status from tasks where workspace_id = ${ws} and status = 'pending' order by created_at desc, id desc limit 50`,
    counts: sql`select status, sum(n)::int as n from task_tallies where workspace_id = ${ws} group by status`,
  };
  const p50 = async (query: (typeof reads)[keyof typeof reads]) => {
    const samples: number[] = [];
    for (let i = 0; i < READS; i++) {
      const started = performance.now();
      await query.execute(db);
      samples.push(performance.now() - started);
    }
    return percentile(samples, 50);
  };
  const times = { devices: await p50(reads.devices), tasks: await p50(reads.tasks), counts: await p50(reads.counts) };
  const { rows } = await sql<{ mb: number }>`
    select (sum(pg_total_relation_size(c.oid)) / 1048576.0)::float8 as mb from pg_class c
    where c.relkind = 'r' and c.relnamespace = 'public'::regnamespace`.execute(db);
  return { ...times, mb: rows[0]?.mb ?? 0 };
}

async function life(vacuum: boolean) {
  const database = await openDatabase({ kind: 'pglite' });
  await migrate(database);
  const ws = await seed(database);
  await jobs['tasks.tally'](undefined, { db: database.db, announce: () => undefined });
  const figures: { round: number; devices: number; tasks: number; counts: number; mb: number; vacuumMs: number }[] = [];
  let vacuumMs = 0;
  for (let i = 1; i <= ROUNDS; i++) {
    await round(database, ws, i);
    if (vacuum && i % VACUUM_EVERY === 0) {
      const started = performance.now();
      await jobs['database.vacuum'](undefined, { db: database.db, announce: () => undefined });
      vacuumMs = performance.now() - started;
    }
    if (i % VACUUM_EVERY === 0) figures.push({ round: i, ...(await look(database, ws)), vacuumMs });
  }
  await database.close();
  return figures;
}

const without = await life(false);
const withJob = await life(true);
console.log(`\nEmbedded (PGlite), ${PHONES} phones, ${PHONES * 20} tasks at the start, ${TASKS_PER_ROUND} tasks created and finished a round`);
console.log(
  'round'.padStart(5),
  'MB before'.padStart(10),
  'MB after'.padStart(9),
  'devices ms'.padStart(18),
  'tasks ms'.padStart(16),
  'counts ms'.padStart(16),
  'job ms'.padStart(7),
);
const pair = (a: number, b: number) => `${a.toFixed(2)}→${b.toFixed(2)} (${(b / a).toFixed(2)}x)`;
for (const [i, before] of without.entries()) {
  const after = withJob[i]!;
  console.log(
    String(before.round).padStart(5),
    before.mb.toFixed(1).padStart(10),
    after.mb.toFixed(1).padStart(9),
    pair(before.devices, after.devices).padStart(18),
    pair(before.tasks, after.tasks).padStart(16),
    pair(before.counts, after.counts).padStart(16),
    after.vacuumMs.toFixed(0).padStart(7),
  );
}
