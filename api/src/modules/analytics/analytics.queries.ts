/**
 * The analytics figures of SPEC §9, computed in SQL. A range filters the work done in it (tasks created,
 * sessions started); the fleet's present state (devices, running sessions) is always now.
 */
import { sql } from 'kysely';
import type { Range } from '../../contracts/index.ts';
import type { Db } from '../../shared/types.ts';

const RANGE_HOURS: Record<Range, number> = { '24h': 24, '7d': 24 * 7, '30d': 24 * 30, '90d': 24 * 90 };

export function rangeStart(range: Range | undefined, now = Date.now()): Date | undefined {
  return range ? new Date(now - RANGE_HOURS[range] * 3600_000) : undefined;
}

/** Seconds a session has run, counting a running one up to now. */
const sessionSeconds = sql<number>`(s.duration + case when s.is_active and s.active_since is not null then floor(extract(epoch from (now() - s.active_since)))::int else 0 end)`;

export function successRate(completed: number, total: number): number {
  return total === 0 ? 0 : Math.round((completed / total) * 1000) / 10;
}

export async function computeStats(db: Db, workspaceId: string, range: Range | undefined) {
  const since = rangeStart(range);
  const [devices, tasks, sessions] = await Promise.all([
    db
      .selectFrom('devices')
      .select([sql<number>`count(*)::int`.as('total'), sql<number>`(count(*) filter (where status = 'online'))::int`.as('online')])
      .where('workspaceId', '=', workspaceId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('tasks')
      .select([sql<number>`count(*)::int`.as('total'), sql<number>`(count(*) filter (where status = 'completed'))::int`.as('completed')])
      .where('workspaceId', '=', workspaceId)
      .$if(since !== undefined, (q) => q.where('createdAt', '>=', since!))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('sessions as s')
      .select([
        sql<number>`(count(*) filter (where s.ended_at is null and s.is_active))::int`.as('active'),
        sql<number>`coalesce(sum(${sessionSeconds}), 0)::int`.as('seconds'),
      ])
      .where('s.workspaceId', '=', workspaceId)
      .$if(since !== undefined, (q) => q.where((eb) => eb.or([eb('s.startedAt', '>=', since!), eb('s.endedAt', 'is', null)])))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    activeSessions: sessions.active,
    totalDevices: devices.total,
    onlineDevices: devices.online,
    completedTasks: tasks.completed,
    totalTasks: tasks.total,
    totalSessionTime: sessions.seconds,
    successRate: successRate(tasks.completed, tasks.total),
    avgSessionTime: tasks.total === 0 ? 0 : Math.floor(sessions.seconds / tasks.total),
    range: range ?? null,
  };
}

const TOP = 5;

/** The five busiest phones and VAs of the range, with their share of tasks completed. */
export async function computePerformance(db: Db, workspaceId: string, range: Range | undefined) {
  const since = rangeStart(range);
  const taskJoin = (alias: 'd' | 'm', column: 'deviceId' | 'assignedToId') =>
    sql`left join tasks t on t.${sql.ref(column === 'deviceId' ? 'device_id' : 'assigned_to_id')} = ${sql.ref(alias === 'd' ? 'd.id' : 'm.user_id')} ${since ? sql`and t.created_at >= ${since}` : sql``}`;
  const devices = await sql<{ deviceId: string; name: string; totalTasks: number; completedTasks: number }>`
    select d.id as "deviceId", d.name, count(t.id)::int as "totalTasks",
           (count(t.id) filter (where t.status = 'completed'))::int as "completedTasks"
    from devices d ${taskJoin('d', 'deviceId')}
    where d.workspace_id = ${workspaceId}
    group by d.id, d.name
    order by count(t.id) desc, d.name
    limit ${TOP}`.execute(db);
  const vas = await sql<{ userId: string; name: string; totalTasks: number; completedTasks: number; seconds: number }>`
    select m.user_id as "userId", u.name,
           count(t.id)::int as "totalTasks",
           (count(t.id) filter (where t.status = 'completed'))::int as "completedTasks",
           coalesce((select sum(d.session_time) from devices d where d.assigned_to_id = m.user_id and d.workspace_id = ${workspaceId}), 0)::int as seconds
    from workspace_members m
    join users u on u.id = m.user_id
    ${taskJoin('m', 'assignedToId')}
    where m.workspace_id = ${workspaceId} and m.role = 'va'
    group by m.user_id, u.name
    order by count(t.id) desc, u.name
    limit ${TOP}`.execute(db);
  const share = (completed: number, total: number) => (total === 0 ? 0 : Math.round((completed / total) * 100));
  return {
    devices: devices.rows.map((row) => ({ ...row, successRate: share(row.completedTasks, row.totalTasks) })),
    vas: vas.rows.map(({ seconds, ...row }) => ({ ...row, successRate: share(row.completedTasks, row.totalTasks), hours: Math.round(seconds / 3600) })),
  };
}
