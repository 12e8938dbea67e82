/**
 * Farm hosts' writes from the console: add a host (with its first one-time code), revoke one, change its fleet
 * settings. Each runs inside the caller's write; telling the host's connection is the caller's, after commit.
 */
import type { HostFleetSettings } from '@farm/contracts';
import { saveSettings } from './fleet.health.queries.ts';
import { notFound } from '../../errors.ts';
import type { WriteOutbox } from '../../events/write.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import { issueCode } from './fleet.enrollment.queries.ts';
import { countHosts, createHost, markHostRevoked } from './fleet.hosts.queries.ts';

/** A new host, named "Farm host N" unless the body names it, and the code to give it (shown once). */
export async function addHost(tx: Tx, actor: Actor, name: string | undefined, outbox: WriteOutbox) {
  const count = await countHosts(tx, actor.workspaceId);
  const created = await createHost(tx, actor.workspaceId, name ?? `Farm host ${count + 1}`, actor.userId);
  const code = await issueCode(tx, actor.workspaceId, { hostId: created.id }, actor.userId);
  await outbox.record(
    { userId: actor.userId, action: `Phone host "${created.name}" added`, type: 'info' },
    { action: 'host.created', entityType: 'host', entityId: created.id },
  );
  return { host: created, code: code.code, expiresAt: code.expiresAt };
}

/** The host's credential stops working. Not found: 404. */
export async function revokeHost(tx: Tx, actor: Actor, hostId: string, outbox: WriteOutbox): Promise<void> {
  const revoked = await markHostRevoked(tx, actor.workspaceId, hostId);
  if (!revoked) throw notFound();
  await outbox.record(
    { userId: actor.userId, action: `Phone host "${revoked.name}" revoked`, type: 'warning' },
    { action: 'host.revoked', entityType: 'host', entityId: revoked.id },
  );
}

/** Stores the host's fleet settings. Not found or revoked: 404. */
export async function changeFleetSettings(tx: Tx, actor: Actor, hostId: string, settings: HostFleetSettings, outbox: WriteOutbox): Promise<void> {
  const saved = await saveSettings(tx, actor.workspaceId, hostId, settings);
  if (!saved) throw notFound();
  await outbox.record(
    { userId: actor.userId, action: `Fleet settings of phone host "${saved.name}" changed`, type: 'info' },
    { action: 'host.fleet_settings', entityType: 'host', entityId: saved.id, data: settings },
  );
}
