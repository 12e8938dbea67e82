/**
 * The recipe health board's reads: the day rows the workers keep (`recipe_runs_daily`, `recipe_run_devices`, migration
 * 0043), the failed attempts behind them, the breakers, and what the fleet's phones said they have installed. Every
 * read is of one workspace.
 */
import { sql } from 'kysely';
import type { Db } from '../../shared/types.ts';

/** At most this many phone names per row (the count is whole). */
export const PHONE_NAMES = 10;
/** At most this many failed runs per row. */
export const LAST_FAILURES = 5;

/** The window in whole days of the workspace's zone: `days` days ending today; failures since `since`. */
export interface HealthWindow {
  timeZone: string;
  from: string;
  to: string;
  /** The first moment counted for the failure evidence (the start of `from` in the zone, or 24 hours ago for 24h). */
  since: Date;
}

/** The workspace's zone and the window's days in it. */
export async function healthWindow(db: Db, workspaceId: string, days: number, exactHours: number | null): Promise<HealthWindow | undefined> {
  const { rows } = await sql<HealthWindow>`
    select w.time_zone as "timeZone",
           to_char(b.first_day, 'YYYY-MM-DD') as "from",
           to_char(b.today, 'YYYY-MM-DD') as "to",
           ${exactHours === null ? sql`b.first_day::timestamp at time zone w.time_zone` : sql`now() - make_interval(hours => ${exactHours}::int)`} as since
    from workspaces w,
         lateral (select (now() at time zone w.time_zone)::date as today,
                         (now() at time zone w.time_zone)::date - ${days - 1}::int as first_day) b
    where w.id = ${workspaceId}`.execute(db);
  return rows[0];
}

export interface RunTotals {
  recipeId: string;
  package: string;
  appVersion: string;
  runs: number;
  succeeded: number;
  failed: number;
  /** `{code: n}` summed over the days, as text (the database layer would rename its keys). */
  codes: string;
  buckets: number[];
}

/** Each recipe and app version's runs summed over the window's days. */
export async function runTotals(db: Db, workspaceId: string, window: HealthWindow): Promise<RunTotals[]> {
  const { rows } = await sql<RunTotals>`
    select r.recipe_id as "recipeId", r.package, r.app_version as "appVersion",
           sum(r.runs)::int as runs, sum(r.succeeded)::int as succeeded, sum(r.failed)::int as failed,
           coalesce((select jsonb_object_agg(c.key, c.n) from (
               select e.key, sum(e.value::int) as n
               from recipe_runs_daily d2, jsonb_each_text(d2.failure_codes) e
               where d2.workspace_id = r.workspace_id and d2.recipe_id = r.recipe_id and d2.package = r.package
                 and d2.app_version = r.app_version and d2.day between ${window.from}::date and ${window.to}::date
               group by e.key) c), '{}'::jsonb)::text as codes,
           array(select sum(b.n)::int from recipe_runs_daily d3, unnest(d3.duration_buckets) with ordinality as b(n, i)
                 where d3.workspace_id = r.workspace_id and d3.recipe_id = r.recipe_id and d3.package = r.package
                   and d3.app_version = r.app_version and d3.day between ${window.from}::date and ${window.to}::date
                 group by b.i order by b.i) as buckets
    from recipe_runs_daily r
    where r.workspace_id = ${workspaceId} and r.day between ${window.from}::date and ${window.to}::date
    group by r.workspace_id, r.recipe_id, r.package, r.app_version
    order by r.recipe_id, r.package, r.app_version`.execute(db);
  return rows;
}

export interface RunPhones {
  recipeId: string;
  package: string;
  appVersion: string;
  count: number;
  names: string[];
}

/** The distinct phones each recipe and app version ran on in the window, with the first names. */
export async function runPhones(db: Db, workspaceId: string, window: HealthWindow): Promise<RunPhones[]> {
  const { rows } = await sql<RunPhones>`
    select p.recipe_id as "recipeId", p.package, p.app_version as "appVersion", count(*)::int as count,
           (array_agg(p.name order by p.name, p.device_id))[1:${PHONE_NAMES}::int] as names
    from (select distinct r.recipe_id, r.package, r.app_version, r.device_id, d.name
          from recipe_run_devices r join devices d on d.id = r.device_id and d.workspace_id = r.workspace_id
          where r.workspace_id = ${workspaceId} and r.day between ${window.from}::date and ${window.to}::date) p
    group by p.recipe_id, p.package, p.app_version`.execute(db);
  return rows;
}

export interface FailedRun {
  recipeId: string;
  package: string;
  appVersion: string;
  taskId: string;
  taskTitle: string;
  deviceId: string | null;
  deviceName: string | null;
  at: Date;
  code: string;
  message: string | null;
  recipeVersion: number | null;
}

/**
 * The newest failed runs (LAST_FAILURES each) of every recipe and app version that ran in the window, since `since`:
 * per key, a walk down the failed-attempts index (0043) that stops after LAST_FAILURES rows.
 */
export async function lastFailedRuns(db: Db, workspaceId: string, window: HealthWindow): Promise<FailedRun[]> {
  const { rows } = await sql<FailedRun>`
    select k.recipe_id as "recipeId", k.package, k.app_version as "appVersion", f.task_id as "taskId", t.title as "taskTitle",
           f.device_id as "deviceId", d.name as "deviceName", f.ended_at as at, coalesce(f.failure_code, 'unknown') as code,
           f.failure_message as message, f.recipe_version as "recipeVersion"
    from (select distinct recipe_id, package, app_version from recipe_runs_daily
          where workspace_id = ${workspaceId} and day between ${window.from}::date and ${window.to}::date and failed > 0) k
    cross join lateral (
      select a.task_id, a.device_id, a.ended_at, a.failure_code, a.failure_message, a.recipe_version
      from task_attempts a
      where a.workspace_id = ${workspaceId} and a.recipe_id = k.recipe_id and a.app_package = k.package and a.app_version = k.app_version
        and a.outcome = 'failed' and a.ended_at >= ${window.since}
      order by a.ended_at desc
      limit ${LAST_FAILURES}::int
    ) f
    join tasks t on t.id = f.task_id and t.workspace_id = ${workspaceId}
    left join devices d on d.id = f.device_id and d.workspace_id = ${workspaceId}
    order by f.ended_at desc, f.task_id`.execute(db);
  return rows;
}

export interface BreakerFacts {
  id: string;
  recipeId: string;
  recipeName: string;
  platform: string;
  package: string;
  appVersion: string;
  paused: boolean;
  phones: number;
  trippedAt: Date;
  resumedAt: Date | null;
  resumedById: string | null;
  resumedByName: string | null;
}

/** Every breaker of the workspace, tripped or turned back on, with who turned it back on. */
export async function breakerFacts(db: Db, workspaceId: string): Promise<BreakerFacts[]> {
  return db
    .selectFrom('recipeBreakers as b')
    .leftJoin('users as u', 'u.id', 'b.resumedBy')
    .select([
      'b.id',
      'b.recipeId',
      'b.recipeName',
      'b.platform',
      'b.package',
      'b.appVersion',
      'b.paused',
      'b.phones',
      'b.trippedAt',
      'b.resumedAt',
      'b.resumedBy as resumedById',
      'u.name as resumedByName',
    ])
    .where('b.workspaceId', '=', workspaceId)
    .execute();
}

/** The versions the workspace's recipe rows were verified on, each with its row. */
export function verificationsOf(db: Db, workspaceId: string) {
  return db
    .selectFrom('recipeVerifications')
    .select(['recipeRowId', 'recipeId', 'package', 'appVersion', 'locale'])
    .where('workspaceId', '=', workspaceId)
    .execute();
}

export interface InstalledVersion {
  package: string;
  version: string;
  count: number;
  names: string[];
}

/** The app versions the workspace's phones said they have installed, with how many phones and the first names. */
export async function installedVersions(db: Db, workspaceId: string): Promise<InstalledVersion[]> {
  const { rows } = await sql<InstalledVersion>`
    select e.app->>'package' as package, e.app->>'version' as version, count(*)::int as count,
           (array_agg(d.name order by d.name, d.id))[1:${PHONE_NAMES}::int] as names
    from device_software s
    join devices d on d.id = s.device_id and d.workspace_id = s.workspace_id
    cross join lateral jsonb_array_elements(case when jsonb_typeof(s.apps) = 'array' then s.apps else '[]'::jsonb end) as e(app)
    where s.workspace_id = ${workspaceId} and jsonb_typeof(e.app->'version') = 'string' and e.app->>'package' is not null
    group by 1, 2
    order by 1, 2`.execute(db);
  return rows;
}
