/**
 * A device's status: derived from what its agent says and what runs on it, never typed by a person. The one rule,
 * used wherever a status is written or read as "is its agent there":
 *
 *   offline  its agent is not connected (its last connection closed), or was silent for three heartbeat intervals
 *   busy     connected, and a task leased to it is out or a person's session runs on it
 *   idle     connected, with the screen off, the agent saying it idles, or nothing done for five minutes
 *   online   connected and heard, otherwise
 *
 * A dry run under way on a phone (the recipe studio) holds it as a lease does: no task goes to it and no second run
 * starts until the run ends (`dryRunUnderWay`: the dispatcher's ready work in tasks/lifecycle.ts, and api's dry-run
 * pre-flight). Its status is still what its agent says.
 *
 * Written by the heartbeat batch (api agents/pulse.ts), a phone's hello and goodbye (api agents/agents.queries.ts),
 * a person's session on the phone (api modules/sessions/sessions.service.ts) and the silence watchdog
 * (watchdogs/devices.ts); read as "its agent is there" by the dispatcher (api agents/dispatcher.ts) and by the
 * schedulers that decide whether a person must be rung (posts, campaign runs, warm-up).
 */
import { type Expression, sql } from 'kysely';
import { unsettledTaskStatuses } from '@farm/agent-protocol/values';
import type { DeviceStatus, DryRunStatus } from '@farm/sql';
import { automation } from '../settings.ts';

/** Heartbeat intervals of silence after which a phone is offline. */
export const SILENT_HEARTBEATS = 3;
/** Nothing done for this long: a connected phone is idle. */
export const IDLE_AFTER_MINUTES = 5;

/** Silent for three heartbeats: the phone is offline. */
export const silenceMs = () => automation().heartbeatMs * SILENT_HEARTBEATS;

/** The status a phone whose last connection closed has. */
export const GONE: DeviceStatus = 'offline';

/** Its agent was heard and has not gone: it will run the work, its VA need not be rung. */
export const agentThere = (device: { deviceStatus: string | null; lastSeenAt: Date | null }) =>
  device.lastSeenAt !== null && device.deviceStatus !== null && device.deviceStatus !== GONE;

/** SQL: a task leased to the device is out (dispatched, not settled). */
export const leaseOut = (deviceId: Expression<string>) =>
  sql<boolean>`exists (select 1 from tasks t where t.device_id = ${deviceId} and t.dispatched_at is not null and t.status in (${sql.join(unsettledTaskStatuses.map((status) => sql.lit(status)))}))`;

/** SQL: a person's session runs on the device. */
export const sessionRuns = (deviceId: Expression<string>) =>
  sql<boolean>`exists (select 1 from sessions s where s.device_id = ${deviceId} and s.ended_at is null and s.is_active)`;

/** The statuses of a dry run still under way: the phone it runs on is taken (see `dryRunUnderWay`). */
export const DRY_RUN_UNDER_WAY: readonly DryRunStatus[] = ['starting', 'running'];

/** SQL: a dry run is under way on the device: it gets no task and no second run until the run ends. */
export const dryRunUnderWay = (deviceId: Expression<string>) =>
  sql<boolean>`exists (select 1 from recipe_dry_runs dr where dr.device_id = ${deviceId} and dr.status in (${sql.join(DRY_RUN_UNDER_WAY.map((status) => sql.lit(status)))}))`;

/** SQL: the phone works: its agent says so, a lease of its own is out, or a person's session runs on it. */
export const working = (deviceId: Expression<string>, agentStatus: Expression<string>) =>
  sql<boolean>`(${agentStatus} = 'busy' or ${leaseOut(deviceId)} or ${sessionRuns(deviceId)})`;

/** SQL: a connected phone's status, from whether it works and what its heartbeat says. */
export const connectedStatus = (facts: {
  working: Expression<boolean>;
  screenOn: Expression<boolean | null>;
  agentStatus: Expression<string>;
  lastActive: Expression<Date>;
}) => sql<DeviceStatus>`case
    when ${facts.working} then 'busy'
    when ${facts.screenOn} = false or ${facts.agentStatus} = 'idle' or ${facts.lastActive} < now() - interval '${sql.raw(String(IDLE_AFTER_MINUTES))} minutes' then 'idle'
    else 'online'
  end`;

/**
 * SQL: the status of a phone that just said hello: busy while a lease of its own is out, online otherwise (its
 * first heartbeat, within one interval, says the rest).
 */
export const helloStatus = (deviceId: Expression<string>) => sql<'online' | 'busy'>`case when ${leaseOut(deviceId)} then 'busy' else 'online' end`;

/** SQL: what a person's session makes of the phone's status: it follows only while the agent is connected. */
export const whileConnected = (status: 'busy' | 'idle' | 'online') =>
  sql<DeviceStatus>`case when status = ${sql.lit(GONE)} then ${sql.lit(GONE)} else ${status} end`;

/** SQL: the moment before which a phone last heard is silent (offline). */
export const silentBefore = () => sql<Date>`now() - (${silenceMs()} * interval '1 millisecond')`;
