/**
 * What a host's control connection says of its phones' health (issue #41): unresponsive phones and what failed,
 * vitals and their alerts (an activity and the `device.health` webhook event), each recovery rung as an activity,
 * the replug task for a person, and the host's USB bus with its capacity warnings. Messages are optional: a host
 * that predates them sends none. Each is parsed; a bad one is answered with its error and changes nothing. What is
 * stored is announced to the console as it commits: `device.health` with the phone's row as it now is, and
 * `host.fleet` for Settings → Phone hosts. A rung is stored as an activity (and the replug task as a task), which
 * announce themselves.
 */
import type { FastifyBaseLogger } from 'fastify';
import { fleetHostMessages, type FleetHostMessage, type FleetHostMessageName, type Ack } from '@farm/agent-protocol';
import { createTasks, Outboxes, raiseAlert, replugTask } from '@farm/workers';
import { write, type WriteContext, type WriteOutbox } from '../events/write.ts';
import type { Tx } from '../shared/types.ts';
import { recordPhoneResult, type AppHosts } from '../modules/apps/apps.rollout.ts';
import type { AgentHost } from './hosts.queries.ts';
import { currentHealth, deviceHealth, findHostDevice, openTaskTitled, placePhones, saveUsb, upsertHealth } from './fleet.queries.ts';

const rungWords: Record<FleetHostMessage<'host.recovery'>['rung'], string> = {
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

type Listener = (raw: unknown, ack?: (answer: Ack) => void) => void;

export interface FleetSocket {
  on(event: string, listener: Listener): unknown;
}

/** Registers the fleet messages on a host's control connection. */
export function fleetHandlers(ctx: WriteContext, log: FastifyBaseLogger, socket: FleetSocket, host: AgentHost, apps?: AppHosts): void {
  const handle = <N extends FleetHostMessageName>(name: N, work: (message: FleetHostMessage<N>) => Promise<void>) => {
    socket.on(name, (raw, ack) => {
      const parsed = fleetHostMessages[name].safeParse(raw);
      if (!parsed.success) {
        ack?.({ ok: false, error: parsed.error.issues.map((issue) => `${issue.path.join('.') || name}: ${issue.message}`).join('; ') });
        return;
      }
      work(parsed.data as FleetHostMessage<N>).then(
        () => ack?.({ ok: true }),
        (error: unknown) => {
          log.warn({ err: error, hostId: host.id, event: name }, 'fleet report not stored');
          ack?.({ ok: false, error: 'Not stored; send it again' });
        },
      );
    });
  };

  handle('host.health', async (message) => {
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
  });

  handle('host.vitals', async (message) => {
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
  });

  handle('host.recovery', async (message) => {
    await write(ctx, host.workspaceId, async (tx, outbox) => {
      const device = await findHostDevice(tx, host, message.serial);
      if (!device) return;
      const what = rungWords[message.rung];
      const action =
        message.outcome === 'done'
          ? `${device.name}: host "${host.name}" ${what}`
          : `${device.name}: host "${host.name}" ${message.outcome === 'failed' ? 'could not do it' : 'skipped it'} (${what})${message.detail ? `: ${message.detail}` : ''}`;
      await outbox.record({ userId: null, deviceId: device.id, action: action.slice(0, 1000), type: message.outcome === 'done' ? 'info' : 'warning' });
      if (message.rung !== 'replug_task') return;
      const task = replugTask(device, { hostName: host.name, hubLocation: message.place?.hubLocation ?? null, port: message.place?.port ?? null });
      if (await openTaskTitled(tx, device.id, task.title)) return;
      await createTasks(
        tx,
        [
          {
            workspaceId: host.workspaceId,
            title: task.title,
            description: task.description,
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
  });

  /** A phone's result of an app job: the rollout records it and moves on when its stage is settled. */
  handle('host.app', async (message) => {
    const device = await findHostDevice(ctx.db, host, message.serial);
    if (!device) return;
    await recordPhoneResult(ctx, apps, { workspaceId: host.workspaceId, deviceId: device.id }, message);
  });

  handle('host.usb', async (message) => {
    await write(ctx, host.workspaceId, async (tx, outbox) => {
      const before = new Set(await saveUsb(tx, host.id, message));
      await announceHealth(tx, outbox, host, await placePhones(tx, host, message.phones));
      for (const warning of message.warnings) {
        if (!before.has(warning.message))
          await outbox.record({ userId: null, action: `Host "${host.name}": ${warning.message}`.slice(0, 1000), type: 'warning' });
      }
    });
  });
}
