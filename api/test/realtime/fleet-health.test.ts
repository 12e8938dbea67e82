/**
 * Fleet health (issue #41) through a host's control connection: unresponsive phones, vitals and their alerts, each
 * recovery rung as an activity, the replug task, the USB bus; and the host's fleet settings in Settings → Phone hosts.
 */
import { describe, expect, it } from 'vitest';
import { buildWebhook } from '../helpers/factories.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { helloV1, send } from './phones.ts';
import { connect, connected, next, pause, record } from './sockets.ts';

const { t, url, operator, va, stranger, sockets, agentSocket: open, enrollHost } = await realtimeApp();

/** A host with one phone registered (serial `serial`), and its control connection. */
async function hostWithPhone(name: string, serial: string) {
  const { hostId, token } = await enrollHost(name);
  const control = open({ hostToken: token });
  const settings = next<Record<string, unknown>>(control, 'host.settings');
  await connected(control);
  await send(control, 'host.hello', { agentVersion: 'test', backend: 'adb', phones: 1 });
  const phone = open({ hostToken: token, serial, model: 'Pixel 7' });
  await connected(phone);
  await send(phone, 'agent.hello', helloV1);
  const device = ((await operator.get('/api/devices')).body as { id: string; serial: string; name: string }[]).find((row) => row.serial === serial)!;
  return { hostId, token, control, device, settings: await settings };
}

const vitals = (serial: string, overrides: Record<string, unknown> = {}) => ({
  serial,
  batteryLevel: 81,
  temperatureC: 31.5,
  batteryHealth: 'good',
  freeBytes: 9 * 1024 ** 3,
  totalBytes: 24 * 1024 ** 3,
  uptimeSeconds: 3600,
  androidVersion: '14',
  appVersions: { 'com.instagram.android': '312.0.0.32.112' },
  alerts: [],
  ...overrides,
});

const activities = async () =>
  ((await operator.get('/api/activities')).body.items ?? (await operator.get('/api/activities')).body) as { action: string; deviceId: string | null }[];

describe('fleet health from a host', () => {
  it('stores vitals and unresponsiveness, shows them per phone, and alerts on overheating once per report', async () => {
    const { control, device, settings } = await hostWithPhone('Rack H', 'HEALTH-1');
    // The host is sent its settings as it connects: the defaults until an operator changes them.
    expect(settings).toMatchObject({ uhubctl: { enabled: false }, ladder: { perRungPerHour: 3, rebootsPerDay: 2 } });
    const hook = await buildWebhook(operator, { events: ['device.health'] });

    expect(await send(control, 'host.vitals', vitals('HEALTH-1'))).toEqual({ ok: true });
    const health = (await operator.get(`/api/devices/${device.id}/health`)).body;
    expect(health).toMatchObject({
      deviceId: device.id,
      batteryLevel: 81,
      temperatureC: 31.5,
      batteryHealth: 'good',
      freeBytes: 9 * 1024 ** 3,
      androidVersion: '14',
      unresponsiveReason: null,
    });
    expect(health.appVersions).toEqual({ 'com.instagram.android': '312.0.0.32.112' });

    const hot = vitals('HEALTH-1', {
      temperatureC: 47.1,
      batteryHealth: 'overheat',
      alerts: [{ kind: 'overheat', message: 'Overheating: the battery is at 47.1 °C. Give it air or take it off the charger.' }],
    });
    expect(await send(control, 'host.vitals', hot)).toEqual({ ok: true });
    const deliveries = await t.db.selectFrom('webhookDeliveries').select(['event', 'payload']).where('webhookId', '=', hook.id).execute();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ event: 'device.health', payload: expect.objectContaining({ kind: 'overheat', id: device.id }) });
    expect((await activities()).some((row) => row.action.includes('Overheating: the battery is at 47.1 °C'))).toBe(true);

    expect(
      await send(control, 'host.health', {
        serial: 'HEALTH-1',
        ok: false,
        failed: [{ check: 'shell', error: 'The shell did not answer within 5 s.' }],
        reason: 'The shell did not answer within 5 s.',
      }),
    ).toEqual({ ok: true });
    expect((await va.get(`/api/devices/${device.id}/health`)).body.unresponsiveReason).toBe('The shell did not answer within 5 s.');
    expect((await activities()).some((row) => row.action === `${device.name} is not answering: The shell did not answer within 5 s.`)).toBe(true);
    await send(control, 'host.health', { serial: 'HEALTH-1', ok: true, failed: [], reason: null });
    expect((await operator.get(`/api/devices/${device.id}/health`)).body.unresponsiveReason).toBeNull();
    expect((await operator.get('/api/devices/health')).body.map((row: { deviceId: string }) => row.deviceId)).toContain(device.id);
  });

  it('refuses a malformed report with the field named and stores nothing; ignores serials the host does not have', async () => {
    const { control, device } = await hostWithPhone('Rack B', 'HEALTH-2');
    const answer = await send(control, 'host.vitals', vitals('HEALTH-2', { batteryLevel: 140 }));
    expect(answer).toMatchObject({ ok: false, error: expect.stringContaining('batteryLevel') });
    expect((await operator.get(`/api/devices/${device.id}/health`)).body).toBeNull();
    expect(await send(control, 'host.vitals', vitals('NOT-MINE'))).toEqual({ ok: true });
    expect(await t.db.selectFrom('deviceHealth').select('deviceId').where('deviceId', '=', device.id).execute()).toEqual([]);
  });

  it('logs each rung, and makes one high-priority replug task with the host, hub and port', async () => {
    const { control, device } = await hostWithPhone('Rack C', 'HEALTH-3');
    await send(control, 'host.recovery', { serial: 'HEALTH-3', rung: 'reconnect', outcome: 'done', detail: null, place: null });
    await send(control, 'host.recovery', {
      serial: 'HEALTH-3',
      rung: 'reboot',
      outcome: 'failed',
      detail: 'The adb server refused to reboot HEALTH-3.',
      place: null,
    });
    const replug = { serial: 'HEALTH-3', rung: 'replug_task', outcome: 'done', detail: null, place: { hubLocation: '1-2.4', port: 3 } };
    expect(await send(control, 'host.recovery', replug)).toEqual({ ok: true });
    expect(await send(control, 'host.recovery', replug)).toEqual({ ok: true });
    const feed = (await activities()).filter((row) => row.deviceId === device.id).map((row) => row.action);
    expect(feed).toEqual(
      expect.arrayContaining([
        `${device.name}: host "Rack C" reconnected its transport`,
        `${device.name}: host "Rack C" could not do it (rebooted it): The adb server refused to reboot HEALTH-3.`,
        `${device.name}: host "Rack C" asked a person to replug it`,
      ]),
    );
    const tasks = await t.db.selectFrom('tasks').select(['title', 'priority', 'description', 'status']).where('deviceId', '=', device.id).execute();
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ title: `Replug ${device.name}`, priority: 'high', status: 'pending' });
    expect(tasks[0]!.description).toContain('host "Rack C"');
    expect(tasks[0]!.description).toContain('hub 1-2.4, port 3');
  });

  it('links the replug tasks of one hub: each phone keeps its task, each task lists the hub’s waiting phones', async () => {
    const { token, control, device: first } = await hostWithPhone('Rack E', 'HUB-1');
    const others: { id: string; name: string; serial: string }[] = [];
    for (const serial of ['HUB-2', 'HUB-3']) {
      const phone = open({ hostToken: token, serial, model: 'Pixel 7' });
      await connected(phone);
      await send(phone, 'agent.hello', helloV1);
      others.push(((await operator.get('/api/devices')).body as { id: string; serial: string; name: string }[]).find((row) => row.serial === serial)!);
    }
    const [second, third] = others as [(typeof others)[0], (typeof others)[0]];
    const replug = (serial: string, hubLocation: string, port: number) =>
      send(control, 'host.recovery', { serial, rung: 'replug_task', outcome: 'done', detail: null, place: { hubLocation, port } });
    expect(await replug('HUB-1', '1-3', 4)).toEqual({ ok: true });
    expect(await replug('HUB-3', '1-4', 1)).toEqual({ ok: true });
    expect(await replug('HUB-2', '1-3', 2)).toEqual({ ok: true });
    // Asked again while its task is open: no second task, no second line in the feed.
    expect(await replug('HUB-1', '1-3', 4)).toEqual({ ok: true });
    const tasks = await t.db
      .selectFrom('tasks')
      .select(['deviceId', 'title', 'description', 'priority'])
      .where('deviceId', 'in', [first.id, second.id, third.id])
      .execute();
    const of = (id: string) => tasks.filter((task) => task.deviceId === id);
    expect([of(first.id).length, of(second.id).length, of(third.id).length]).toEqual([1, 1, 1]);
    const hub = `2 phones of hub 1-3 on host "Rack E" wait for a replug: ${second.name} (port 2), ${first.name} (port 4).`;
    expect(of(first.id)[0]).toMatchObject({ title: `Replug ${first.name}`, priority: 'high' });
    expect(of(first.id)[0]!.description).toContain('hub 1-3, port 4');
    expect(of(first.id)[0]!.description).toContain(hub);
    expect(of(second.id)[0]!.description).toContain('hub 1-3, port 2');
    expect(of(second.id)[0]!.description).toContain(hub);
    expect(of(second.id)[0]!.description).toContain('replug the hub itself first');
    expect(of(third.id)[0]!.description).toContain('hub 1-4, port 1');
    expect(of(third.id)[0]!.description).not.toContain('wait for a replug');
    const asked = (await activities()).filter((row) => row.deviceId === first.id && row.action.endsWith('asked a person to replug it'));
    expect(asked).toHaveLength(1);
  });

  it('stores the USB bus and warnings; an operator edits the settings, which reach the host', async () => {
    const { hostId, control, device } = await hostWithPhone('Rack D', 'HEALTH-4');
    const usb = {
      controllers: [{ id: '0000:00:14.0', kind: 'intel_chipset', driver: 'xhci_hcd' }],
      phones: [{ serial: 'HEALTH-4', controllerId: '0000:00:14.0', hubLocation: '1-2', port: 3 }],
      warnings: [
        {
          scope: 'controller',
          id: '0000:00:14.0',
          phones: 11,
          limit: 10,
          message: '11 phones on one Intel chipset USB controller (0000:00:14.0); past 10 such a controller drops phones.',
        },
      ],
      uhubctl: { enabled: true, problem: 'uhubctl: no permission' },
    };
    expect(await send(control, 'host.usb', usb)).toEqual({ ok: true });
    const fleet = (await operator.get(`/api/hosts/${hostId}/fleet`)).body;
    expect(fleet.usb).toEqual(usb);
    expect(fleet.phones).toEqual([expect.objectContaining({ deviceId: device.id, usbController: '0000:00:14.0', usbHub: '1-2', usbPort: 3 })]);

    const wanted = {
      // A root hub as uhubctl names it: bus 1 (phones on the motherboard's ports).
      uhubctl: { enabled: true, hubLocation: '1' },
      ladder: { perRungPerHour: 2, rebootsPerDay: 1, adbServerRestartPhones: 4, adbServerRestartsPerHour: 2 },
      capacity: { intelChipset: 8, xhci: 20, host: 24 },
      scheduledRestart: { enabled: true, hour: 4, minute: 0, idleOnly: true },
    };
    const sent = next<Record<string, unknown>>(control, 'host.settings');
    expect((await va.put(`/api/hosts/${hostId}/fleet-settings`, wanted)).status).toBe(403);
    expect((await stranger.put(`/api/hosts/${hostId}/fleet-settings`, wanted)).status).toBe(404);
    const bad = await operator.put(`/api/hosts/${hostId}/fleet-settings`, { ...wanted, scheduledRestart: { ...wanted.scheduledRestart, hour: 25 } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('hour');
    const badHub = await operator.put(`/api/hosts/${hostId}/fleet-settings`, { ...wanted, uhubctl: { enabled: true, hubLocation: 'rm -rf' } });
    expect(badHub.status).toBe(400);
    expect(JSON.stringify(badHub.body)).toContain('hub location');
    // A console from before the adb restart cap was a setting sends none: the cap it had, 3 an hour.
    const { adbServerRestartsPerHour: _cap, ...olderLadder } = wanted.ladder;
    expect((await operator.put(`/api/hosts/${hostId}/fleet-settings`, { ...wanted, ladder: olderLadder })).body.ladder.adbServerRestartsPerHour).toBe(3);
    expect(await sent).toMatchObject({ ladder: { adbServerRestartsPerHour: 3 } });
    const resent = next<Record<string, unknown>>(control, 'host.settings');
    expect((await operator.put(`/api/hosts/${hostId}/fleet-settings`, wanted)).body).toEqual(wanted);
    expect(await resent).toEqual(wanted);
    expect((await operator.get(`/api/hosts/${hostId}/fleet`)).body.settings).toEqual(wanted);
    expect((await stranger.get(`/api/hosts/${hostId}/fleet`)).status).toBe(404);
  });

  it('pushes what it stores to the console: the phone’s health row, and a nudge for the host’s panel', async () => {
    const { hostId, control, device } = await hostWithPhone('Rack E', 'HEALTH-5');
    const browser = connect(url, operator);
    sockets.push(browser);
    await connected(browser);
    const stranger_ = connect(url, stranger);
    sockets.push(stranger_);
    await connected(stranger_);
    const strangerSaw = record(stranger_);

    const pushed = next<Record<string, unknown>>(browser, 'device.health');
    const nudged = next<Record<string, unknown>>(browser, 'host.fleet');
    await send(control, 'host.vitals', vitals('HEALTH-5', { batteryLevel: 42 }));
    expect(await pushed).toEqual((await operator.get(`/api/devices/${device.id}/health`)).body);
    expect(await pushed).toMatchObject({ deviceId: device.id, batteryLevel: 42 });
    expect(await nudged).toEqual({ hostId });

    const unresponsive = next<Record<string, unknown>>(browser, 'device.health');
    await send(control, 'host.health', { serial: 'HEALTH-5', ok: false, failed: [{ check: 'frame', error: 'No frame.' }], reason: 'No frame.' });
    expect(await unresponsive).toMatchObject({ deviceId: device.id, unresponsiveReason: 'No frame.', batteryLevel: 42 });

    const placed = next<Record<string, unknown>>(browser, 'device.health');
    const usb = {
      controllers: [{ id: 'usb1', kind: 'xhci', driver: 'xhci_hcd' }],
      phones: [{ serial: 'HEALTH-5', controllerId: 'usb1', hubLocation: '1-1', port: 2 }],
      warnings: [],
      uhubctl: { enabled: false, problem: null },
    };
    await send(control, 'host.usb', usb);
    expect(await placed).toMatchObject({ deviceId: device.id, usbHub: '1-1', usbPort: 2 });
    // The same bus again moves no phone: only the panel is nudged.
    const seen = record(browser);
    await send(control, 'host.usb', usb);
    await pause(300);
    expect(seen.get('device.health')).toBeUndefined();
    expect(seen.get('host.fleet')).toEqual([{ hostId }]);
    // Another workspace hears nothing of it.
    expect(strangerSaw.get('device.health')).toBeUndefined();
    expect(strangerSaw.get('host.fleet')).toBeUndefined();
  });
});
