/**
 * The recipe health board's counts: each recipe run a phone reports is added to its workspace day's row for the recipe
 * and app version (`recipe_runs_daily`, migration 0043) and its phone to that day's set (`recipe_run_devices`), so a
 * window of days reads a few rows instead of every attempt. A run is counted in the statement that first records the
 * phone's result on its attempt (the lifecycle's `recorded`), so a result sent twice, or answered from the phone's
 * journal after a reconnect, is counted once. A failed attempt that is tried again is a run of its own: it counts too.
 */
import { sql } from 'kysely';
import type { RecipeRun } from '@farm/agent-protocol';
import type { Tx } from '../db.ts';

/**
 * Upper bounds (ms, exclusive) of the duration buckets; one more bucket holds everything longer. Written into
 * migration 0043's comment and default (14 buckets): change both together, with a migration.
 */
export const RUN_MS_BOUNDS = [2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_200_000, 1_800_000, 3_600_000, 7_200_000] as const;
export const RUN_MS_BUCKETS = RUN_MS_BOUNDS.length + 1;

/** The run a result reports: its own `run`, else (agents before it) the recipe and app a failure names, untimed. */
export interface RunFacts {
  recipe: { id: string; version: number };
  app?: { package: string; version: string } | undefined;
  durationMs?: number | undefined;
}

/** What a phone said of its attempt that the board counts. */
export interface RunResult {
  status: 'completed' | 'failed';
  failure?: { code: string; recipe?: RunFacts['recipe'] | undefined; app?: RunFacts['app'] | undefined } | undefined;
  run?: RecipeRun | undefined;
}

export function runOf(result: RunResult): RunFacts | undefined {
  if (result.run) return result.run;
  if (result.status === 'failed' && result.failure?.recipe) return { recipe: result.failure.recipe, app: result.failure.app };
  return undefined;
}

/** The attempt's columns for the run (0043): null where no recipe ran; '' for an app the run never read. */
export function attemptRunColumns(run: RunFacts | undefined) {
  return {
    recipeId: run?.recipe.id ?? null,
    recipeVersion: run?.recipe.version ?? null,
    appPackage: run ? (run.app?.package ?? '') : null,
    appVersion: run ? (run.app?.version ?? '') : null,
    runMs: run?.durationMs ?? null,
  };
}

/** The bucket a duration falls in. */
export function bucketOf(ms: number): number {
  const index = RUN_MS_BOUNDS.findIndex((bound) => ms < bound);
  return index === -1 ? RUN_MS_BOUNDS.length : index;
}

/**
 * The median duration estimated from bucket counts: the bucket holding the middle run, and a straight line across
 * it (the last, open bucket answers its lower bound). Null without timed runs.
 */
export function medianOf(buckets: readonly number[]): number | null {
  const total = buckets.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const middle = total / 2;
  let before = 0;
  for (const [i, n] of buckets.entries()) {
    if (n > 0 && before + n >= middle) {
      const lo = i === 0 ? 0 : RUN_MS_BOUNDS[i - 1]!;
      const hi = RUN_MS_BOUNDS[i];
      if (hi === undefined) return lo;
      return Math.round(lo + ((middle - before) / n) * (hi - lo));
    }
    before += n;
  }
  return null;
}

/** One counted run: the phone, its workspace, how the attempt ended, and the run. */
export interface CountedRun {
  workspaceId: string;
  deviceId: string;
  status: 'completed' | 'failed';
  code?: string | undefined;
  run: RunFacts;
}

interface Row {
  workspaceId: string;
  recipeId: string;
  package: string;
  appVersion: string;
  runs: number;
  succeeded: number;
  failed: number;
  codes: Record<string, number>;
  timed: number;
  ms: number;
  buckets: number[];
}

/**
 * Adds runs to their day rows and their phones to the day's sets, in the caller's transaction (the one that records
 * the results). Runs of the same recipe and version are summed first, and rows are written in key order, so two
 * batches touching the same rows wait for each other rather than deadlock.
 */
export async function countRecipeRuns(tx: Tx, runs: readonly CountedRun[]): Promise<void> {
  if (runs.length === 0) return;
  const rows = new Map<string, Row>();
  const devices = new Map<string, { workspaceId: string; recipeId: string; package: string; appVersion: string; deviceId: string }>();
  for (const { workspaceId, deviceId, status, code, run } of runs) {
    const key = { workspaceId, recipeId: run.recipe.id, package: run.app?.package ?? '', appVersion: run.app?.version ?? '' };
    const name = JSON.stringify([key.workspaceId, key.recipeId, key.package, key.appVersion]);
    const row = rows.get(name) ?? { ...key, runs: 0, succeeded: 0, failed: 0, codes: {}, timed: 0, ms: 0, buckets: new Array<number>(RUN_MS_BUCKETS).fill(0) };
    row.runs += 1;
    if (status === 'completed') row.succeeded += 1;
    else {
      row.failed += 1;
      const reason = code ?? 'unknown';
      row.codes[reason] = (row.codes[reason] ?? 0) + 1;
    }
    if (run.durationMs !== undefined) {
      row.timed += 1;
      row.ms += run.durationMs;
      const bucket = bucketOf(run.durationMs);
      row.buckets[bucket] = (row.buckets[bucket] ?? 0) + 1;
    }
    rows.set(name, row);
    devices.set(JSON.stringify([name, deviceId]), { ...key, deviceId });
  }
  const ordered = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  const column = <T>(pick: (row: Row) => T) => ordered.map(pick);
  await sql`
    insert into recipe_runs_daily as r
      (workspace_id, day, recipe_id, package, app_version, runs, succeeded, failed, failure_codes, timed_runs, duration_ms_sum, duration_buckets)
    select g.workspace_id, (now() at time zone w.time_zone)::date, g.recipe_id, g.package, g.app_version, g.runs, g.succeeded, g.failed,
           g.codes::jsonb, g.timed, g.ms, g.buckets::int[]
    from unnest(
      ${column((row) => row.workspaceId)}::uuid[], ${column((row) => row.recipeId)}::text[], ${column((row) => row.package)}::text[],
      ${column((row) => row.appVersion)}::text[], ${column((row) => row.runs)}::int[], ${column((row) => row.succeeded)}::int[],
      ${column((row) => row.failed)}::int[], ${column((row) => JSON.stringify(row.codes))}::text[], ${column((row) => row.timed)}::int[],
      ${column((row) => row.ms)}::bigint[], ${column((row) => `{${row.buckets.join(',')}}`)}::text[]
    ) with ordinality as g(workspace_id, recipe_id, package, app_version, runs, succeeded, failed, codes, timed, ms, buckets, n)
    join workspaces w on w.id = g.workspace_id
    order by g.n
    on conflict (workspace_id, day, recipe_id, package, app_version) do update set
      runs = r.runs + excluded.runs,
      succeeded = r.succeeded + excluded.succeeded,
      failed = r.failed + excluded.failed,
      failure_codes = (
        select coalesce(jsonb_object_agg(e.key, e.n), '{}'::jsonb)
        from (select key, sum(value::int) as n
              from (select * from jsonb_each_text(r.failure_codes) union all select * from jsonb_each_text(excluded.failure_codes)) c
              group by key) e),
      timed_runs = r.timed_runs + excluded.timed_runs,
      duration_ms_sum = r.duration_ms_sum + excluded.duration_ms_sum,
      duration_buckets = array(
        select coalesce(a, 0) + coalesce(b, 0)
        from unnest(r.duration_buckets, excluded.duration_buckets) with ordinality as u(a, b, n) order by u.n)`.execute(tx);
  const phones = [...devices.values()];
  await sql`
    insert into recipe_run_devices (workspace_id, day, recipe_id, package, app_version, device_id)
    select g.workspace_id, (now() at time zone w.time_zone)::date, g.recipe_id, g.package, g.app_version, g.device_id
    from unnest(
      ${phones.map((p) => p.workspaceId)}::uuid[], ${phones.map((p) => p.recipeId)}::text[], ${phones.map((p) => p.package)}::text[],
      ${phones.map((p) => p.appVersion)}::text[], ${phones.map((p) => p.deviceId)}::uuid[]
    ) as g(workspace_id, recipe_id, package, app_version, device_id)
    join workspaces w on w.id = g.workspace_id
    join devices d on d.id = g.device_id and d.workspace_id = g.workspace_id
    on conflict do nothing`.execute(tx);
}
