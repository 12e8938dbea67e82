/**
 * Phones join: one-time enrollment codes for devices and farm hosts, credentials that speak only for their own
 * phones, revocation that cuts a phone off at once, and device state that only agents can move.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '../helpers/app.ts';
import { configureAutomation } from '@farm/workers';
import { buildDevice } from '../helpers/factories.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { helloV1, send, until } from './phones.ts';
import { connected, pause } from './sockets.ts';

const { t, operator, va, stranger, agentSocket: open } = await realtimeApp({ automation: { heartbeatMs: 500 } });

const anonymous = () => new Client(t.app);
const device = async (id: string) => (await operator.get(`/api/devices/${id}`)).body;

describe('device enrollment codes', () => {
  it('gives a one-time code, valid 15 minutes, that an agent exchanges once for its credential', async () => {
    const phone = await buildDevice(operator, { name: 'Pixel 7 #04' });
    const issued = await operator.post(`/api/devices/${phone.id}/enrollment`);
    expect(issued.status).toBe(201);
    expect(issued.body.code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(Date.parse(issued.body.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect((await va.post(`/api/devices/${phone.id}/enrollment`)).status).toBe(403);
    expect((await stranger.post(`/api/devices/${phone.id}/enrollment`)).status).toBe(404);

    const enrolled = await anonymous().post('/api/agent/enroll', {
      code: issued.body.code.toLowerCase().replace('-', ' '),
      serial: 'R58M123ABC',
      model: 'Pixel 7',
      androidVersion: '14',
    });
    expect(enrolled.status).toBe(200);
    expect(enrolled.body).toEqual({ deviceId: phone.id, token: expect.stringMatching(/^dev_/) });
    expect(await device(phone.id)).toMatchObject({ serial: 'R58M123ABC', model: 'Pixel 7', androidVersion: '14', status: 'offline', lastSeenAt: null });

    const again = await anonymous().post('/api/agent/enroll', { code: issued.body.code });
    expect(again).toMatchObject({ status: 410, body: { error: 'This enrollment code was already used. Ask an operator for a new one.' } });
    const socket = open({ token: enrolled.body.token });
    await connected(socket);
    expect(await send(socket, 'agent.hello', helloV1)).toMatchObject({ ok: true, deviceId: phone.id });
  });

  it('refuses unknown, voided and expired codes with what to do, and a malformed body by its field', async () => {
    const phone = await buildDevice(operator);
    const first = await operator.post(`/api/devices/${phone.id}/enrollment`);
    const second = await operator.post(`/api/devices/${phone.id}/enrollment`);
    expect(await anonymous().post('/api/agent/enroll', { code: first.body.code })).toMatchObject({
      status: 410,
      body: { error: 'A newer enrollment code replaced this one. Use the newest code.' },
    });
    expect(await anonymous().post('/api/agent/enroll', { code: 'ZZZZ-ZZZZ' })).toMatchObject({
      status: 404,
      body: { error: 'This enrollment code is not known. Check it, or ask an operator for a new one.' },
    });
    await t.db
      .updateTable('enrollmentCodes')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('deviceId', '=', phone.id)
      .execute();
    expect(await anonymous().post('/api/agent/enroll', { code: second.body.code })).toMatchObject({
      status: 410,
      body: { error: 'This enrollment code has expired (codes last 15 minutes). Ask an operator for a new one.' },
    });
    const empty = await anonymous().post('/api/agent/enroll', { code: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.body.details[0].field).toBe('code');
  });

  it('one code, two agents racing: one credential', async () => {
    const phone = await buildDevice(operator);
    const { code } = (await operator.post(`/api/devices/${phone.id}/enrollment`)).body;
    const answers = await Promise.all(Array.from({ length: 4 }, () => anonymous().post('/api/agent/enroll', { code })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 410, 410, 410]);
  });

  it('revoking a credential cuts the phone off at once, and the credential never works again', async () => {
    const phone = await buildDevice(operator, { name: 'Pixel revoked' });
    const { code } = (await operator.post(`/api/devices/${phone.id}/enrollment`)).body;
    const { token } = (await anonymous().post('/api/agent/enroll', { code })).body;
    const socket = open({ token });
    await connected(socket);
    await send(socket, 'agent.hello', helloV1);
    expect((await device(phone.id)).status).toBe('online');
    const gone = new Promise<string>((resolve) => socket.once('disconnect', resolve));
    expect((await va.delete(`/api/devices/${phone.id}/credentials`)).status).toBe(403);
    expect((await operator.delete(`/api/devices/${phone.id}/credentials`)).status).toBe(204);
    expect(await gone).toBe('io server disconnect');
    await until(async () => (await device(phone.id)).status === 'offline', 'the phone to go offline');
    await expect(connected(open({ token }))).rejects.toThrow('unauthorized');
  });
});

describe('farm hosts', () => {
  async function enrolledHost(name: string) {
    const created = await operator.post('/api/hosts', { name });
    expect(created.status).toBe(201);
    const exchanged = await anonymous().post('/api/agent/enroll', { code: created.body.code });
    expect(exchanged.body).toEqual({ hostId: created.body.host.id, token: expect.stringMatching(/^host_/) });
    return { hostId: created.body.host.id as string, token: exchanged.body.token as string };
  }

  it('registers every phone it sees by serial, once; a phone speaks through its host and goes offline when unplugged', async () => {
    const { hostId, token } = await enrolledHost('Rack A');
    const control = open({ hostToken: token });
    await connected(control);
    expect(await send(control, 'host.hello', { agentVersion: 'test', backend: 'sim', phones: 2 })).toMatchObject({ ok: true, hostId });

    const phone = open({ hostToken: token, serial: 'SIM-000001', model: 'Pixel 8' });
    await connected(phone);
    await send(phone, 'agent.hello', helloV1);
    const list = (await operator.get('/api/devices')).body as { id: string; name: string; serial: string; hostId: string; status: string }[];
    const registered = list.filter((row) => row.serial === 'SIM-000001');
    expect(registered).toEqual([expect.objectContaining({ name: 'Pixel 8 · 000001', hostId, status: 'online' })]);
    // Renamed and given to a VA like any device; it stays the same device when it comes back.
    await operator.patch(`/api/devices/${registered[0]!.id}`, { name: 'Rack A slot 1', assignedToId: va.user!.id });
    phone.disconnect();
    await until(async () => (await device(registered[0]!.id)).status === 'offline', 'the unplugged phone to go offline', 2000);
    const back = open({ hostToken: token, serial: 'SIM-000001', model: 'Pixel 8' });
    await connected(back);
    await send(back, 'agent.hello', helloV1);
    expect(await device(registered[0]!.id)).toMatchObject({ name: 'Rack A slot 1', status: 'online', assignedToId: va.user!.id });
    expect(((await operator.get('/api/devices')).body as { serial: string }[]).filter((row) => row.serial === 'SIM-000001')).toHaveLength(1);

    const hosts = (await operator.get('/api/hosts')).body as { id: string; connected: boolean; phones: number; phonesOnline: number }[];
    expect(hosts.find((row) => row.id === hostId)).toMatchObject({ connected: true, phones: 1, phonesOnline: 1 });
    expect((await va.get('/api/hosts')).status).toBe(403);
  });

  it('refuses a host speaking for a phone of another host, and two hosts racing over a new phone register it once', async () => {
    const a = await enrolledHost('Rack B');
    const b = await enrolledHost('Rack C');
    const racing = await Promise.allSettled([
      connected(open({ hostToken: a.token, serial: 'RACE-1' })),
      connected(open({ hostToken: b.token, serial: 'RACE-1' })),
    ]);
    expect(racing.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refused = racing.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect((refused.reason as Error).message).toBe('This phone is registered through another host');
    const rows = await t.db.selectFrom('devices').select(['id', 'hostId']).where('serial', '=', 'RACE-1').execute();
    expect(rows).toHaveLength(1);
    // A host of another workspace knows nothing of this one's phones: its own phone with that serial is its own.
    const elsewhere = await stranger.post('/api/hosts', { name: 'Other farm' });
    const { token } = (await anonymous().post('/api/agent/enroll', { code: elsewhere.body.code })).body;
    const theirs = open({ hostToken: token, serial: 'RACE-1' });
    await connected(theirs);
    expect(await t.db.selectFrom('devices').select('workspaceId').where('serial', '=', 'RACE-1').execute()).toHaveLength(2);
  });

  it('adopts a phone of a revoked host, never one enrolled with its own credential until an operator revokes that', async () => {
    const old = await enrolledHost('Rack E');
    const first = open({ hostToken: old.token, serial: 'SIM-MOVED' });
    await connected(first);
    const row = await t.db.selectFrom('devices').select(['id']).where('serial', '=', 'SIM-MOVED').executeTakeFirstOrThrow();
    expect((await operator.delete(`/api/hosts/${old.hostId}`)).status).toBe(204);
    // The phone now runs on its own, with a credential of its own.
    const { code } = (await operator.post(`/api/devices/${row.id}/enrollment`)).body;
    const { token } = (await anonymous().post('/api/agent/enroll', { code })).body;
    const own = open({ token });
    await connected(own);
    await send(own, 'agent.hello', helloV1);
    // Another host cannot take it, and the phone's own agent is not kicked off.
    const other = await enrolledHost('Rack F');
    await expect(connected(open({ hostToken: other.token, serial: 'SIM-MOVED' }))).rejects.toThrow(
      'This phone is enrolled with its own credential; an operator can revoke that credential to let this host take it',
    );
    await pause(100);
    expect(own.connected).toBe(true);
    expect((await device(row.id)).hostId).toBe(old.hostId);
    // The operator lets the host have it.
    expect((await operator.delete(`/api/devices/${row.id}/credentials`)).status).toBe(204);
    await connected(open({ hostToken: other.token, serial: 'SIM-MOVED' }));
    expect((await device(row.id)).hostId).toBe(other.hostId);
  });

  it('registers at most the phones a host may have, and a phone it has comes back whatever the count', async () => {
    const rack = await enrolledHost('Rack G');
    configureAutomation({ phonesPerHost: 2 });
    try {
      await Promise.all(['CAP-1', 'CAP-2'].map((serial) => connected(open({ hostToken: rack.token, serial }))));
      await expect(connected(open({ hostToken: rack.token, serial: 'CAP-3' }))).rejects.toThrow('This host already has 2 phones, the most one host may have');
      await connected(open({ hostToken: rack.token, serial: 'CAP-1' }));
      const rows = await t.db.selectFrom('devices').select('serial').where('hostId', '=', rack.hostId).orderBy('serial').execute();
      expect(rows.map((row) => row.serial)).toEqual(['CAP-1', 'CAP-2']);
    } finally {
      configureAutomation({ phonesPerHost: 64 });
    }
  });

  it('revoking a host disconnects it and all its phones at once; its credential is refused after', async () => {
    const { hostId, token } = await enrolledHost('Rack D');
    const control = open({ hostToken: token });
    const phone = open({ hostToken: token, serial: 'SIM-REVOKE' });
    await Promise.all([connected(control), connected(phone)]);
    await send(phone, 'agent.hello', helloV1);
    const dropped = Promise.all([control, phone].map((socket) => new Promise((resolve) => socket.once('disconnect', resolve))));
    expect((await operator.delete(`/api/hosts/${hostId}`)).status).toBe(204);
    await dropped;
    await expect(connected(open({ hostToken: token }))).rejects.toThrow('unauthorized');
    expect(((await operator.get('/api/hosts')).body as { id: string; revokedAt: string | null }[]).find((row) => row.id === hostId)!.revokedAt).not.toBeNull();
  });
});

describe('device state from agents only', () => {
  it('a device no agent ever reported is offline, whatever a person types; hello, silence and goodbye move it', async () => {
    const typed = await operator.post('/api/devices', { name: 'Pixel typed', status: 'online', battery: 3 });
    expect(typed.body).toMatchObject({ status: 'offline', battery: 100, lastSeenAt: null });
    expect((await operator.patch(`/api/devices/${typed.body.id}`, { status: 'busy', battery: 7 })).body).toMatchObject({ status: 'offline', battery: 100 });

    const { code } = (await operator.post(`/api/devices/${typed.body.id}/enrollment`)).body;
    const { token } = (await anonymous().post('/api/agent/enroll', { code })).body;
    const socket = open({ token });
    await connected(socket);
    await send(socket, 'agent.hello', { ...helloV1, battery: 64 });
    expect(await device(typed.body.id)).toMatchObject({ status: 'online', battery: 64 });
    await send(socket, 'agent.heartbeat', { battery: 63, status: 'online', screenOn: false });
    await until(async () => (await device(typed.body.id)).status === 'idle', 'a screen-off phone to read idle');
    // Silent, socket open: offline after three heartbeats (the watchdog runs every 5 s).
    await t.app.ctx.jobs!.runNow('devices.watchdog');
    await pause(1700);
    await t.app.ctx.jobs!.runNow('devices.watchdog');
    expect((await device(typed.body.id)).status).toBe('offline');
    await send(socket, 'agent.heartbeat', { battery: 62, status: 'online', screenOn: true });
    await until(async () => (await device(typed.body.id)).status === 'online', 'the phone heard again');
    socket.disconnect();
    await until(async () => (await device(typed.body.id)).status === 'offline', 'the phone gone');
  });
});
