/**
 * Vacuuming where nothing else does: the embedded database (PGlite) runs no autovacuum, and a PostgreSQL may run
 * with it turned off. There every update and delete leaves a dead row that no one reclaims, so the busy tables
 * (tasks, phones, the tallies) and their indexes grow for as long as the farm runs and every read walks the dead rows.
 *
 * Every run, when the database has no autovacuum of its own, this vacuums (and analyzes) the tables past
 * autovacuum's default thresholds (or whose history the statistics lost, below), one at a time, and only analyzes
 * those whose rows changed enough for the planner's figures to age. Where autovacuum runs, it does nothing.
 */
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { JobDeps } from '../jobs.types.ts';

/** Autovacuum's defaults: a table is vacuumed past 50 dead rows + 20% of its rows (or 1,000 inserted + 20%), analyzed past 50 changed + 10%. */
const VACUUM_BASE = 50;
const INSERT_BASE = 1000;
const VACUUM_SCALE = 0.2;
const ANALYZE_BASE = 50;
const ANALYZE_SCALE = 0.1;
/** How long one run may keep starting tables before it leaves the rest to the next run. */
const RUN_BUDGET_MS = 60_000;

export interface VacuumReport {
  /** True where the database vacuums itself, so this run did nothing. */
  skipped: boolean;
  vacuumed: string[];
  analyzed: string[];
}

/**
 * Whether the database's own autovacuum is running: its launcher is one of the server's processes. A role without
 * the right to see other processes (no superuser, no pg_read_all_stats: most production roles) sees their type as
 * null; there the server's setting says. PGlite is a single process, itself, and has no launcher whatever it says.
 */
export async function autovacuumRuns(db: Db): Promise<boolean> {
  const { rows } = await sql<{ runs: boolean }>`
    select exists (select 1 from pg_stat_activity where backend_type = 'autovacuum launcher')
      or (exists (select 1 from pg_stat_activity where backend_type is null)
          and current_setting('autovacuum') = 'on' and current_setting('track_counts') = 'on') as runs`.execute(db);
  return rows[0]?.runs === true;
}

/** Past autovacuum's thresholds, as SQL over a row of pg_stat_user_tables (constants, not parameters). */
const deadPast = sql.raw(`n_dead_tup > ${VACUUM_BASE} + ${VACUUM_SCALE} * n_live_tup`);
const insertedPast = sql.raw(`n_ins_since_vacuum > ${INSERT_BASE} + ${VACUUM_SCALE} * n_live_tup`);
const changedPast = sql.raw(`n_mod_since_analyze > ${ANALYZE_BASE} + ${ANALYZE_SCALE} * n_live_tup`);

/**
 * Statistics that began after the table was last vacuumed: PGlite starts with none at every open, and PostgreSQL
 * after a crash. What was dead before is unknown, so a table with pages on disk is vacuumed once.
 */
const unknownPast = sql.raw('(s.last_vacuum is null and s.last_autovacuum is null and c.relpages > 0)');

/** The product's tables (the current schema's) that are due, most dead rows first. */
async function dueTables(db: Db) {
  const { rows } = await sql<{ name: string; vacuum: boolean }>`
    select s.relname as name, (${deadPast} or ${insertedPast} or ${unknownPast}) as vacuum
    from pg_stat_user_tables s
    join pg_class c on c.oid = s.relid
    where s.schemaname = current_schema() and (${deadPast} or ${insertedPast} or ${unknownPast} or ${changedPast})
    order by s.n_dead_tup desc, s.relname`.execute(db);
  return rows;
}

export async function processDatabaseVacuum(_data: unknown, deps: JobDeps): Promise<VacuumReport> {
  const { db } = deps;
  const report: VacuumReport = { skipped: false, vacuumed: [], analyzed: [] };
  if (await autovacuumRuns(db)) return { ...report, skipped: true };
  const started = Date.now();
  for (const table of await dueTables(db)) {
    if (Date.now() - started > RUN_BUDGET_MS) break;
    const name = sql.id(table.name);
    if (table.vacuum) {
      await sql`vacuum (analyze) ${name}`.execute(db);
      report.vacuumed.push(table.name);
    } else {
      await sql`analyze ${name}`.execute(db);
      report.analyzed.push(table.name);
    }
  }
  return report;
}
