/**
 * What a phone's agent says of its transport (issue #50): its farm host lost it and waits (`phone.away`: the console
 * shows "Reconnecting" beside its status, through its health row), or it is back (`phone.back`: the label goes, the
 * blip or the reboot goes into the feed and its timeline, and what it runs now replaces what its hello said). A
 * connection that closes while the phone is away ends the wait: the phone is offline as any phone whose agent left,
 * and its timeline says it was not back. Agents that predate these messages send none, and nothing changes for them.
 */
import type { Ack, AgentMessage } from '@farm/agent-protocol';
import type { AgentDevice } from '../../agents/agents.queries.ts';
import type { AgentHooks, FeatureMessages } from '../../agents/agents.features.ts';
import { write, type WriteContext, type WriteOutbox } from '../../events/write.ts';
import type { Tx } from '../../shared/types.ts';
import { deviceHealth, upsertHealth } from './fleet.health.queries.ts';
import { awayText, type AwayFact } from './fleet.timeline.ts';
import { reconnectingSince, updateSoftware } from './fleet.timeline.queries.ts';

const ok: Ack = { ok: true };

/** The phone's health row as it now is, announced once the write commits (the grid and its details show the label). */
async function announce(tx: Tx, outbox: WriteOutbox, device: AgentDevice): Promise<void> {
  const stored = await deviceHealth(tx, device.workspaceId, device.id);
  if (stored) outbox.add('device.health', stored);
}

/** A blip or a reboot, in the feed and as an audit fact of the device (its timeline entry). */
async function recordAway(outbox: WriteOutbox, device: AgentDevice, kind: 'blip' | 'reboot', fact: AwayFact): Promise<void> {
  const type = fact.awayMs === null ? 'warning' : kind === 'reboot' ? 'info' : 'warning';
  await outbox.record(
    { userId: null, deviceId: device.id, action: `${device.name} ${awayText(kind, fact)}`.slice(0, 1000), type },
    { action: `phone.${kind}`, entityType: 'device', entityId: device.id, data: { ...fact } },
  );
}

export function fleetTimelineAgent(ctx: WriteContext): { messages: Pick<FeatureMessages, 'phone.away' | 'phone.back'>; hooks: AgentHooks } {
  return {
    messages: {
      'phone.away': async (peer, message) => {
        await away(ctx, peer.device, message);
        return ok;
      },
      'phone.back': async (peer, message) => {
        await back(ctx, peer.device, message);
        return ok;
      },
    },
    hooks: { phoneGone: (device) => connectionClosed(ctx, device) },
  };
}

/** Away: reconnecting since now (or since it first said so, when it says it again on a new connection). */
async function away(ctx: WriteContext, device: AgentDevice, message: AgentMessage<'phone.away'>): Promise<void> {
  await write(ctx, device.workspaceId, async (tx, outbox) => {
    const since = await reconnectingSince(tx, device.id);
    if (since) return;
    await upsertHealth(tx, device, { reconnectingSince: new Date() });
    await outbox.record({
      userId: null,
      deviceId: device.id,
      action: `${device.name} is reconnecting (its farm host lost it: ${message.reason === 'gone' ? "it left adb's list" : 'adb lists it offline'})`,
      type: 'warning',
    });
    await announce(tx, outbox, device);
  });
}

/** Back: the label goes, the blip (or reboot) is recorded, and what the phone runs now is kept. */
async function back(ctx: WriteContext, device: AgentDevice, message: AgentMessage<'phone.back'>): Promise<void> {
  await write(ctx, device.workspaceId, async (tx, outbox) => {
    const since = await reconnectingSince(tx, device.id);
    if (since) await upsertHealth(tx, device, { reconnectingSince: null });
    const fact: AwayFact = {
      since: new Date(Date.now() - message.awayMs).toISOString(),
      awayMs: message.awayMs,
      reason: message.transport === 'new' ? 'gone' : 'offline',
      transport: message.transport,
    };
    await recordAway(outbox, device, message.rebooted ? 'reboot' : 'blip', fact);
    await updateSoftware(tx, device.id, message);
    if (since) await announce(tx, outbox, device);
  });
}

/** The phone's last connection closed while it was away: no longer reconnecting (it is offline), and not back. */
async function connectionClosed(ctx: WriteContext, device: AgentDevice): Promise<void> {
  await write(ctx, device.workspaceId, async (tx, outbox) => {
    const since = await reconnectingSince(tx, device.id);
    if (!since) return;
    await upsertHealth(tx, device, { reconnectingSince: null });
    await recordAway(outbox, device, 'blip', { since: since.toISOString(), awayMs: null, reason: 'offline', transport: null });
    await announce(tx, outbox, device);
  });
}
