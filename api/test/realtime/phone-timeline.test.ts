/**
 * A phone whose farm host loses its transport and waits for it (issue #50), through the phone's own connection: the
 * console shows it "Reconnecting" beside its status while it is away, the label goes when it is back (or when its
 * connection closes: then it is offline as today), what it runs now replaces its hello's word, and its details'
 * timeline keeps the blips, the host's rungs and the reboots, a page at a time.
 */
import { describe, expect, it } from 'vitest';
import { NEXT_CURSOR_HEADER, type TimelineEntry } from '@farm/contracts';
import { realtimeApp } from '../helpers/realtime.ts';
import { send } from './phones.ts';
import { connect, connected, next } from './sockets.ts';

const { url, operator, stranger, sockets, agentSocket: open, enrollHost } = await realtimeApp();

const hello = {
  protocol: 2,
  agentVersion: 'farm-agent/2',
  battery: 80,
  uiReader: { kind: 'ui-server', version: '7.1.0', seesToasts: true },
  apps: [{ package: 'com.instagram.android', version: null }],
};

/** A host with one phone registered (serial `serial`): its control connection and the phone's. */
async function hostWithPhone(name: string, serial: string) {
  const { token } = await enrollHost(name);
  const control = open({ hostToken: token });
  await connected(control);
  await send(control, 'host.hello', { agentVersion: 'test', backend: 'adb', phones: 1 });
  const phone = open({ hostToken: token, serial, model: 'Pixel 7' });
  await connected(phone);
  expect(await send(phone, 'agent.hello', hello)).toMatchObject({ ok: true });
  const device = ((await operator.get('/api/devices')).body as { id: string; serial: string; name: string }[]).find((row) => row.serial === serial)!;
  return { control, phone, device };
}

const timeline = async (deviceId: string, query = '') => {
  const answer = await operator.get(`/api/devices/${deviceId}/timeline${query}`);
  expect(answer.status).toBe(200);
  return { entries: answer.body as TimelineEntry[], next: answer.headers[NEXT_CURSOR_HEADER] as string | undefined };
};

describe('a phone its host waits for', () => {
  it('shows Reconnecting while it is away, drops it when it is back, and keeps what it runs now', async () => {
    const { control, phone, device } = await hostWithPhone('Rack R', 'BLIP-1');
    const browser = connect(url, operator);
    sockets.push(browser);
    await connected(browser);

    const away = next<{ deviceId: string; reconnectingSince: string | null }>(browser, 'device.health');
    expect(await send(phone, 'phone.away', { reason: 'offline' })).toEqual({ ok: true });
    expect(await away).toMatchObject({ deviceId: device.id, reconnectingSince: expect.any(String) });
    const health = (await operator.get(`/api/devices/${device.id}/health`)).body;
    expect(health.reconnectingSince).toEqual(expect.any(String));
    expect((await operator.get('/api/devices/health')).body).toContainEqual(
      expect.objectContaining({ deviceId: device.id, reconnectingSince: health.reconnectingSince }),
    );
    // Its status stays what its agent says (connected): the label is beside it, not a status of its own.
    expect((await operator.get(`/api/devices/${device.id}`)).body.status).not.toBe('offline');

    expect(await send(control, 'host.recovery', { serial: 'BLIP-1', rung: 'reconnect', outcome: 'done', detail: null, place: null })).toEqual({ ok: true });
    const backPushed = next<{ reconnectingSince: string | null }>(browser, 'device.health');
    const back = {
      awayMs: 3200,
      transport: 'same',
      rebooted: false,
      uiReader: { kind: 'dump', version: null, seesToasts: false },
      apps: [{ package: 'com.instagram.android', version: '360.0.0.52.192' }],
    };
    expect(await send(phone, 'phone.back', back)).toEqual({ ok: true });
    expect((await backPushed).reconnectingSince).toBeNull();
    expect((await operator.get(`/api/devices/${device.id}/health`)).body.reconnectingSince).toBeNull();
    // The UI reader and the app versions it came back with, not its hello's.
    expect((await operator.get(`/api/devices/${device.id}/software`)).body).toMatchObject({
      uiReader: { kind: 'dump', version: null },
      apps: [{ package: 'com.instagram.android', version: '360.0.0.52.192' }],
    });

    const { entries } = await timeline(device.id);
    expect(entries.map(({ kind, text, awayMs, transport, rung, outcome }) => ({ kind, text, awayMs, transport, rung, outcome }))).toEqual([
      { kind: 'blip', text: 'Went offline and was back after 3 s, on the same transport', awayMs: 3200, transport: 'same', rung: null, outcome: null },
      { kind: 'rung', text: 'Its host reconnected its transport', awayMs: null, transport: null, rung: 'reconnect', outcome: 'done' },
    ]);
    const feed = (await operator.get('/api/activities')).body as { action: string }[];
    expect(feed.map((row) => row.action)).toEqual(
      expect.arrayContaining([
        `${device.name} is reconnecting (its farm host lost it: adb lists it offline)`,
        `${device.name} went offline and was back after 3 s, on the same transport`,
      ]),
    );
  });

  it('goes offline without the label when its connection closes while it is away, and a reboot says how long it took', async () => {
    const { phone, device } = await hostWithPhone('Rack S', 'BLIP-2');
    expect(await send(phone, 'phone.away', { reason: 'gone' })).toEqual({ ok: true });
    phone.disconnect();
    let row: { status: string } | undefined;
    for (let tries = 0; tries < 100 && row?.status !== 'offline'; tries += 1) {
      row = (await operator.get(`/api/devices/${device.id}`)).body;
      if (row?.status !== 'offline') await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(row?.status).toBe('offline');
    expect((await operator.get(`/api/devices/${device.id}/health`)).body.reconnectingSince).toBeNull();
    expect((await timeline(device.id)).entries[0]).toMatchObject({
      kind: 'blip',
      text: 'Went away and was not back before its connection closed',
      awayMs: null,
    });

    // It booted meanwhile: its new connection says so after its hello.
    const again = await hostWithPhone('Rack S2', 'BLIP-3');
    expect(await send(again.phone, 'phone.back', { awayMs: 41_000, transport: 'new', rebooted: true })).toEqual({ ok: true });
    expect((await timeline(again.device.id)).entries[0]).toMatchObject({
      kind: 'reboot',
      text: 'Rebooted: back on a new transport after 41 s',
      awayMs: 41_000,
      transport: 'new',
    });
  });

  it('pages the timeline newest first, refuses a foreign phone, and refuses a bad message', async () => {
    const { phone, device } = await hostWithPhone('Rack T', 'BLIP-4');
    for (const awayMs of [1000, 2000, 3000]) expect(await send(phone, 'phone.back', { awayMs, transport: 'same', rebooted: false })).toEqual({ ok: true });
    const first = await timeline(device.id, '?limit=2');
    expect(first.entries.map((entry) => entry.awayMs)).toEqual([3000, 2000]);
    expect(first.next).toEqual(expect.any(String));
    const second = await timeline(device.id, `?limit=2&cursor=${first.next}`);
    expect(second.entries.map((entry) => entry.awayMs)).toEqual([1000]);
    expect(second.next).toBeUndefined();

    expect((await stranger.get(`/api/devices/${device.id}/timeline`)).status).toBe(404);
    expect(await send(phone, 'phone.away', { reason: 'sideways' })).toMatchObject({ ok: false });
  });
});
