/**
 * Farm hosts' writes from the console: add a host (with its first one-time code), revoke one, change its fleet
 * settings. Each is one `write()`; the host's connection hears of it once it has committed.
 */
import type { HostFleetSettings } from '@farm/contracts';
import { saveSettings } from './fleet.health.queries.ts';
import type { Agents } from '../../agents/agents.socket.ts';
import { notFound } from '../../errors.ts';
import { write, type WriteContext } from '../../events/write.ts';
import type { Actor } from '../../shared/types.ts';
import { issueCode } from './fleet.enrollment.queries.ts';
import { countHosts, createHost, markHostRevoked } from './fleet.hosts.queries.ts';

/** A new host, named "Farm host N" unless the body names it, and the code to give it (shown once). */
export function addHost(ctx: WriteContext, actor: Actor, name: string | undefined) {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const count = await countHosts(tx, actor.workspaceId);
    const created = await createHost(tx, actor.workspaceId, name ?? `Farm host ${count + 1}`, actor.userId);
    const code = await issueCode(tx, actor.workspaceId, { hostId: created.id }, actor.userId);
    await outbox.record(
      { userId: actor.userId, action: `Phone host "${created.name}" added`, type: 'info' },
      { action: 'host.created', entityType: 'host', entityId: created.id },
    );
    return { host: created, code: code.code, expiresAt: code.expiresAt };
  });
}

/** The host's credential stops working, and its connection and its phones' close. Not found: 404. */
export async function revokeHost(ctx: WriteContext & { agents?: Agents | undefined }, actor: Actor, hostId: string): Promise<void> {
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const revoked = await markHostRevoked(tx, actor.workspaceId, hostId);
    if (!revoked) throw notFound();
    await outbox.record(
      { userId: actor.userId, action: `Phone host "${revoked.name}" revoked`, type: 'warning' },
      { action: 'host.revoked', entityType: 'host', entityId: revoked.id },
    );
  });
  // Its connection and every phone's it opened close now, on whichever instance they are.
  ctx.agents?.disconnectHost(hostId);
}

/** Stores the host's fleet settings and sends them to it (again each time it connects). Not found or revoked: 404. */
export async function changeFleetSettings(
  ctx: WriteContext & { agents?: Agents | undefined },
  actor: Actor,
  hostId: string,
  settings: HostFleetSettings,
): Promise<void> {
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const saved = await saveSettings(tx, actor.workspaceId, hostId, settings);
    if (!saved) throw notFound();
    await outbox.record(
      { userId: actor.userId, action: `Fleet settings of phone host "${saved.name}" changed`, type: 'info' },
      { action: 'host.fleet_settings', entityType: 'host', entityId: saved.id, data: settings },
    );
  });
  ctx.agents?.sendHostSettings(hostId, settings);
}
