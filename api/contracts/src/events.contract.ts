/**
 * Every Socket.IO event the server pushes to browsers, with its payload's schema: one closed map.
 * Names are `entity.verb`.
 */
import { z } from 'zod';
import { failureCode } from '@farm/agent-protocol/failures';
import { user } from './auth.contract.ts';
import { campaign, routine } from './campaigns.contract.ts';
import { id, isoTime } from './common.ts';
import { account, post } from './content.contract.ts';
import { activity, device, session, stats, task } from './fleet.contract.ts';
import { recipeBreaker } from './agents.contract.ts';
import { deviceGroup } from './groups.contract.ts';
import { phoneHealth } from './health.contract.ts';
import { appPin, appRollout, appVersion } from './apps.contract.ts';
import { dryRun, dryRunStepEvent } from './dryruns.contract.ts';

const removed = z.object({ id });

export const serverEvents = {
  'device.created': device,
  'device.updated': device,
  'device.deleted': removed,
  'device.assigned': device,
  /** Heartbeats of many phones, gathered over 50 ms (api agents/pulse.ts): the live status and battery of the fleet. */
  'devices.pulse': z.object({ devices: z.array(device.pick({ id: true, status: true, battery: true, lastActive: true })) }),
  'session.started': session,
  'session.updated': session,
  'session.ended': session,
  'screenshot.added': z.object({ deviceId: id, sessionId: id.nullable(), url: z.string(), capturedAt: isoTime }),
  'activity.created': activity,
  'task.created': task,
  'task.updated': task,
  'task.assigned': task,
  'task.deleted': removed,
  'campaign.created': campaign,
  'campaign.updated': campaign,
  'campaign.deleted': removed,
  'routine.created': routine,
  'routine.updated': routine,
  'routine.deleted': z.object({ id, campaignId: id }),
  'account.created': account,
  'account.updated': account,
  'account.deleted': removed,
  'post.created': post,
  'post.updated': post,
  'post.deleted': removed,
  'user.created': user,
  'user.updated': user,
  'stats.changed': stats,
  /** A recipe paused for an app version, or turned back on (Settings → Recipes and the Tasks banner). */
  'recipe.breaker': recipeBreaker,
  /** A group or tag of phones made, renamed, given or relieved of phones, or removed. */
  'group.created': deviceGroup,
  'group.updated': deviceGroup,
  'group.deleted': removed,
  /** A phone's health as its host's latest report left it (unresponsive or answering, vitals, its place on the bus). */
  'device.health': phoneHealth,
  /**
   * A host's USB bus, capacity warnings or phones' health changed: Settings → Phone hosts reads it again (only those
   * who may manage devices read it, so the bus itself does not travel to every browser of the workspace).
   */
  'host.fleet': z.object({ hostId: id }),
  /** A version added to or removed from the app library; the pins of a workspace as they are now. */
  'app.created': appVersion,
  'app.deleted': removed,
  'app.pins': z.object({ pins: z.array(appPin) }),
  /** A rollout started, or a phone of it answered, or it moved to its next stage (issue #42). */
  'app.rollout': appRollout,
  /** A dry run started, moved on or ended (the recipe studio's trace view). */
  'dryrun.updated': dryRun,
  /** A step of a dry run's trace, as soon as the phone sent it. */
  'dryrun.step': dryRunStepEvent,
} as const;

export type ServerEventName = keyof typeof serverEvents;
export type ServerEventPayload<E extends ServerEventName> = z.infer<(typeof serverEvents)[E]>;
export const serverEventNames = Object.keys(serverEvents) as ServerEventName[];

/**
 * Several events for one room, sent by one turn of the server's loop one after another (a batch of phones' results
 * announces hundreds), travel as one message of this name, in the order they were sent. One event alone travels as
 * itself. `eachServerEvent` unpacks either.
 */
export const BATCH_EVENT = 'changes';
export const eventBatch = z.object({ changes: z.array(z.object({ event: z.string(), payload: z.unknown() })) });
export type EventBatch = z.infer<typeof eventBatch>;

/** Calls `handle` with each event a message carries: the message itself, or each event of a batch, in order. */
export function eachServerEvent(name: string, payload: unknown, handle: (name: string, payload: unknown) => void): void {
  if (name !== BATCH_EVENT) {
    handle(name, payload);
    return;
  }
  const parsed = eventBatch.safeParse(payload);
  if (!parsed.success) return;
  for (const item of parsed.data.changes) handle(item.event, item.payload);
}

/** Typed map for socket.io-client: `Socket<ServerToClientEvents>`. */
export type ServerToClientEvents = {
  [E in ServerEventName]: (payload: ServerEventPayload<E>) => void;
} & { [BATCH_EVENT]: (payload: EventBatch) => void };

/** Events whose change moves the dashboard's figures. */
export const statsAffecting: ReadonlySet<ServerEventName> = new Set([
  'devices.pulse',
  'device.created',
  'device.updated',
  'device.deleted',
  'session.started',
  'session.updated',
  'session.ended',
  'task.created',
  'task.updated',
  'task.deleted',
]);

/** Facts only the servers act on, never pushed to browsers: they travel between processes like the others. */
export const internalEvents = {
  /** Sessions ended (logout, deactivation, a new password): their sockets are closed. */
  'auth.revoked': z.object({ sessionIds: z.array(id) }),
  /** A wall link was revoked: its screens are disconnected. */
  'wall.revoked': z.object({ wallLinkId: id }),
  /** An attempt out on a phone was called off: the process holding the phone tells it to drop the attempt. */
  'task.withdrawn': z.object({ taskId: id, deviceId: id, attempt: z.number().int(), code: failureCode, reason: z.string() }),
  /** A phone may have work waiting: the process holding it hands the next task over. */
  'device.wake': z.object({ deviceId: id }),
} as const;
export type InternalEventName = keyof typeof internalEvents;
export type InternalEventPayload<E extends InternalEventName> = z.infer<(typeof internalEvents)[E]>;
export const isInternalEvent = (event: string): event is InternalEventName => event in internalEvents;

interface ChangeOf<E extends string, P> {
  workspaceId: string;
  event: E;
  payload: P;
  /** Deliver to this person's room only (a VA's pushed task) rather than the whole workspace. */
  userId?: string | undefined;
  /** Heard from another process: deliver to this instance's own sockets only; it is not sent on again. */
  local?: boolean | undefined;
  /** Heard from the workers and delivered to browsers by another instance (the relay): bookkeeping only here. */
  quiet?: boolean | undefined;
  /** Its payload was parsed by its event's schema on arrival (parseChange): the gateway does not parse it again. */
  checked?: boolean | undefined;
}

/**
 * A change announced after its transaction committed, by the API or a worker: a browser event with its typed
 * payload, or an internal fact. The one shape the gateway relays and the workers announce.
 */
export type Change =
  | { [E in ServerEventName]: ChangeOf<E, ServerEventPayload<E>> }[ServerEventName]
  | { [E in InternalEventName]: ChangeOf<E, InternalEventPayload<E>> }[InternalEventName];

/** Parses a change that arrived from another process (Redis); answers undefined for anything unknown or malformed. */
export function parseChange(raw: unknown): Change | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { workspaceId, event, payload, userId } = raw as Record<string, unknown>;
  if (typeof workspaceId !== 'string' || typeof event !== 'string') return undefined;
  const schema = isInternalEvent(event) ? internalEvents[event] : event in serverEvents ? serverEvents[event as ServerEventName] : undefined;
  const parsed = schema?.safeParse(payload);
  if (!parsed?.success) return undefined;
  return { workspaceId, event, payload: parsed.data, checked: true, ...(typeof userId === 'string' ? { userId } : {}) } as Change;
}
