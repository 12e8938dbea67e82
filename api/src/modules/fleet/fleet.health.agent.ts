/**
 * What a host's control connection says of its phones' health (issue #41): unresponsive phones and what failed,
 * vitals and their alerts (an activity and the `device.health` webhook event), each recovery rung as an activity,
 * the replug task for a person, and the host's USB bus with its capacity warnings. Messages are optional: a host
 * that predates them sends none. Each is parsed by the hosts' side of the socket (agents/agents.hosts.ts), which answers a
 * bad one with its error and changes nothing. What is stored is announced to the console as it commits:
 * `device.health` with the phone's row as it now is, and `host.fleet` for Settings → Phone hosts. A rung is stored
 * as an activity (and the replug task as a task), which announce themselves. Composed at the top with the other
 * features' answers (api/src/phone-messages.ts).
 *
 * Replug tasks stay one per phone (on the phone's page, with its VA, closed when that phone is done) and are linked by
 * hub: when several phones of one hub wait for a person, each of their tasks lists the hub's waiting phones and ports,
 * so whoever opens one at the rack sees the whole hub, and is told that several phones of one hub failing together
 * point at the hub (its power supply, its cable to the PC) more than at the phones.
 */
import type { FleetHostMessage } from '@farm/agent-protocol';
import { createTasks, Outboxes, raiseAlert, replugTask } from '@farm/workers';
import type { HostMessages } from '../../agents/agents.features.ts';
import type { AgentHost } from '../../agents/agents.hosts.queries.ts';
import { write, type WriteContext, type WriteOutbox } from '../../events/write.ts';
import type { Tx } from '../../shared/types.ts';
import { serialize } from '@farm/sql';
import {
  currentHealth,
  deviceHealth,
  findHostDevice,
  openHubReplugTasks,
  openTaskTitled,
  placePhones,
  replugSourceKey,
  saveUsb,
  setTaskDescription,
  upsertHealth,
} from './fleet.health.queries.ts';

/** Each rung as the feed and a phone's timeline say it, after "its host". */
export const rungWords: Record<FleetHostMessage<'host.recovery'>['rung'], string> = {
  reconnect: 'reconnected its transport',
  restart_reader: 'restarted its UI reader',
  adb_reconnect: 'ran adb reconnect',
  restart_adb_server: 'restarted the adb server',
  reboot: 'rebooted it',
  power_cycle: 'power-cycled its USB port',
  replug_task: 'asked a person to replug it',
};

/** The phone's health as now stored, and its host's panel, announced once the write commits. */
async function announceHealth(tx: Tx, outbox: WriteOutbox, host: AgentHost, deviceIds: readonly string[]): Promise<void> {
  for (const deviceId of deviceIds) {
    const stored = await deviceHealth(tx, host.workspaceId, deviceId);
    if (stored) outbox.add('device.health', stored);
  }
  outbox.add('host.fleet', { hostId: host.id });
}

/** The fleet's answers to a host's health messages. */
export function fleetHealthAgent(ctx: WriteContext): { hostMessages: Pick<HostMessages, 'host.health' | 'host.vitals' | 'host.recovery' | 'host.usb'> } {
  return {
    hostMessages: {
      'host.health': (host, message) => storeHealth(ctx, host, message),
      'host.vitals': (host, message) => storeVitals(ctx, host, message),
      'host.recovery': (host, message) => storeRung(ctx, host, message),
      'host.usb': (host, message) => storeUsb(ctx, host, message),
    },
  };
}

/** A phone stopped answering, or answers again: said once in the feed, at the change. */
async function storeHealth(ctx: WriteContext, host: AgentHost, message: FleetHostMessage<'host.health'>): Promise<void> {
  await write(ctx, host.workspaceId, async (tx, outbox) => {
    const device = await findHostDevice(tx, host, message.serial);
    if (!device) return;
    const before = await currentHealth(tx, device.id);
    const reason = message.ok ? null : (message.reason ?? 'It does not answer.');
    await upsertHealth(tx, { id: device.id, workspaceId: host.workspaceId }, { unresponsiveReason: reason, healthAt: new Date() });
    const was = before?.unresponsiveReason ?? null;
    if (reason && !was) await outbox.record({ userId: null, deviceId: device.id, action: `${device.name} is not answering: ${reason}`, type: 'warning' });
    if (!reason && was) await outbox.record({ userId: null, deviceId: device.id, action: `${device.name} answers again`, type: 'success' });
    await announceHealth(tx, outbox, host, [device.id]);
  });
}

/** A phone's vitals, and each of its alerts in the feed and to the webhooks. */
async function storeVitals(ctx: WriteContext, host: AgentHost, message: FleetHostMessage<'host.vitals'>): Promise<void> {
  await write(ctx, host.workspaceId, async (tx, outbox) => {
    const device = await findHostDevice(tx, host, message.serial);
    if (!device) return;
    const at = new Date();
    await upsertHealth(
      tx,
      { id: device.id, workspaceId: host.workspaceId },
      {
        batteryLevel: message.batteryLevel,
        temperatureC: message.temperatureC,
        batteryHealth: message.batteryHealth,
        freeBytes: message.freeBytes,
        totalBytes: message.totalBytes,
        uptimeSeconds: message.uptimeSeconds,
        androidVersion: message.androidVersion,
        appVersions: JSON.stringify(message.appVersions),
        vitalsAt: at,
      },
    );
    await announceHealth(tx, outbox, host, [device.id]);
    for (const alert of message.alerts) {
      const text = `${device.name}: ${alert.message}`;
      await outbox.record({ userId: null, deviceId: device.id, action: text, type: alert.kind === 'disk_full' ? 'warning' : 'error' });
      await raiseAlert(tx, host.workspaceId, 'device.health', { id: device.id, at: at.toISOString(), text, kind: alert.kind, name: device.name });
    }
  });
}

/** The line each replug task of a hub carries when several of its phones wait for a person. */
export function hubLine(hostName: string, hubLocation: string, phones: readonly { name: string; port: number }[]): string {
  const listed = [...phones]
    .sort((a, b) => a.port - b.port)
    .map((phone) => `${phone.name} (port ${phone.port})`)
    .join(', ');
  return (
    `${phones.length} phones of hub ${hubLocation} on host "${hostName}" wait for a replug: ${listed}. ` +
    'Several phones of one hub stopping together point at the hub: check its power supply and its cable to the PC, ' +
    'and replug the hub itself first.'
  );
}

/** A rung of the host's recovery ladder, in the feed; its last rung is a task for the phone's person (once). */
async function storeRung(ctx: WriteContext, host: AgentHost, message: FleetHostMessage<'host.recovery'>): Promise<void> {
  await write(ctx, host.workspaceId, async (tx, outbox) => {
    const device = await findHostDevice(tx, host, message.serial);
    if (!device) return;
    const task = replugTask(device, { hostName: host.name, hubLocation: message.place?.hubLocation ?? null, port: message.place?.port ?? null });
    // Asked again while its task is still open: the person already has it, the feed needs no second line.
    if (message.rung === 'replug_task' && (await openTaskTitled(tx, device.id, task.title))) return;
    const what = rungWords[message.rung];
    const action =
      message.outcome === 'done'
        ? `${device.name}: host "${host.name}" ${what}`
        : `${device.name}: host "${host.name}" ${message.outcome === 'failed' ? 'could not do it' : 'skipped it'} (${what})${message.detail ? `: ${message.detail}` : ''}`;
    // The audit fact is the rung's entry in the phone's timeline (fleet.timeline.ts).
    await outbox.record(
      { userId: null, deviceId: device.id, action: action.slice(0, 1000), type: message.outcome === 'done' ? 'info' : 'warning' },
      { action: 'phone.rung', entityType: 'device', entityId: device.id, data: { rung: message.rung, outcome: message.outcome, detail: message.detail } },
    );
    if (message.rung !== 'replug_task') return;
    const place = message.place;
    const siblings = place ? await openHubReplugTasks(tx, host.workspaceId, host.id, place.hubLocation) : [];
    const hub = place && siblings.length > 0 ? hubLine(host.name, place.hubLocation, [...siblings, { name: device.name, port: place.port }]) : null;
    // The hub's other open tasks learn of this phone too: whichever task the person opens lists the whole hub.
    for (const sibling of siblings) {
      if (!place) break;
      const own = replugTask({ name: sibling.name }, { hostName: host.name, hubLocation: place.hubLocation, port: sibling.port });
      const updated = await setTaskDescription(tx, sibling.id, `${own.description}\n\n${hub}`);
      outbox.add('task.updated', serialize(updated));
    }
    await createTasks(
      tx,
      [
        {
          workspaceId: host.workspaceId,
          title: task.title,
          description: hub ? `${task.description}\n\n${hub}` : task.description,
          sourceKey: replugSourceKey(host.id, place, device.id, new Date()),
          type: 'monitor',
          priority: task.priority,
          deviceId: device.id,
          assignedToId: device.assignedToId,
          work: { kind: 'manual', description: task.description },
        },
      ],
      Outboxes.of(outbox),
    );
  });
}

/** The host's USB bus: where its phones are plugged, and each new capacity warning in the feed. */
async function storeUsb(ctx: WriteContext, host: AgentHost, message: FleetHostMessage<'host.usb'>): Promise<void> {
  await write(ctx, host.workspaceId, async (tx, outbox) => {
    const before = new Set(await saveUsb(tx, host.id, message));
    await announceHealth(tx, outbox, host, await placePhones(tx, host, message.phones));
    for (const warning of message.warnings) {
      if (!before.has(warning.message))
        await outbox.record({ userId: null, action: `Host "${host.name}": ${warning.message}`.slice(0, 1000), type: 'warning' });
    }
  });
}
