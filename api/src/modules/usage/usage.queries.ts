/**
 * Who watches and who controls a phone from the console: the usage sessions (one row per watch or control, from
 * when to when) and the device's controller, kept together. One open control session per phone is the database's
 * own rule (a unique index), so two people racing for a phone never both get it.
 */
import { sql } from 'kysely';
import { deviceColumns, type DeviceRow } from '@farm/sql';
import type { Db, Tx } from '../../shared/types.ts';
import type { AnalyticsWindow } from '../analytics/analytics.queries.ts';
import { usageSecondsIn } from '../analytics/analytics.queries.ts';
import type { UsageMode } from '@farm/contracts';

export interface Person {
  userId: string;
  workspaceId: string;
  role: 'operator' | 'va';
  name: string;
}

/** The phone as the live view needs it, if it is in the person's workspace. */
export function findLiveDevice(db: Db | Tx, workspaceId: string, deviceId: string) {
  return db
    .selectFrom('devices')
    .select(['id', 'workspaceId', 'name', 'status', 'assignedToId', 'controlledById', 'controlledByName'])
    .where('workspaceId', '=', workspaceId)
    .where('id', '=', deviceId)
    .executeTakeFirst();
}

/** An operator may control any phone of the workspace; a VA only the phones assigned to them. */
export function mayControl(person: Pick<Person, 'role' | 'userId'>, device: { assignedToId: string | null }): boolean {
  return person.role === 'operator' || device.assignedToId === person.userId;
}

export async function startUsage(db: Db, person: Person, deviceId: string, mode: UsageMode): Promise<string> {
  const row = await db
    .insertInto('deviceUsage')
    .values({ workspaceId: person.workspaceId, deviceId, userId: person.userId, userName: person.name, mode })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Ends watch sessions; answers those that were still open. */
export async function endWatches(db: Db, ids: string[], reason: string): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('deviceUsage')
    .set({ endedAt: sql<Date>`now()`, endReason: reason })
    .where('id', 'in', ids)
    .where('mode', '=', 'watch')
    .where('endedAt', 'is', null)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

export type TakeControl =
  | { ok: true; usageId: string; device: DeviceRow; replaced: { usageId: string; userId: string | null } | null }
  | { ok: false; error: string };

/**
 * Gives the phone to the person: refused while someone else controls it, unless an operator takes it over (or the
 * same person moves to another window). The previous controller's session ends with the reason.
 */
export async function takeControl(db: Db, person: Person, deviceId: string, options: { takeOver: boolean; handedBy?: string }): Promise<TakeControl> {
  try {
    return await db.transaction().execute(async (tx): Promise<TakeControl> => {
      const device = await tx
        .selectFrom('devices')
        .select(['id', 'name', 'assignedToId', 'controlledById', 'controlledByName'])
        .where('workspaceId', '=', person.workspaceId)
        .where('id', '=', deviceId)
        .forUpdate()
        .executeTakeFirst();
      if (!device) return { ok: false, error: 'This phone is not in your workspace' };
      if (!mayControl(person, device)) return { ok: false, error: `You can control only the phones assigned to you; ${device.name} is not` };
      const current = await tx
        .selectFrom('deviceUsage')
        .select(['id', 'userId'])
        .where('deviceId', '=', deviceId)
        .where('mode', '=', 'control')
        .where('endedAt', 'is', null)
        .executeTakeFirst();
      let replaced: { usageId: string; userId: string | null } | null = null;
      if (current) {
        const mine = current.userId === person.userId;
        if (!mine && !options.handedBy) {
          if (!options.takeOver) return { ok: false, error: `${device.controlledByName ?? 'Someone'} is in control of ${device.name}. Ask to take over.` };
          if (person.role !== 'operator') return { ok: false, error: 'Only an operator can take over a phone someone else controls' };
        }
        const reason = options.handedBy ? `handed over to ${person.name}` : mine ? 'moved to another window' : `taken over by ${person.name}`;
        await tx.updateTable('deviceUsage').set({ endedAt: sql<Date>`now()`, endReason: reason }).where('id', '=', current.id).execute();
        replaced = { usageId: current.id, userId: current.userId };
      }
      const usage = await tx
        .insertInto('deviceUsage')
        .values({ workspaceId: person.workspaceId, deviceId, userId: person.userId, userName: person.name, mode: 'control' })
        .returning('id')
        .executeTakeFirstOrThrow();
      const row = await tx
        .updateTable('devices')
        .set({ controlledById: person.userId, controlledByName: person.name, controlledSince: sql<Date>`now()`, updatedAt: sql<Date>`now()` })
        .where('id', '=', deviceId)
        .returning(deviceColumns)
        .executeTakeFirstOrThrow();
      return { ok: true, usageId: usage.id, device: row, replaced };
    });
  } catch (error) {
    // Someone else's control began in the same instant.
    if ((error as { code?: unknown }).code === '23505') return { ok: false, error: 'Someone else took control of this phone just now. Ask to take over.' };
    throw error;
  }
}

/**
 * Ends a control session and frees the phone, if that session is still its controller. Answers the freed device
 * (for the console), or nothing when the session had already ended.
 */
export async function releaseControl(
  tx: Tx,
  usageId: string,
  reason: string,
): Promise<{ device: DeviceRow; userId: string | null; userName: string } | undefined> {
  const usage = await tx
    .updateTable('deviceUsage')
    .set({ endedAt: sql<Date>`now()`, endReason: reason })
    .where('id', '=', usageId)
    .where('mode', '=', 'control')
    .where('endedAt', 'is', null)
    .returning(['deviceId', 'userId', 'userName'])
    .executeTakeFirst();
  if (!usage) return undefined;
  const device = await freeDevice(tx, usage.deviceId);
  return device ? { device, userId: usage.userId, userName: usage.userName } : undefined;
}

/** Clears the phone's controller unless another control session is open on it. */
async function freeDevice(tx: Tx, deviceId: string): Promise<DeviceRow | undefined> {
  return tx
    .updateTable('devices')
    .set({ controlledById: null, controlledByName: null, controlledSince: null, updatedAt: sql<Date>`now()` })
    .where('id', '=', deviceId)
    .where('controlledById', 'is not', null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('deviceUsage').select('id').where('deviceId', '=', deviceId).where('mode', '=', 'control').where('endedAt', 'is', null))),
    )
    .returning(deviceColumns)
    .executeTakeFirst();
}

/** This instance's people are still there: renews their sessions; answers the ones still open. */
export async function touchUsage(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .updateTable('deviceUsage')
    .set({ seenAt: sql<Date>`now()` })
    .where('id', 'in', ids)
    .where('endedAt', 'is', null)
    .returning('id')
    .execute();
  return new Set(rows.map((row) => row.id));
}

/**
 * Sessions whose instance stopped renewing them (it died) end at their last sight; phones they controlled are freed.
 * Safe to run from every instance at once.
 */
export async function closeStaleUsage(tx: Tx, olderThanMs: number): Promise<DeviceRow[]> {
  const ended = await tx
    .updateTable('deviceUsage')
    .set({ endedAt: sql<Date>`seen_at`, endReason: 'connection lost' })
    .where('endedAt', 'is', null)
    .where('seenAt', '<', sql<Date>`now() - make_interval(secs => ${olderThanMs / 1000})`)
    .returning(['deviceId', 'mode'])
    .execute();
  const freed: DeviceRow[] = [];
  for (const deviceId of new Set(ended.filter((row) => row.mode === 'control').map((row) => row.deviceId))) {
    const device = await freeDevice(tx, deviceId);
    if (device) freed.push(device);
  }
  return freed;
}

/** A report narrowed to one phone or one person. */
export interface UsageFilter {
  deviceId?: string | undefined;
  userId?: string | undefined;
}

/** Sessions (`du`) of the workspace overlapping the window, narrowed to a phone or a person when given. */
function usageIn(workspaceId: string, window: AnalyticsWindow, filter: UsageFilter) {
  return sql`du.workspace_id = ${workspaceId} and du.started_at < ${window.end} and coalesce(du.ended_at, now()) > ${window.start}
    ${filter.deviceId ? sql`and du.device_id = ${filter.deviceId}` : sql``}
    ${filter.userId ? sql`and du.user_id = ${filter.userId}` : sql``}`;
}

/** The report: per day, person and phone; totals; the latest sessions. Days are the window's time zone's. */
export async function usageReport(db: Db, workspaceId: string, window: AnalyticsWindow, filter: UsageFilter) {
  const { start, end, timeZone } = window;
  const narrowed = usageIn(workspaceId, window, filter);
  const seconds = usageSecondsIn(start, end);
  const [days, sessions] = await Promise.all([
    sql<{
      day: string;
      userId: string | null;
      userName: string;
      deviceId: string;
      deviceName: string;
      watchedSeconds: number;
      controlledSeconds: number;
      sessions: number;
    }>`
      select to_char(greatest(du.started_at, ${start}::timestamptz) at time zone ${timeZone}, 'YYYY-MM-DD') as day,
             du.user_id as "userId", max(du.user_name) as "userName", du.device_id as "deviceId", max(d.name) as "deviceName",
             round(coalesce(sum(${seconds}) filter (where du.mode = 'watch'), 0))::int as "watchedSeconds",
             round(coalesce(sum(${seconds}) filter (where du.mode = 'control'), 0))::int as "controlledSeconds",
             (count(*) filter (where du.mode = 'watch'))::int as sessions
      from device_usage du join devices d on d.id = du.device_id
      where ${narrowed}
      group by 1, du.user_id, du.device_id
      order by 1 desc, "userName", "deviceName"
      limit 2000`.execute(db),
    sql<{
      id: string;
      deviceId: string;
      deviceName: string;
      userId: string | null;
      userName: string;
      mode: UsageMode;
      startedAt: Date;
      endedAt: Date | null;
      seconds: number;
      endReason: string | null;
    }>`
      select du.id, du.device_id as "deviceId", d.name as "deviceName", du.user_id as "userId", du.user_name as "userName", du.mode,
             du.started_at as "startedAt", du.ended_at as "endedAt",
             round(extract(epoch from coalesce(du.ended_at, now()) - du.started_at))::int as seconds, du.end_reason as "endReason"
      from device_usage du join devices d on d.id = du.device_id
      where ${narrowed}
      order by du.started_at desc, du.id
      limit 100`.execute(db),
  ]);
  const totals = days.rows.reduce(
    (sum, row) => ({
      watchedSeconds: sum.watchedSeconds + row.watchedSeconds,
      controlledSeconds: sum.controlledSeconds + row.controlledSeconds,
      sessions: sum.sessions + row.sessions,
    }),
    { watchedSeconds: 0, controlledSeconds: 0, sessions: 0 },
  );
  return {
    from: start.toISOString(),
    to: end.toISOString(),
    timeZone,
    totals,
    days: days.rows,
    sessions: sessions.rows.map((row) => ({ ...row, startedAt: row.startedAt.toISOString(), endedAt: row.endedAt?.toISOString() ?? null })),
  };
}

/** Every session in the window, oldest first, for the CSV export. */
export async function usageSessionsForExport(db: Db, workspaceId: string, window: AnalyticsWindow, filter: UsageFilter) {
  const { rows } = await sql<{
    startedAt: Date;
    endedAt: Date | null;
    seconds: number;
    userName: string;
    deviceName: string;
    mode: UsageMode;
    endReason: string | null;
  }>`
    select du.started_at as "startedAt", du.ended_at as "endedAt",
           round(extract(epoch from coalesce(du.ended_at, now()) - du.started_at))::int as seconds,
           du.user_name as "userName", d.name as "deviceName", du.mode, du.end_reason as "endReason"
    from device_usage du join devices d on d.id = du.device_id
    where ${usageIn(workspaceId, window, filter)}
    order by du.started_at, du.id
    limit 100000`.execute(db);
  return rows;
}
