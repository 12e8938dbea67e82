/**
 * The agent link's work: a device's agent credential issued or revoked (each one `write()`, the phone's connection
 * closed once it has committed), a command sent to its agent, and which stored media an agent may fetch for its device.
 */
import type { z } from 'zod';
import type { commandBody } from '@farm/contracts';
import type { Agents } from '../../agents/agents.socket.ts';
import { findAgentDevice } from '../../agents/agents.queries.ts';
import { findHostDevice } from './fleet.health.queries.ts';
import { findHostByToken } from '../../agents/agents.hosts.queries.ts';
import { AppError, notFound } from '../../errors.ts';
import { write, type WriteContext } from '../../events/write.ts';
import type { RealtimeServer } from '../../shared/sockets.types.ts';
import type { Actor, Db } from '../../shared/types.ts';
import { findDevice } from '../devices/devices.queries.ts';
import { assertMayWorkDevice } from '../sessions/sessions.service.ts';
import { findAgentMedia, revokeDeviceCredential, setDeviceCredential } from './fleet.agent-link.queries.ts';

/**
 * A new credential for the device's agent (shown once); the previous one stops working and the phone's socket is
 * closed. Not found: 404.
 */
export async function issueCredential(ctx: WriteContext & { io?: RealtimeServer | undefined }, actor: Actor, deviceId: string) {
  const issued = await write(ctx, actor.workspaceId, async (tx) => {
    const target = await findDevice(tx, actor.workspaceId, deviceId);
    if (!target) throw notFound();
    const credential = await setDeviceCredential(tx, actor.workspaceId, target.id);
    return { deviceId: target.id, token: credential.token, createdAt: credential.createdAt };
  });
  // This instance's socket of the phone is cut at once; the others hear of it through the adapter.
  ctx.io?.of('/agent').local.in(`device:${issued.deviceId}`).disconnectSockets(true);
  ctx.io?.of('/agent').in(`device:${issued.deviceId}`).disconnectSockets(true);
  return issued;
}

/** The device's agent credential stops working and its connection closes; recorded only when there was one. Not found: 404. */
export async function revokeCredential(ctx: WriteContext & { agents?: Agents | undefined }, actor: Actor, deviceId: string): Promise<void> {
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const target = await findDevice(tx, actor.workspaceId, deviceId);
    if (!target) throw notFound();
    const removed = await revokeDeviceCredential(tx, actor.workspaceId, target.id);
    if (removed.numDeletedRows === 0n) return;
    await outbox.record(
      { userId: actor.userId, action: `${target.name}'s phone credential revoked`, deviceId: target.id, type: 'warning' },
      { action: 'device.credential-revoked', entityType: 'device', entityId: target.id },
    );
  });
  ctx.agents?.disconnect(deviceId);
}

/** Sends a command to the device's agent, by whoever may work the device; answers whether an agent heard it. */
export async function commandDevice(
  ctx: { db: Db; agents?: Agents | undefined },
  actor: Actor,
  deviceId: string,
  name: z.output<typeof commandBody>['name'],
): Promise<boolean> {
  const target = await findDevice(ctx.db, actor.workspaceId, deviceId);
  if (!target) throw notFound();
  await assertMayWorkDevice(ctx.db, actor, target.id);
  return (await ctx.agents?.command(target.id, name)) ?? false;
}

/** How an agent names itself when it fetches media: its device's credential, or its host's and the phone's serial. */
export interface AgentCredentials {
  bearer: string | undefined;
  serial: string | undefined;
}

/**
 * The stored object `key` for the device the credentials speak for, only when a post of a task on it names the
 * object (or a dry run under way on it picked it). Bad credentials: 401; an object not its to fetch: 404.
 */
export async function mediaForAgent(db: Db, credentials: AgentCredentials, key: string) {
  const { bearer, serial } = credentials;
  let device: { id: string; workspaceId: string } | undefined;
  if (bearer && serial) {
    const host = await findHostByToken(db, bearer);
    const found = host ? await findHostDevice(db, host, serial) : undefined;
    device = host && found ? { id: found.id, workspaceId: host.workspaceId } : undefined;
  } else if (bearer) {
    device = await findAgentDevice(db, bearer);
  }
  if (!device) throw new AppError(401, 'This phone credential is not valid');
  const row = await findAgentMedia(db, device.workspaceId, device.id, key, `/api/objects/${key}`);
  if (!row) throw notFound();
  return row;
}
