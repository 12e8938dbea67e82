/**
 * Every Socket.IO event the server pushes to browsers, with its payload's schema: one closed map.
 * Names are `entity.verb`.
 */
import { z } from 'zod';
import { user } from './auth.contract.ts';
import { campaign, routine } from './campaigns.contract.ts';
import { id, isoTime } from './common.ts';
import { account, post } from './content.contract.ts';
import { activity, device, session, stats, task } from './fleet.contract.ts';

const removed = z.object({ id });

export const serverEvents = {
  'device.created': device,
  'device.updated': device,
  'device.deleted': removed,
  'device.assigned': device,
  /** Heartbeats of many phones, gathered over a tenth of a second: the live status and battery of the fleet. */
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
} as const;

export type ServerEventName = keyof typeof serverEvents;
export type ServerEventPayload<E extends ServerEventName> = z.infer<(typeof serverEvents)[E]>;
export const serverEventNames = Object.keys(serverEvents) as ServerEventName[];

/** Typed map for socket.io-client: `Socket<ServerToClientEvents>`. */
export type ServerToClientEvents = {
  [E in ServerEventName]: (payload: ServerEventPayload<E>) => void;
};

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
