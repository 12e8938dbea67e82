/**
 * The live screen and remote control over real sockets: a simulated phone's agent (the real agent, driving the
 * simulated phone UI) streams to watchers only while someone watches; people of another workspace see nothing; who
 * may control, one controller at a time, handing over and taking over; inputs reach the phone scaled to its screen;
 * tasks wait while a person controls the phone; idle control is released after a prompt; usage is recorded.
 */
import type { Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import type { LiveFrameOut } from '@farm/contracts';
import { realtimeApp } from '../helpers/realtime.ts';
import { bareAgent, duePostTask, enrolledPhone, helloV1, send, simulatedPhone, until } from './phones.ts';
import { connected, next, pause } from './sockets.ts';

const { t, url, operator, va, stranger, closers, liveSocket } = await realtimeApp({ liveControlIdleMs: 5_000, automation: { heartbeatMs: 1000 } });

type Answer = { ok: true; [key: string]: unknown } | { ok: false; error: string };
const ask = (socket: Socket, event: string, message: unknown) => new Promise<Answer>((resolve) => socket.emit(event, message, resolve));

/** A phone of the operator's workspace with the real agent on the simulated phone UI, connected. */
const livePhone = (name: string) => simulatedPhone(url, operator, name, closers);

/** Collects the frames a watcher gets, acknowledging each at once. */
function frames(socket: Socket): LiveFrameOut[] {
  const seen: LiveFrameOut[] = [];
  socket.on('live.frame', (frame: LiveFrameOut, ack: () => void) => {
    seen.push(frame);
    ack();
  });
  return seen;
}

describe('live screen', () => {
  it('streams JPEG frames to a watcher while it watches, none to another workspace, and stops within 2 s of the last watcher leaving', async () => {
    const { device, agent } = await livePhone('Pixel live');
    const watcher = liveSocket(operator);
    await connected(watcher);
    const seen = frames(watcher);
    const answer = await ask(watcher, 'live.watch', { deviceId: device.id });
    expect(answer).toEqual({ ok: true, streaming: true, canControl: true });
    await until(async () => seen.length >= 5, 'five frames', 5000);
    const first = seen[0]!;
    expect(first).toMatchObject({ deviceId: device.id, source: 'sim', width: 324, height: 720 });
    expect(
      Buffer.from(first.data as ArrayBuffer)
        .subarray(0, 2)
        .toString('hex'),
    ).toBe('ffd8');
    expect(seen.map((frame) => frame.seq)).toEqual([...seen.map((frame) => frame.seq)].sort((a, b) => a - b));

    // Someone of another workspace cannot watch, and gets nothing.
    const outsider = liveSocket(stranger);
    await connected(outsider);
    const leaked = frames(outsider);
    expect(await ask(outsider, 'live.watch', { deviceId: device.id })).toEqual({ ok: false, error: 'This phone is not in your workspace' });
    await pause(500);
    expect(leaked).toHaveLength(0);

    // The last watcher leaves: the phone stops streaming.
    expect(await ask(watcher, 'live.unwatch', { deviceId: device.id })).toEqual({ ok: true });
    const left = Date.now();
    await until(async () => !agent.live.active, 'the stream stopped', 2000);
    expect(Date.now() - left).toBeLessThan(2000);
    const count = seen.length;
    await pause(400);
    expect(seen.length).toBeLessThanOrEqual(count + 1);
  });

  it('says why there is no stream: an offline phone, and an agent that cannot stream (protocol 1)', async () => {
    const { device } = await enrolledPhone(operator, { name: 'Pixel asleep' });
    const watcher = liveSocket(operator);
    await connected(watcher);
    expect(await ask(watcher, 'live.watch', { deviceId: device.id })).toMatchObject({ ok: true, streaming: false, reason: expect.stringContaining('offline') });

    const { device: old, token } = await enrolledPhone(operator, { name: 'Pixel v1' });
    const phone = bareAgent(url, token);
    closers.push(() => phone.disconnect());
    await connected(phone);
    expect((await send(phone, 'agent.hello', helloV1)).ok).toBe(true);
    const status = next<{ deviceId: string; streaming: boolean; reason?: string }>(watcher, 'live.status');
    await ask(watcher, 'live.watch', { deviceId: old.id });
    expect(await status).toMatchObject({ deviceId: old.id, streaming: false, reason: expect.stringContaining('Update farm-agent') });
  });
});

describe('remote control', () => {
  it('taps where the person clicked, scaled to the phone, answers with the latency, and frames say which input they show', async () => {
    const { device, ui } = await livePhone('Pixel tap');
    const watcher = liveSocket(operator);
    await connected(watcher);
    const seen = frames(watcher);
    await ask(watcher, 'live.watch', { deviceId: device.id });
    expect(await ask(watcher, 'live.input', { deviceId: device.id, seq: 1, input: { kind: 'tap', x: 0.5, y: 0.5 } })).toEqual({
      ok: false,
      error: 'Take control of this phone first',
    });
    expect(await ask(watcher, 'live.control', { deviceId: device.id })).toEqual({ ok: true });
    const controlled = (await operator.get(`/api/devices/${device.id}`)).body;
    expect(controlled).toMatchObject({ controlledById: operator.user!.id, controlledByName: 'Olga Operator' });

    const tapped = await ask(watcher, 'live.input', { deviceId: device.id, seq: 1, input: { kind: 'tap', x: 0.25, y: 0.5 } });
    expect(tapped).toMatchObject({ ok: true, latencyMs: expect.any(Number) });
    expect(ui.taps.at(-1)).toMatchObject({ x: 270, y: 1200 });
    expect(await ask(watcher, 'live.input', { deviceId: device.id, seq: 2, input: { kind: 'key', key: 'home' } })).toMatchObject({ ok: true });
    expect(ui.keys.at(-1)).toBe('home');
    expect(
      await ask(watcher, 'live.input', {
        deviceId: device.id,
        seq: 3,
        input: { kind: 'swipe', from: { x: 0.5, y: 0.8 }, to: { x: 0.5, y: 0.2 }, durationMs: 300 },
      }),
    ).toMatchObject({ ok: true });
    expect(ui.swipes.at(-1)).toEqual({ from: { x: 540, y: 1920 }, to: { x: 540, y: 480 }, durationMs: 300 });
    await until(async () => seen.some((frame) => frame.inputSeq === 3), 'a frame showing the swipe', 3000);
    // Bad input is refused naming the field.
    const bad = await ask(watcher, 'live.input', { deviceId: device.id, seq: 4, input: { kind: 'tap', x: 2, y: 0.5 } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toContain('input.x');
    expect(await ask(watcher, 'live.input', { deviceId: device.id, seq: 5, input: { kind: 'rotate' } })).toEqual({
      ok: false,
      error: 'The simulated phone does not turn its screen',
    });
    expect(await ask(watcher, 'live.release', { deviceId: device.id })).toEqual({ ok: true });
    expect((await operator.get(`/api/devices/${device.id}`)).body).toMatchObject({ controlledById: null, controlledByName: null });
  });

  it('lets a VA control only the phones assigned to them; one controller at a time; ask, hand over, and an operator takes over', async () => {
    const { device } = await livePhone('Pixel shared');
    const vaWatch = liveSocket(va);
    const opWatch = liveSocket(operator);
    await Promise.all([connected(vaWatch), connected(opWatch)]);
    expect(await ask(vaWatch, 'live.watch', { deviceId: device.id })).toMatchObject({ ok: true, canControl: false });
    expect(await ask(vaWatch, 'live.control', { deviceId: device.id })).toEqual({
      ok: false,
      error: 'You can control only the phones assigned to you; Pixel shared is not',
    });

    expect((await operator.patch(`/api/devices/${device.id}`, { assignedToId: va.user!.id })).status).toBe(200);
    expect(await ask(vaWatch, 'live.watch', { deviceId: device.id })).toMatchObject({ ok: true, canControl: true });
    await ask(opWatch, 'live.watch', { deviceId: device.id });

    // Both reach for it at once: exactly one gets it.
    const [first, second] = await Promise.all([ask(vaWatch, 'live.control', { deviceId: device.id }), ask(opWatch, 'live.control', { deviceId: device.id })]);
    expect([first.ok, second.ok].filter(Boolean)).toHaveLength(1);
    const opened = await t.db
      .selectFrom('deviceUsage')
      .select('userId')
      .where('deviceId', '=', device.id)
      .where('mode', '=', 'control')
      .where('endedAt', 'is', null)
      .execute();
    expect(opened).toHaveLength(1);
    if (first.ok) await ask(vaWatch, 'live.release', { deviceId: device.id });
    else await ask(opWatch, 'live.release', { deviceId: device.id });

    expect(await ask(vaWatch, 'live.control', { deviceId: device.id })).toEqual({ ok: true });
    expect(await ask(opWatch, 'live.control', { deviceId: device.id })).toEqual({
      ok: false,
      error: 'Vera Assistant is in control of Pixel shared. Ask to take over.',
    });

    // The operator asks; the VA hands over; the operator is in control.
    const asked = next<{ deviceId: string; userId: string; name: string }>(vaWatch, 'live.asked');
    expect(await ask(opWatch, 'live.ask', { deviceId: device.id })).toEqual({ ok: true });
    expect(await asked).toEqual({ deviceId: device.id, userId: operator.user!.id, name: 'Olga Operator' });
    // Never to someone of another workspace: refused, and the VA keeps control.
    expect(await ask(vaWatch, 'live.handover', { deviceId: device.id, userId: stranger.user!.id })).toEqual({
      ok: false,
      error: 'That person is not a member of this workspace',
    });
    expect((await operator.get(`/api/devices/${device.id}`)).body.controlledByName).toBe('Vera Assistant');
    expect(await ask(vaWatch, 'live.handover', { deviceId: device.id, userId: operator.user!.id })).toEqual({ ok: true });
    await until(async () => (await operator.get(`/api/devices/${device.id}`)).body.controlledById === operator.user!.id, 'the operator in control');
    expect(await ask(vaWatch, 'live.input', { deviceId: device.id, seq: 1, input: { kind: 'key', key: 'back' } })).toEqual({
      ok: false,
      error: 'Take control of this phone first',
    });

    // The VA takes it back, and the operator takes over: the VA is told.
    await ask(opWatch, 'live.release', { deviceId: device.id });
    expect(await ask(vaWatch, 'live.control', { deviceId: device.id })).toEqual({ ok: true });
    const released = next<{ deviceId: string; reason: string }>(vaWatch, 'live.released');
    expect(await ask(opWatch, 'live.control', { deviceId: device.id, takeOver: true })).toEqual({ ok: true });
    expect((await released).reason).toContain('Olga Operator took over Pixel shared');
    expect((await operator.get(`/api/devices/${device.id}`)).body.controlledByName).toBe('Olga Operator');
    // A VA cannot take over from someone else.
    expect(await ask(vaWatch, 'live.control', { deviceId: device.id, takeOver: true })).toEqual({
      ok: false,
      error: 'Only an operator can take over a phone someone else controls',
    });
    await ask(opWatch, 'live.release', { deviceId: device.id });
  });

  it("keeps the phone's tasks waiting while a person controls it, and dispatches them once handed back", async () => {
    const { device, agent } = await livePhone('Pixel busy hands');
    const watcher = liveSocket(operator);
    await connected(watcher);
    await ask(watcher, 'live.watch', { deviceId: device.id });
    expect(await ask(watcher, 'live.control', { deviceId: device.id })).toEqual({ ok: true });
    const { task } = await duePostTask(t, operator, device.id, 'Held while controlled');
    await pause(2500);
    expect((await t.db.selectFrom('tasks').select(['dispatchedAt', 'status']).where('id', '=', task.id).executeTakeFirstOrThrow()).dispatchedAt).toBeNull();
    expect(await ask(watcher, 'live.release', { deviceId: device.id })).toEqual({ ok: true });
    await until(
      async () => (await t.db.selectFrom('tasks').select('dispatchedAt').where('id', '=', task.id).executeTakeFirstOrThrow()).dispatchedAt,
      'the task dispatched after the hand-back',
      5000,
    );
    expect(agent.connected).toBe(true);
  });

  it('asks "Still using" a phone left idle under control, then releases it; usage is recorded and reported', async () => {
    const { device } = await livePhone('Pixel idle');
    const watcher = liveSocket(operator);
    await connected(watcher);
    await ask(watcher, 'live.watch', { deviceId: device.id });
    expect(await ask(watcher, 'live.control', { deviceId: device.id })).toEqual({ ok: true });
    const prompt = await next<{ deviceId: string; deviceName: string; releaseInMs: number }>(watcher, 'live.idle', 8000);
    expect(prompt).toMatchObject({ deviceId: device.id, deviceName: 'Pixel idle' });
    expect(prompt.releaseInMs).toBeLessThanOrEqual(1000);
    const released = await next<{ deviceId: string; reason: string }>(watcher, 'live.released', 4000);
    expect(released.reason).toBe('Pixel idle was released after 5 seconds without use');
    await until(async () => (await operator.get(`/api/devices/${device.id}`)).body.controlledById === null, 'released');
    await ask(watcher, 'live.unwatch', { deviceId: device.id });

    const report = await operator.get(`/api/device-usage?range=24h&deviceId=${device.id}`);
    expect(report.status).toBe(200);
    expect(report.body.sessions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ mode: 'control', userName: 'Olga Operator', deviceName: 'Pixel idle', endReason: 'idle' }),
        expect.objectContaining({ mode: 'watch', userName: 'Olga Operator', endReason: 'stopped watching' }),
      ]),
    );
    expect(report.body.totals.watchedSeconds).toBeGreaterThanOrEqual(4);
    expect(report.body.totals.controlledSeconds).toBeGreaterThanOrEqual(4);
    expect(report.body.days[0]).toMatchObject({ userName: 'Olga Operator', deviceName: 'Pixel idle', sessions: 1 });
    const csv = await operator.get(`/api/export/device-usage.csv?range=24h&deviceId=${device.id}`);
    expect(csv.status).toBe(200);
    expect(String(csv.body).split('\r\n')[0]).toBe('Started At,Ended At,Minutes,Person,Device,Mode,Ended Because');
    expect(String(csv.body)).toContain('Olga Operator,Pixel idle,Controlled,idle');
    const board = await operator.get('/api/analytics/tables/vas?range=24h&sort=handsOnHours');
    expect(board.status).toBe(200);
    expect(board.body.rows[0]).toHaveProperty('handsOnHours');
    const bad = await operator.get('/api/device-usage?range=forever');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('range');
  });
});
