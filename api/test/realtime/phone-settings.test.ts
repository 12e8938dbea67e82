/**
 * Settings in bulk (issue #42) through a farm host's control connection: the console sends each host its phones'
 * settings, the host answers per phone and setting, what adb cannot set becomes a task for the phone's VA; hosts
 * whose farm-agent predates `phone-settings` and phones on no connected host say so; bad input is refused whole.
 */
import { describe, expect, it } from 'vitest';
import { buildDevice } from '../helpers/factories.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { helloV1, send } from './phones.ts';
import { connected } from './sockets.ts';

const { t, operator, va, stranger, agentSocket: open, enrollHost } = await realtimeApp();

/** A host with these phones registered, saying hello with these features. */
async function host(name: string, serials: string[], features?: string[]) {
  const { token } = await enrollHost(name);
  const control = open({ hostToken: token });
  await connected(control);
  await send(control, 'host.hello', { agentVersion: 'test', backend: 'adb', phones: serials.length, ...(features ? { features } : {}) });
  for (const serial of serials) {
    const phone = open({ hostToken: token, serial, model: 'Pixel 7' });
    await connected(phone);
    await send(phone, 'agent.hello', helloV1);
  }
  const devices = (await operator.get('/api/devices')).body as { id: string; serial: string; name: string }[];
  return { control, devices: serials.map((serial) => devices.find((row) => row.serial === serial)!) };
}

describe('settings in bulk', () => {
  it("sets a group's phones through their host, with a result per phone, and a task for what adb cannot set", async () => {
    const { control, devices } = await host('Rack S', ['SET-1', 'SET-2'], ['phone-settings']);
    const asked: unknown[] = [];
    control.on('host.phone-settings', (request: { serials: string[] }, ack: (answer: unknown) => void) => {
      asked.push(request);
      ack({
        results: [
          {
            serial: 'SET-1',
            outcomes: [
              { setting: 'wifi', outcome: 'done', detail: null },
              { setting: 'appLocale', outcome: 'failed', detail: 'Unknown package com.zhiliaoapp.musically for userId 0' },
            ],
            error: null,
          },
          {
            serial: 'SET-2',
            outcomes: [
              { setting: 'wifi', outcome: 'done', detail: null },
              { setting: 'appLocale', outcome: 'person', detail: "Set com.zhiliaoapp.musically's language to de on the phone." },
            ],
            error: null,
          },
        ],
      });
    });
    const group = (await operator.post('/api/groups', { name: 'Settings rack', deviceIds: devices.map((row) => row.id) })).body as { id: string };
    const settings = { wifi: 'on', appLocale: { package: 'com.zhiliaoapp.musically', locale: 'de' } };

    const answer = await operator.post('/api/devices/settings', { groupId: group.id, settings });
    expect(answer.status).toBe(200);
    expect(asked).toEqual([{ serials: ['SET-1', 'SET-2'], settings }]);
    const [first, second] = answer.body.results as { deviceId: string; outcomes: unknown[]; error: string | null; taskId: string | null }[];
    expect(first).toMatchObject({ deviceId: devices[0]!.id, error: null, taskId: null });
    expect(first!.outcomes).toEqual([
      { setting: 'wifi', outcome: 'done', detail: null },
      { setting: 'appLocale', outcome: 'failed', detail: 'Unknown package com.zhiliaoapp.musically for userId 0' },
    ]);
    expect(second).toMatchObject({ deviceId: devices[1]!.id, error: null, taskId: expect.any(String) });
    const task = await t.db
      .selectFrom('tasks')
      .select(['title', 'description', 'deviceId', 'status'])
      .where('id', '=', second!.taskId!)
      .executeTakeFirstOrThrow();
    expect(task).toMatchObject({ title: `Settings by hand on ${devices[1]!.name}`, deviceId: devices[1]!.id, status: 'pending' });
    expect(task.description).toContain('language to de');
    const feed = (await operator.get('/api/activities')).body as { action: string }[];
    expect(feed.some((row) => row.action === 'Settings (wifi, appLocale) sent to 2 phones: 1 set, 1 not, 1 need a person')).toBe(true);
  });

  it('says why where it cannot: a host too old for it, a phone on no host; refuses bad input and other workspaces', async () => {
    const { devices } = await host('Rack Old', ['OLD-1']);
    const own = await buildDevice(operator, { name: 'Own agent phone' });
    const answer = await operator.post('/api/devices/settings', { deviceIds: [devices[0]!.id, own.id], settings: { stayAwake: true } });
    expect(answer.status).toBe(200);
    expect(answer.body.results).toEqual([
      expect.objectContaining({ deviceId: devices[0]!.id, outcomes: [], error: "Its farm host's farm-agent cannot set phone settings yet: update it." }),
      expect.objectContaining({ deviceId: own.id, outcomes: [], error: 'Settings reach phones through a farm host; this phone has an agent of its own.' }),
    ]);

    const tasks = async () => (await t.db.selectFrom('tasks').select('id').execute()).length;
    const before = await tasks();
    expect(await operator.post('/api/devices/settings', { deviceIds: [own.id], settings: {} })).toMatchObject({ status: 400 });
    expect(await operator.post('/api/devices/settings', { deviceIds: [own.id], settings: { brightness: 300 } })).toMatchObject({ status: 400 });
    const unsafe = await operator.post('/api/devices/settings', { deviceIds: [own.id], settings: { appLocale: { package: 'com.x;reboot', locale: 'de' } } });
    expect(unsafe.status).toBe(400);
    expect(JSON.stringify(unsafe.body)).toContain('an app package such as com.instagram.android');
    expect(await operator.post('/api/devices/settings', { settings: { wifi: 'off' } })).toMatchObject({ status: 400 });
    const foreign = await stranger.post('/api/devices/settings', { deviceIds: [own.id], settings: { wifi: 'off' } });
    expect(foreign).toMatchObject({ status: 400, body: { error: '1 phone was not found in this workspace' } });
    expect((await va.post('/api/devices/settings', { deviceIds: [own.id], settings: { wifi: 'off' } })).status).toBe(403);
    expect(await tasks()).toBe(before);
  });
});
