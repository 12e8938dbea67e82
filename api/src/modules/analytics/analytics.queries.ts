/**
 * The analytics figures of SPEC §9, computed in SQL. A range filters the work done in it (tasks created,
 * sessions started); the fleet's present state (devices, running sessions) is always now.
 */
import { platforms } from '@farm/agent-protocol/values';
import { NAMED_STATEMENT } from '@farm/sql';
import { sql, type RawBuilder } from 'kysely';
import { leaderboardColumns, type LeaderboardTable, type Range, type TimeBucket, type TimeseriesMetric } from '@farm/contracts';
import type { Db } from '../../shared/types.ts';
import { pageNumber } from '../../shared/paging.ts';

const RANGE_HOURS: Record<Range, number> = { '24h': 24, '7d': 24 * 7, '30d': 24 * 30, '90d': 24 * 90 };

export function rangeStart(range: Range | undefined, now = Date.now()): Date | undefined {
  return range ? new Date(now - RANGE_HOURS[range] * 3600_000) : undefined;
}

/** Seconds a session has run, counting a running one up to now. */
const sessionSeconds = sql<number>`(s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)`;

/** SQL: the phone (a device id column) is in the group; the group's phones only, when a figure is of one group. */
const inGroup = (groupId: string, deviceId: RawBuilder<unknown>) =>
  sql<boolean>`exists (select 1 from device_group_members m where m.group_id = ${groupId} and m.device_id = ${deviceId})`;

export function successRate(completed: number, total: number): number {
  return total === 0 ? 0 : Math.round((completed / total) * 1000) / 10;
}

/** The fleet now: its phones, and those connected (online, busy or idle), from the phone tallies (migration 0029). */
function fleetNow(workspaceId: string) {
  return sql`select coalesce(sum(n), 0)::int as devices, coalesce(sum(n) filter (where status <> 'offline'), 0)::int as online
    from device_tallies where workspace_id = ${workspaceId}`;
}

export async function computeStats(db: Db, workspaceId: string, range: Range | undefined, groupId?: string) {
  const { rows } = await sql<FigureRow>`${statsStatement(workspaceId, rangeStart(range), range === undefined ? groupId : undefined)}`.execute(db);
  return { ...figuresOf(rows[0]!), range: range ?? null };
}

/**
 * The stat cards of all time (of one group's phones, when given) with the workspace's time zone, which the answer
 * names: one statement, where the figures and the zone were two read side by side, each a round trip and a
 * statement of the database's.
 */
export async function computeStatsOfAllTime(db: Db, workspaceId: string, groupId?: string) {
  // The figures' columns are named, not `f.*`: a statement with a star is planned on every call (sql/src/prepared.ts).
  const { rows } = await sql<FigureRow & { timeZone: string }>`
    select f.total, f.completed, f.seconds, f.active, f.devices, f.online, w.time_zone as "timeZone"
    from workspaces w, (${statsStatement(workspaceId, undefined, groupId)}) f
    where w.id = ${workspaceId}`.execute(db);
  const row = rows[0];
  if (!row) throw new Error(`workspace ${workspaceId} not found`);
  return { ...figuresOf(row), range: null, timeZone: row.timeZone };
}

/**
 * The stat cards' counts as one statement (see FigureRow), of all time or since a range's start. Of all time the task
 * totals come from the tallies (migration 0024); one group's phones of all time are counted from the tasks and
 * sessions themselves (the rollups are per workspace).
 */
function statsStatement(workspaceId: string, since: Date | undefined, groupId: string | undefined): RawBuilder<FigureRow> {
  if (groupId && since === undefined) {
    return sql<FigureRow>`${figuresOver(workspaceId, sql`'-infinity'::timestamptz`, sql`'infinity'::timestamptz`, false, groupId)}`;
  }
  const taskTotals =
    since === undefined
      ? sql`select coalesce(sum(n), 0)::int as total, coalesce(sum(n) filter (where status = 'completed'), 0)::int as completed
            from task_tallies where workspace_id = ${workspaceId}`
      : sql`select count(*)::int as total, (count(*) filter (where status = 'completed'))::int as completed
            from tasks where workspace_id = ${workspaceId} and created_at >= ${since}`;
  return sql<FigureRow>`
    select t.total, t.completed, s.seconds, s.active, d.devices, d.online
    from (${fleetNow(workspaceId)}) d,
         (${taskTotals}) t,
         (select (count(*) filter (where s.ended_at is null))::int as active, coalesce(sum(${sessionSeconds}), 0)::int as seconds
          from sessions s
          where s.workspace_id = ${workspaceId} ${since ? sql`and (s.started_at >= ${since} or s.ended_at is null)` : sql``}) s`;
}

const TOP = 5;

/**
 * The five busiest phones and VAs of the range, with their share of tasks completed. Of all time, the counts are
 * the rollup per phone and VA (migration 0027), a few rows per phone; over a range, the tasks created in it. Both
 * lists come in one statement, each as a JSON array in its order: they were two statements one after the other.
 */
export async function computePerformance(db: Db, workspaceId: string, range: Range | undefined) {
  const since = rangeStart(range);
  /** Tasks and completed tasks per phone (or VA), for those that have any. */
  const countsBy = (column: 'device_id' | 'assigned_to_id') =>
    since
      ? tasksPer(column, workspaceId, sql`created_at >= ${since}`)
      : sql`select ${sql.ref(column)} as key, sum(n)::int as total, (sum(n) filter (where completed))::int as completed
            from task_worker_counts where workspace_id = ${workspaceId}
            group by ${sql.ref(column)}`;
  // The list's length is written into the statement, so PostgreSQL keeps one plan for it (shared/paging.ts).
  const top = sql.lit(TOP);
  const { rows } = await sql<{
    devices: { deviceId: string; name: string; totalTasks: number; completedTasks: number }[] | null;
    vas: { userId: string; name: string; totalTasks: number; completedTasks: number; seconds: number }[] | null;
  }>`
    select
      (select json_agg(p order by p."totalTasks" desc, p.name) from (
        select d.id as "deviceId", d.name, coalesce(c.total, 0) as "totalTasks", coalesce(c.completed, 0) as "completedTasks"
        from devices d left join (${countsBy('device_id')}) c on c.key = d.id
        where d.workspace_id = ${workspaceId}
        order by coalesce(c.total, 0) desc, d.name
        limit ${top}) p) as devices,
      (select json_agg(p order by p."totalTasks" desc, p.name) from (
        select m.user_id as "userId", u.name, coalesce(c.total, 0) as "totalTasks", coalesce(c.completed, 0) as "completedTasks",
               ${
                 since
                   ? sql`coalesce((select sum(${sessionSeconds}) from sessions s join devices d on d.id = s.device_id
                          where d.assigned_to_id = m.user_id and d.workspace_id = ${workspaceId} and s.started_at >= ${since}), 0)::int`
                   : sql`coalesce((select sum(d.session_time) from devices d where d.assigned_to_id = m.user_id and d.workspace_id = ${workspaceId}), 0)::int`
               } as seconds
        from workspace_members m
        join users u on u.id = m.user_id
        left join (${countsBy('assigned_to_id')}) c on c.key = m.user_id
        where m.workspace_id = ${workspaceId} and m.role = 'va'
        order by coalesce(c.total, 0) desc, u.name
        limit ${top}) p) as vas`.execute(db);
  const { devices, vas } = rows[0]!;
  const share = (completed: number, total: number) => (total === 0 ? 0 : Math.round((completed / total) * 100));
  return {
    devices: (devices ?? []).map((row) => ({ ...row, successRate: share(row.completedTasks, row.totalTasks) })),
    vas: (vas ?? []).map(({ seconds, ...row }) => ({ ...row, successRate: share(row.completedTasks, row.totalTasks), hours: Math.round(seconds / 3600) })),
  };
}

// ---- Windows in the workspace's time zone, the previous period, series and tables --------------------------

export interface WindowInput {
  range?: Range | undefined;
  from?: string | undefined;
  to?: string | undefined;
  tz?: string | undefined;
}

/** A half-open window [start, end) with the period of the same length just before it, and its bucket size. */
export interface AnalyticsWindow {
  range: Range | null;
  timeZone: string;
  bucket: TimeBucket;
  start: Date;
  end: Date;
  previousStart: Date;
}

const RANGE_DAYS: Record<Exclude<Range, '24h'>, number> = { '7d': 7, '30d': 30, '90d': 90 };

/**
 * Resolves a window in the database, in the zone's own calendar: 24h is the 24 hours ending with the current
 * hour; 7d, 30d and 90d are that many days ending with today; a custom window is whole days from `from` to `to`.
 * Days are counted in the zone, so a day across a daylight-saving change is 23 or 25 hours long.
 */
export async function resolveWindow(db: Db, workspaceId: string, input: WindowInput, fallback: Range = '7d'): Promise<AnalyticsWindow> {
  const { range, bucket, bounds } = windowOf(workspaceId, input, fallback);
  const row = (await bounds.execute(db)).rows[0];
  if (!row) throw new Error(`workspace ${workspaceId} not found`);
  return { range, bucket, ...row };
}

type Bounds = Pick<AnalyticsWindow, 'timeZone' | 'start' | 'end' | 'previousStart'>;

/** The window as one statement: the zone (the query's, else the workspace's) and the window's bounds in it. */
function windowOf(workspaceId: string, input: WindowInput, fallback: Range) {
  const range = input.from ? null : (input.range ?? fallback);
  const zone = sql`workspaces w, lateral (select coalesce(${input.tz ?? null}::text, w.time_zone) as name) z`;
  const days = range && range !== '24h' ? RANGE_DAYS[range] : null;
  const bounds =
    range === '24h'
      ? sql<Bounds>`
          select z.name as "timeZone",
                 (h.hour at time zone z.name) - interval '23 hours' as start,
                 (h.hour at time zone z.name) + interval '1 hour' as "end",
                 (h.hour at time zone z.name) - interval '47 hours' as "previousStart"
          from ${zone}, lateral (select date_trunc('hour', now() at time zone z.name) as hour) h
          where w.id = ${workspaceId}`
      : sql<Bounds>`
          select z.name as "timeZone",
                 b.first_day::timestamp at time zone z.name as start,
                 b.after_day::timestamp at time zone z.name as "end",
                 (b.first_day - (b.after_day - b.first_day))::timestamp at time zone z.name as "previousStart"
          from ${zone}, lateral (
            select ${days === null ? sql`${input.from}::date` : sql`(now() at time zone z.name)::date - ${days - 1}::int`} as first_day,
                   ${days === null ? sql`${input.to}::date + 1` : sql`(now() at time zone z.name)::date + 1`} as after_day) b
          where w.id = ${workspaceId}`;
  return { range, bucket: range === '24h' ? ('hour' as const) : ('day' as const), bounds };
}

interface Figures {
  activeSessions: number;
  totalDevices: number;
  onlineDevices: number;
  completedTasks: number;
  totalTasks: number;
  totalSessionTime: number;
  successRate: number;
  avgSessionTime: number;
}

/** The counts `figuresOver` answers, from which the figures follow. */
interface FigureRow {
  total: number;
  completed: number;
  seconds: number;
  active: number;
  devices: number;
  online: number;
}

/**
 * SPEC §9's figures over [start, end), as one row: tasks created in it (summed from the rollups of migrations 0027
 * and 0028), sessions started in it. For the current period the fleet is as it is now (the phone tallies) and open
 * sessions count; for a past period the fleet is as it stood at its end (phones that existed, phones connected by
 * their status history) and sessions open at its end. As on the dashboard, a connected phone is online, busy or idle,
 * and an active session is an open one, running or paused.
 */
function figuresOver(workspaceId: string, start: RawBuilder<Date>, end: RawBuilder<Date>, past: boolean, groupId?: string) {
  // Of one group's phones: its tasks and sessions only, counted from the rows (the rollups are per workspace).
  const ofGroup = (deviceId: string) => (groupId ? sql`and ${inGroup(groupId, sql.ref(deviceId))}` : sql``);
  const created = groupId
    ? sql`select count(*)::int as total, (count(*) filter (where t.status = 'completed'))::int as completed
          from tasks t where t.workspace_id = ${workspaceId} and t.created_at >= ${start} and t.created_at < ${end} ${ofGroup('t.device_id')}`
    : sql`select coalesce(sum(n), 0)::int as total, coalesce(sum(n) filter (where status = 'completed'), 0)::int as completed
          from tasks_created_between(${workspaceId}, ${start}, ${end})`;
  const fleet = past
    ? sql`(select count(*)::int as devices,
                  (count(*) filter (where (select h.status from device_status_history h where h.device_id = d.id and h.changed_at < ${end}
                                           order by h.changed_at desc, h.id desc limit 1) <> 'offline'))::int as online
           from devices d where d.workspace_id = ${workspaceId} and d.created_at < ${end} ${ofGroup('d.id')}) f`
    : groupId
      ? sql`(select count(*)::int as devices, (count(*) filter (where d.status <> 'offline'))::int as online
             from devices d where d.workspace_id = ${workspaceId} ${ofGroup('d.id')}) f`
      : sql`(${fleetNow(workspaceId)}) f`;
  return sql`
    select
      c.total, c.completed,
      (select coalesce(sum(${sessionSeconds}), 0)::int from sessions s
         where s.workspace_id = ${workspaceId} ${ofGroup('s.device_id')}
           and ((s.started_at >= ${start} and s.started_at < ${end}) ${past ? sql`` : sql`or s.ended_at is null`})) as seconds,
      ${
        past
          ? sql`(select count(*)::int from sessions s where s.workspace_id = ${workspaceId} ${ofGroup('s.device_id')} and s.started_at < ${end} and (s.ended_at is null or s.ended_at >= ${end}))`
          : sql`(select count(*)::int from sessions s where s.workspace_id = ${workspaceId} ${ofGroup('s.device_id')} and s.ended_at is null)`
      } as active,
      f.devices, f.online
    from (${created}) c, ${fleet}`;
}

function figuresOf(row: FigureRow): Figures {
  return {
    activeSessions: row.active,
    totalDevices: row.devices,
    onlineDevices: row.online,
    completedTasks: row.completed,
    totalTasks: row.total,
    totalSessionTime: row.seconds,
    successRate: successRate(row.completed, row.total),
    avgSessionTime: row.total === 0 ? 0 : Math.floor(row.seconds / row.total),
  };
}

/**
 * The stat cards: the window's figures and the previous period's, for the "vs last week" change. One statement: the
 * window's bounds, then both periods' figures over them.
 */
export async function computeWindowedStats(db: Db, workspaceId: string, input: WindowInput, groupId?: string) {
  const { range, bounds } = windowOf(workspaceId, input, '7d');
  const { rows } = await sql<Bounds & FigureRow & { past: boolean }>`
    with w as (${bounds})
    select w.*, false as past, f.* from w, lateral (${figuresOver(workspaceId, sql`w.start`, sql`w."end"`, false, groupId)}) f
    union all
    select w.*, true, f.* from w, lateral (${figuresOver(workspaceId, sql`w."previousStart"`, sql`w.start`, true, groupId)}) f`.execute(db);
  const current = rows.find((row) => !row.past);
  const previous = rows.find((row) => row.past);
  if (!current || !previous) throw new Error(`workspace ${workspaceId} not found`);
  return {
    ...figuresOf(current),
    range,
    from: current.start.toISOString(),
    to: current.end.toISOString(),
    timeZone: current.timeZone,
    previous: figuresOf(previous),
  };
}

/**
 * The buckets of the statement's window `win` (its bounds, from `windowOf`) as a SQL relation `buckets(at, next)`:
 * hours, or the zone's calendar days.
 */
function bucketsOf(bucket: AnalyticsWindow['bucket']) {
  return bucket === 'hour'
    ? sql`select b as at, b + interval '1 hour' as next
          from win, generate_series(win.start, win."end" - interval '1 hour', interval '1 hour') b`
    : sql`select d::timestamp at time zone win."timeZone" as at, (d::date + 1)::timestamp at time zone win."timeZone" as next
          from win, generate_series((win.start at time zone win."timeZone")::date, (win."end" at time zone win."timeZone")::date - 1, interval '1 day') d`;
}

/** The bounds of the statement's window `win`, for conditions on its rows (evaluated once per statement). */
const windowStart = sql<Date>`(select win.start from win)`;
const windowEnd = sql<Date>`(select win."end" from win)`;

const platformColumns = platforms;

/**
 * One point per bucket, zeros where nothing happened; each metric's values are named in the contract. Tasks and
 * engagement sum the rollup of tasks finished per quarter-hour (migration 0027) instead of counting the tasks.
 */
export async function computeTimeseries(db: Db, workspaceId: string, input: WindowInput, metric: TimeseriesMetric, groupId?: string) {
  const { bucket, bounds } = windowOf(workspaceId, input, '7d');
  const buckets = bucketsOf(bucket);
  // Of one group's phones: counted from the rows, as the stat cards do (the rollups are per workspace). A post is of
  // the group when its account's phone is.
  const ofGroup = (deviceId: string) => (groupId ? sql`and ${inGroup(groupId, sql.ref(deviceId))}` : sql``);
  const finished = (bucketRef: string) =>
    groupId
      ? sql`(select t.status, t.type, 1::bigint as n from tasks t
             where t.workspace_id = ${workspaceId} and t.status in ('completed', 'failed')
               and t.completed_at >= ${sql.ref(`${bucketRef}.at`)} and t.completed_at < ${sql.ref(`${bucketRef}.next`)} ${ofGroup('t.device_id')})`
      : sql`tasks_finished_between(${workspaceId}, ${sql.ref(`${bucketRef}.at`)}, ${sql.ref(`${bucketRef}.next`)})`;
  let query: RawBuilder<Record<string, unknown>>;
  /** The point's value columns, besides `at`. */
  let values: readonly string[];
  switch (metric) {
    case 'tasks':
      values = ['completed', 'failed'];
      query = sql`
        select b.at, coalesce(sum(f.n) filter (where f.status = 'completed'), 0)::int as completed,
               coalesce(sum(f.n) filter (where f.status = 'failed'), 0)::int as failed
        from buckets b
        left join lateral ${finished('b')} f on true
        group by b.at order by b.at`;
      break;
    case 'posts':
      values = platformColumns;
      query = sql`
        select b.at, ${sql.join(platformColumns.map((platform) => sql`(count(p.id) filter (where a.platform = ${platform}))::int as ${sql.ref(platform)}`))}
        from buckets b
        left join (posts p join accounts a on a.id = p.account_id ${ofGroup('a.device_id')})
          on p.workspace_id = ${workspaceId} and p.status = 'published' and p.published_at >= b.at and p.published_at < b.next
        group by b.at order by b.at`;
      break;
    case 'sessions':
      values = ['hours'];
      query = sql`
        select b.at, round(coalesce(sum(${sessionSeconds}), 0) / 3600.0, 2)::float8 as hours
        from buckets b
        left join sessions s on s.workspace_id = ${workspaceId} and s.started_at >= b.at and s.started_at < b.next ${ofGroup('s.device_id')}
        group by b.at order by b.at`;
      break;
    case 'engagement':
      values = ['actions'];
      query = sql`
        select b.at, coalesce(sum(f.n) filter (where f.type = 'engage' and f.status = 'completed'), 0)::int as actions
        from buckets b
        left join lateral ${finished('b')} f on true
        group by b.at order by b.at`;
      break;
    case 'devices':
      // Connected time: the spans between a phone's status changes in which it was not offline, cut to each bucket.
      values = ['hours'];
      query = sql`
        with spans as (
          select h.status, h.changed_at as since,
                 coalesce(lead(h.changed_at) over (partition by h.device_id order by h.changed_at, h.id), now()) as until
          from device_status_history h
          where h.workspace_id = ${workspaceId} and h.changed_at < ${windowEnd} ${ofGroup('h.device_id')}
        )
        select b.at, round(coalesce(sum(greatest(0, extract(epoch from (least(s.until, b.next, now()) - greatest(s.since, b.at))))) filter (where s.since is not null), 0) / 3600.0, 2)::float8 as hours
        from buckets b
        left join spans s on s.status <> 'offline' and s.since < b.next and s.until > b.at
        group by b.at order by b.at`;
      break;
  }
  // One statement: the window's bounds, its buckets and their values; every row carries the bounds.
  const { rows } = await sql<{ windowZone: string; windowStart: Date; windowEnd: Date; at: Date | null } & Record<string, number | Date | null>>`
    with win as (${bounds}), buckets as (${buckets}), points as (${query})
    select win."timeZone" as "windowZone", win.start as "windowStart", win."end" as "windowEnd", points.at,
      ${sql.join(values.map((column) => sql.ref(`points.${column}`)))}
    from win left join points on true
    order by points.at`.execute(db);
  const first = rows[0];
  if (!first) throw new Error(`workspace ${workspaceId} not found`);
  return {
    metric,
    bucket,
    timeZone: first.windowZone,
    from: first.windowStart.toISOString(),
    to: first.windowEnd.toISOString(),
    points: rows.flatMap(({ windowZone: _zone, windowStart: _start, windowEnd: _end, at, ...point }) =>
      at === null ? [] : [{ at: at.toISOString(), ...point } as { at: string } & Record<string, number>],
    ),
  };
}

/** Seconds of a session started in the window (a running one up to now). */
const seconds = sessionSeconds;

/**
 * The performance tables, sorted in SQL by any of their columns (best or worst first), paged, counted over the
 * window: tasks created in it, sessions started in it, posts published (or failed) in it. A VA's hours are
 * SPEC §9's rounded sum of the assigned devices' session seconds / 3600, over the sessions in the window.
 */
export async function computeLeaderboard(
  db: Db,
  workspaceId: string,
  input: WindowInput,
  table: LeaderboardTable,
  options: { sort?: string | undefined; order?: 'asc' | 'desc' | undefined; limit: number; offset: number; groupId?: string | undefined },
) {
  const columns: readonly string[] = leaderboardColumns[table];
  const sort = options.sort && columns.includes(options.sort) ? options.sort : columns[0]!;
  const order = options.order ?? (sort === 'name' ? 'asc' : 'desc');
  // The window is resolved by the table's own statement (`win`), not by a round trip of its own.
  const { bounds } = windowOf(workspaceId, input, '7d');
  const inWindow = (column: string) => sql`${sql.ref(column)} >= ${windowStart} and ${sql.ref(column)} < ${windowEnd}`;
  if (table === 'devices') return devicesTable(db, workspaceId, bounds, inWindow, { ...options, sort, order });
  let base: RawBuilder<unknown>;
  /** How many rows the table has, which the window does not change: its phones, VAs, campaigns or accounts. */
  let count: RawBuilder<unknown>;
  switch (table) {
    case 'vas':
      count = sql`select count(*) from workspace_members where workspace_id = ${workspaceId} and role = 'va'`;
      base = sql`select m.user_id as id, u.name,
          coalesce(t.total, 0) as "totalTasks",
          coalesce(t.completed, 0) as "completedTasks",
          coalesce(t.failed, 0) as "failedTasks",
          ${percentOf(sql`t.completed`, sql`coalesce(t.total, 0)`)} as "successRate",
          (select round(coalesce(sum(${seconds}), 0) / 3600.0)::int from sessions s join devices d on d.id = s.device_id
             where d.assigned_to_id = m.user_id and d.workspace_id = ${workspaceId} and ${inWindow('s.started_at')}) as hours,
          (select round(coalesce(sum(${usageSecondsIn(windowStart, windowEnd)}), 0) / 3600.0, 1)::float8 from device_usage du
             where du.workspace_id = ${workspaceId} and du.user_id = m.user_id and du.mode = 'watch' and du.started_at < ${windowEnd} and coalesce(du.ended_at, now()) > ${windowStart}) as "handsOnHours"
        from workspace_members m
        join users u on u.id = m.user_id
        left join (${tasksPer('assigned_to_id', workspaceId, inWindow('created_at'))}) t on t.key = m.user_id
        where m.workspace_id = ${workspaceId} and m.role = 'va'`;
      break;
    case 'campaigns':
      count = sql`select count(*) from campaigns where workspace_id = ${workspaceId}`;
      base = sql`select c.id, c.name, c.platform, c.status,
          count(cs.id)::int as runs,
          (count(cs.id) filter (where cs.status = 'completed'))::int as "completedRuns",
          (count(cs.id) filter (where cs.status = 'failed'))::int as "failedRuns",
          ${percentOf(sql`count(cs.id) filter (where cs.status = 'completed')`, sql`count(cs.id)`)} as "successRate",
          (select count(*)::int from posts p where p.campaign_id = c.id and p.status = 'published' and ${inWindow('p.published_at')}) as "postsPublished"
        from campaigns c
        left join campaign_sessions cs on cs.campaign_id = c.id and ${inWindow('cs.created_at')}
        where c.workspace_id = ${workspaceId}
        group by c.id, c.name, c.platform, c.status`;
      break;
    case 'accounts':
      count = sql`select count(*) from accounts where workspace_id = ${workspaceId}`;
      base = sql`select a.id, a.username as name, a.platform, a.status, a.followers, a.following,
          (select count(*)::int from posts p where p.account_id = a.id and p.status = 'published' and ${inWindow('p.published_at')}) as "postsPublished",
          (select count(*)::int from posts p where p.account_id = a.id and p.status = 'failed' and ${inWindow('p.scheduled_at')}) as "postsFailed",
          coalesce(
            (select h.followers from account_stats_history h where h.account_id = a.id and h.recorded_at < ${windowEnd} order by h.recorded_at desc, h.id desc limit 1)
            - coalesce(
                (select h.followers from account_stats_history h where h.account_id = a.id and h.recorded_at < ${windowStart} order by h.recorded_at desc, h.id desc limit 1),
                (select h.followers from account_stats_history h where h.account_id = a.id order by h.recorded_at, h.id limit 1)),
            0)::int as "followersGained"
        from accounts a
        where a.workspace_id = ${workspaceId}`;
      break;
  }
  // The total is counted apart (once, not a window function over every ranked row: a fifth of the per-phone
  // table's time at 2,000 phones), so PostgreSQL keeps only the page's rows while it sorts.
  // Planned per call: the VA table's per-VA subqueries' generic plan took 2.6 times as long as planning each call.
  const { rows } = await sql<{ id: string; name: string; total: number } & Record<string, number | string | null>>`
    with win as (${bounds})
    select ranked.*, (${count})::int as total
    from (${base}) ranked
    order by ${sql.raw(`"${sort}"`)} ${order === 'asc' ? sql`asc` : sql`desc`} nulls last, name asc, id asc
    limit ${pageLimit(options)} offset ${pageOffset(options)}`.execute(db);
  return pageOf(db, table, count, rows, options.offset);
}

/**
 * A table page's size and offset as SQL: written into the statement for the first page of a usual size, so PostgreSQL
 * keeps one plan for it instead of planning the statement on every call (shared/paging.ts); further pages pass their
 * offset as a parameter, so paging does not make a statement per page.
 */
const pageLimit = ({ limit }: { limit: number }) => pageNumber(limit, limit);
const pageOffset = ({ limit, offset }: { limit: number; offset: number }) => (offset === 0 ? pageNumber(0, limit) : sql<number>`${offset}`);

/** The page with the table's total, which a page past the last row counts on its own. */
async function pageOf<Row extends { total: number }>(db: Db, table: LeaderboardTable, count: RawBuilder<unknown>, rows: Row[], offset: number) {
  const total = rows[0]?.total ?? (offset > 0 ? (await sql<{ total: number }>`select (${count})::int as total`.execute(db)).rows[0]!.total : 0);
  return { table, total, rows: rows.map(({ total: _total, ...row }) => row) };
}

/**
 * The per-phone table. Every phone's tasks in the window are counted (migration 0031's creation-time index alone), and
 * the phones are ranked by the sort column; the page's rows then get their other columns, their sessions' hours
 * among them, unless the sort is by hours. Working out every column of every phone before keeping a page made the
 * statement alone take a fifth longer at 2,000 phones (pgbench: 2.34 ms against 1.93 ms).
 *
 * Named: a statement is planned once per connection for any values, and this plan does not depend on them. Planned
 * per call, as its percentages' products would leave it (sql/src/prepared.ts), it cost 1.2 to 1.3 times the
 * database time.
 */
async function devicesTable(
  db: Db,
  workspaceId: string,
  bounds: RawBuilder<Bounds>,
  inWindow: (column: string) => RawBuilder<unknown>,
  options: { sort: string; order: 'asc' | 'desc'; limit: number; offset: number; groupId?: string | undefined },
) {
  const { groupId } = options;
  const count = groupId
    ? sql`select count(*) from device_group_members m where m.group_id = ${groupId} and m.workspace_id = ${workspaceId}`
    : sql`select coalesce(sum(n), 0) from device_tallies where workspace_id = ${workspaceId}`;
  const sessionsIn = sql`sessions s where s.workspace_id = ${workspaceId} and ${inWindow('s.started_at')}`;
  const byHours = options.sort === 'hours';
  const keyOf: Record<(typeof leaderboardColumns.devices)[number], RawBuilder<unknown>> = {
    totalTasks: sql`coalesce(t.total, 0)`,
    completedTasks: sql`coalesce(t.completed, 0)`,
    failedTasks: sql`coalesce(t.failed, 0)`,
    successRate: percentOf(sql`t.completed`, sql`coalesce(t.total, 0)`),
    hours: tenthsOfHours(sql`coalesce(s.seconds, 0)`),
    name: sql`d.name`,
  };
  const order = sql`${options.order === 'asc' ? sql`asc` : sql`desc`} nulls last`;
  const { rows } = await sql<{ id: string; name: string; total: number } & Record<string, number | string | null>>`${sql.raw(NAMED_STATEMENT)}
    with win as (${bounds})
    select p.id, p.name, p.status,
      coalesce(p.total, 0) as "totalTasks",
      coalesce(p.completed, 0) as "completedTasks",
      coalesce(p.failed, 0) as "failedTasks",
      ${percentOf(sql`p.completed`, sql`coalesce(p.total, 0)`)} as "successRate",
      ${tenthsOfHours(sql`coalesce(${byHours ? sql`p.seconds` : sql`s.seconds`}, 0)`)} as hours,
      (${count})::int as total
    from (
      select d.id, d.name, d.status, t.total, t.completed, t.failed, ${byHours ? sql`s.seconds,` : sql``} ${keyOf[options.sort as keyof typeof keyOf]} as sort_key
      from devices d
      left join (${tasksPer('device_id', workspaceId, inWindow('created_at'))}) t on t.key = d.id
      ${byHours ? sql`left join (select s.device_id, sum(${seconds}) as seconds from ${sessionsIn} group by s.device_id) s on s.device_id = d.id` : sql``}
      where d.workspace_id = ${workspaceId} ${groupId ? sql`and ${inGroup(groupId, sql.ref('d.id'))}` : sql``}
      order by sort_key ${order}, d.name asc, d.id asc
      limit ${pageLimit(options)} offset ${pageOffset(options)}
    ) p
    ${byHours ? sql`` : sql`left join lateral (select sum(${seconds}) as seconds from ${sessionsIn} and s.device_id = p.id) s on true`}
    order by p.sort_key ${order}, p.name asc, p.id asc`.execute(db);
  return pageOf(db, 'devices', count, rows, options.offset);
}

/**
 * round(100 × part ÷ whole) of two counts, 0 for none, in integer arithmetic: half up, as `round` gives for these
 * non-negative counts. Numeric division over every row of a 2,000-phone table cost it a fifth of its database time.
 */
export function percentOf(part: RawBuilder<unknown>, whole: RawBuilder<unknown>) {
  return sql<number>`case when ${whole} = 0 then 0 else ((200 * ${part} + ${whole}) / (2 * ${whole}))::int end`;
}

/** Whole seconds (an integer, not negative) as hours to one decimal, rounded half up, in integer arithmetic. */
export function tenthsOfHours(seconds: RawBuilder<unknown>) {
  return sql<number>`((${seconds} + 180) / 360)::float8 / 10`;
}

/** The workspace's tasks matching `where`, counted per phone or VA: all, completed, failed. */
function tasksPer(column: 'device_id' | 'assigned_to_id', workspaceId: string, where: RawBuilder<unknown>) {
  return sql`select ${sql.ref(column)} as key, count(*)::int as total,
      (count(*) filter (where status = 'completed'))::int as completed, (count(*) filter (where status = 'failed'))::int as failed
    from tasks where workspace_id = ${workspaceId} and ${where}
    group by ${sql.ref(column)}`;
}

/**
 * Seconds of a usage session inside [start, end); open sessions count up to now. Control happens inside a watch of
 * the same connection, so a person's hands-on time is their watch sessions' time.
 */
export function usageSecondsIn(start: Date | RawBuilder<Date>, end: Date | RawBuilder<Date>) {
  return sql<number>`greatest(0, extract(epoch from least(coalesce(du.ended_at, now()), ${end}::timestamptz) - greatest(du.started_at, ${start}::timestamptz)))`;
}

/** An account's followers and following at the end of each bucket (the last change before it), over 30 days unless asked. */
export async function computeAccountGrowth(db: Db, workspaceId: string, accountId: string, input: WindowInput) {
  const { bucket, bounds } = windowOf(workspaceId, input, '30d');
  const { rows } = await sql<{ at: Date; followers: number; following: number }>`
    with win as (${bounds}), buckets as (${bucketsOf(bucket)})
    select b.at,
      coalesce((select h.followers from account_stats_history h where h.account_id = ${accountId} and h.workspace_id = ${workspaceId} and h.recorded_at < b.next order by h.recorded_at desc, h.id desc limit 1), 0)::int as followers,
      coalesce((select h.following from account_stats_history h where h.account_id = ${accountId} and h.workspace_id = ${workspaceId} and h.recorded_at < b.next order by h.recorded_at desc, h.id desc limit 1), 0)::int as following
    from buckets b order by b.at`.execute(db);
  return { bucket, points: rows.map((row) => ({ ...row, at: row.at.toISOString() })) };
}

/** The account, if it is the workspace's: what a growth chart is drawn for. */
export function findAccountId(db: Db, workspaceId: string, id: string) {
  return db.selectFrom('accounts').select('id').where('id', '=', id).where('workspaceId', '=', workspaceId).executeTakeFirst();
}
