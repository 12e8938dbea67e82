/**
 * Retention: every hour, each workspace's screenshots older than its setting or beyond its newest N per phone (and
 * dry runs' traces older than it, with their screenshots), its
 * activity (with the phones' usage sessions, kept as long) and its finished tasks older than their settings are deleted, in batches, with the screenshots' files.
 * The recipe health board's day rows go once they are older than its longest range (RECIPE_RUN_DAYS). Failed runs'
 * evidence goes with the screenshots' age (or before its task goes), its frame's file with it.
 * Rows go first, then files: a crash between the two leaves a file without a row (space, never a broken image).
 */
import { sql } from 'kysely';
import type { JobDeps } from '../jobs.types.ts';
import { DRY_RUN_UNDER_WAY } from '../devices/status.ts';

/** Rows deleted per statement, so a first prune of a large farm never holds long locks. */
export const PRUNE_BATCH = 2000;
/** Days of recipe run counts kept: the health board's longest range (90 days) and room for time zones. */
export const RECIPE_RUN_DAYS = 100;
/** How long one run may keep deleting before it leaves the rest to the next run. */
const RUN_BUDGET_MS = 60_000;

export interface PruneReport {
  screenshots: number;
  activities: number;
  usage: number;
  tasks: number;
  /** Recipe run day rows and their sets of phones. */
  recipeRuns: number;
  /** Failed runs' evidence (0047), with their frames. */
  failureTraces: number;
  /** Dry runs whose traces (steps, screenshots, trees) aged out with the screenshots. */
  dryRuns: number;
  /** Screenshots left for later because this process cannot reach the files (no DATA_DIR). */
  skippedScreenshots: boolean;
}

export async function processRetentionPrune(_data: unknown, deps: JobDeps): Promise<PruneReport> {
  const { db } = deps;
  const started = Date.now();
  const inBudget = () => Date.now() - started < RUN_BUDGET_MS;
  const report: PruneReport = {
    screenshots: 0,
    activities: 0,
    usage: 0,
    tasks: 0,
    recipeRuns: 0,
    failureTraces: 0,
    dryRuns: 0,
    skippedScreenshots: !deps.files,
  };

  /** Runs a batch until one comes back short (nothing more) or the run's time is spent; answers the total. */
  const drain = async (batch: () => Promise<number>) => {
    let total = 0;
    for (;;) {
      const count = await batch();
      total += count;
      if (count < PRUNE_BATCH || !inBudget()) return total;
    }
  };

  const files = deps.files;
  if (files) {
    report.screenshots = await drain(async () => {
      // Past the workspace's age, or past its newest N on that phone (read through the per-phone index).
      const doomed = await db
        .selectFrom('screenshots as s')
        .innerJoin('workspaces as w', 'w.id', 's.workspaceId')
        .select('s.objectKey')
        .where(sql<boolean>`s.captured_at < now() - make_interval(days => w.keep_screenshots_days)`)
        .union(
          db
            .selectFrom('devices as d')
            .innerJoin('workspaces as w', 'w.id', 'd.workspaceId')
            .innerJoinLateral(
              (eb) =>
                eb
                  .selectFrom('screenshots as s')
                  .select('s.objectKey')
                  .whereRef('s.deviceId', '=', 'd.id')
                  .orderBy('s.capturedAt', 'desc')
                  .offset(sql<number>`w.keep_screenshots_per_device`)
                  .as('old'),
              (join) => join.onTrue(),
            )
            .select('old.objectKey'),
        )
        .limit(PRUNE_BATCH)
        .execute();
      if (doomed.length === 0) return 0;
      // The stored object goes, and its screenshot row with it (ON DELETE CASCADE).
      const gone = await db
        .deleteFrom('storedObjects')
        .where(
          'key',
          'in',
          doomed.map((row) => row.objectKey),
        )
        .returning('key')
        .execute();
      await files.remove(gone.map((row) => row.key));
      return gone.length;
    });

    // Dry runs' traces go with the screenshots' age: the run, its steps (ON DELETE CASCADE) and their screenshots.
    report.dryRuns = await drain(async () => {
      const doomed = await db
        .selectFrom('recipeDryRuns as r')
        .innerJoin('workspaces as w', 'w.id', 'r.workspaceId')
        .select('r.id')
        .where('r.status', 'not in', DRY_RUN_UNDER_WAY)
        .where(sql<boolean>`r.started_at < now() - make_interval(days => w.keep_screenshots_days)`)
        .limit(PRUNE_BATCH)
        .execute();
      if (doomed.length === 0) return 0;
      const ids = doomed.map((row) => row.id);
      const frames = await db.selectFrom('recipeTraceSteps').select('frameKey').where('dryRunId', 'in', ids).where('frameKey', 'is not', null).execute();
      const keys = frames.map((row) => row.frameKey!);
      if (keys.length > 0) await db.deleteFrom('storedObjects').where('key', 'in', keys).execute();
      await db.deleteFrom('recipeDryRuns').where('id', 'in', ids).execute();
      await files.remove(keys);
      return ids.length;
    });
  }

  // Failed runs' evidence: past the workspace's screenshot age, or of a finished task about to go with its age (whose
  // cascade would leave the frame's file behind). Without the files, traces with a frame wait, and so do their tasks.
  report.failureTraces = await drain(async () => {
    let doomed = db
      .selectFrom('taskFailureTraces as f')
      .innerJoin('workspaces as w', 'w.id', 'f.workspaceId')
      .innerJoin('tasks as t', 't.id', 'f.taskId')
      .select(['f.taskId', 'f.attempt', 'f.frameKey'])
      .where((eb) =>
        eb.or([
          sql<boolean>`f.created_at < now() - make_interval(days => w.keep_screenshots_days)`,
          eb.and([
            eb('t.status', 'in', ['completed', 'failed', 'cancelled']),
            sql<boolean>`t.updated_at < now() - make_interval(days => w.keep_finished_tasks_days)`,
          ]),
        ]),
      );
    if (!files) doomed = doomed.where('f.frameKey', 'is', null);
    const rows = await doomed.limit(PRUNE_BATCH).execute();
    if (rows.length === 0) return 0;
    await db.transaction().execute(async (tx) => {
      for (const row of rows) await tx.deleteFrom('taskFailureTraces').where('taskId', '=', row.taskId).where('attempt', '=', row.attempt).execute();
      const keys = rows.flatMap((row) => (row.frameKey ? [row.frameKey] : []));
      if (keys.length > 0) await tx.deleteFrom('storedObjects').where('key', 'in', keys).execute();
    });
    const keys = rows.flatMap((row) => (row.frameKey ? [row.frameKey] : []));
    if (files && keys.length > 0) await files.remove(keys);
    return rows.length;
  });

  report.activities = await drain(async () => {
    const gone = await db
      .deleteFrom('activities')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('activities as a')
          .innerJoin('workspaces as w', 'w.id', 'a.workspaceId')
          .select('a.id')
          .where(sql<boolean>`a.created_at < now() - make_interval(days => w.keep_activity_days)`)
          .limit(PRUNE_BATCH),
      )
      .executeTakeFirst();
    return Number(gone.numDeletedRows);
  });

  report.usage = await drain(async () => {
    const gone = await db
      .deleteFrom('deviceUsage')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('deviceUsage as u')
          .innerJoin('workspaces as w', 'w.id', 'u.workspaceId')
          .select('u.id')
          .where('u.endedAt', 'is not', null)
          .where(sql<boolean>`u.ended_at < now() - make_interval(days => w.keep_activity_days)`)
          .limit(PRUNE_BATCH),
      )
      .executeTakeFirst();
    return Number(gone.numDeletedRows);
  });

  report.tasks = await drain(async () => {
    const gone = await db
      .deleteFrom('tasks')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('tasks as t')
          .innerJoin('workspaces as w', 'w.id', 't.workspaceId')
          .select('t.id')
          .where('t.status', 'in', ['completed', 'failed', 'cancelled'])
          .where(sql<boolean>`t.updated_at < now() - make_interval(days => w.keep_finished_tasks_days)`)
          // A task whose evidence keeps a frame goes once that evidence went (above), its file with it.
          .where((eb) =>
            eb.not(eb.exists(eb.selectFrom('taskFailureTraces as f').select('f.taskId').whereRef('f.taskId', '=', 't.id').where('f.frameKey', 'is not', null))),
          )
          .limit(PRUNE_BATCH),
      )
      .executeTakeFirst();
    return Number(gone.numDeletedRows);
  });

  // Neither table has an id: a batch is named by its rows' ctid, read in the same statement.
  for (const table of ['recipe_runs_daily', 'recipe_run_devices'] as const) {
    report.recipeRuns += await drain(async () => {
      const gone = await sql`
        delete from ${sql.table(table)} where ctid = any(array(
          select ctid from ${sql.table(table)} where day < current_date - ${RECIPE_RUN_DAYS}::int limit ${PRUNE_BATCH}::int))`.execute(db);
      return Number(gone.numAffectedRows ?? 0);
    });
  }
  return report;
}
