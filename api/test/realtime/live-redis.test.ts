/**
 * The live screen across two API instances on Redis: the phone's agent on A, the watcher on B. Frames cross on the
 * live bus (plain pub/sub), never in the persisted stream of console events; input goes from B to the phone on A and
 * its answer comes back; the stream stops once B's last watcher leaves.
 */
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInstance, buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { simulatedPhone, until } from './phones.ts';
import { connected, listen, pause } from './sockets.ts';

const redisUrl = process.env.REDIS_URL;

describe.runIf(redisUrl)('live screen across two API instances on Redis', () => {
  let a: TestApp;
  let b: FastifyInstance;
  let urlA: string;
  let urlB: string;
  const closers: (() => unknown)[] = [];

  beforeAll(async () => {
    a = await buildTestApp({ redisUrl });
    urlA = await listen(a.app);
    b = await buildInstance(a.database, { ...a.config, redisUrl });
    urlB = await listen(b);
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await b?.close();
    await a?.close();
  });

  const ask = (socket: Socket, event: string, message: unknown) =>
    new Promise<{ ok: boolean; [key: string]: unknown }>((resolve) => socket.emit(event, message, resolve));

  it('streams from a phone on A to a watcher on B, takes input from B, and stops when B stops watching', async () => {
    const { operator } = await people(a.app);
    const { device, ui, agent } = await simulatedPhone(urlA, operator as Client, 'Pixel far', closers);

    const redis = new Redis(redisUrl!);
    closers.push(() => redis.quit());
    const lastBefore = ((await redis.xrevrange('farm:socket.io', '+', '-', 'COUNT', 1))[0]?.[0] as string | undefined) ?? '0-0';

    const watcher = io(`${urlB}/live`, { forceNew: true, transports: ['websocket'], reconnection: false, extraHeaders: { cookie: `sid=${operator.cookie}` } });
    closers.push(() => watcher.disconnect());
    await connected(watcher);
    const frames: { seq: number; inputSeq?: number }[] = [];
    watcher.on('live.frame', (frame: { seq: number; inputSeq?: number }, ack: () => void) => {
      frames.push(frame);
      ack();
    });
    expect(await ask(watcher, 'live.watch', { deviceId: device.id })).toMatchObject({ ok: true, streaming: true });
    await until(async () => frames.length >= 5, 'frames on B', 5000);

    expect(await ask(watcher, 'live.control', { deviceId: device.id })).toEqual({ ok: true });
    expect(await ask(watcher, 'live.input', { deviceId: device.id, seq: 7, input: { kind: 'tap', x: 0.5, y: 0.5 } })).toMatchObject({
      ok: true,
      latencyMs: expect.any(Number),
    });
    expect(ui.taps.at(-1)).toMatchObject({ x: 540, y: 1200 });
    await until(async () => frames.some((frame) => frame.inputSeq === 7), 'a frame after the tap', 3000);
    await ask(watcher, 'live.release', { deviceId: device.id });

    await until(async () => frames.length >= 15, 'more frames on B', 5000);
    // Frames never went into the persisted stream of console events: what it gained meanwhile is small and frame-free.
    const added = await redis.xrange('farm:socket.io', `(${lastBefore}`, '+');
    const bytes = added.reduce((sum, [, fields]) => sum + fields.reduce((size, field) => size + field.length, 0), 0);
    const withFrames = added.filter(([, fields]) => fields.some((field) => field.includes('live.frame')));
    if (withFrames.length) console.log(JSON.stringify(withFrames.slice(0, 2)).slice(0, 1500));
    expect(withFrames).toHaveLength(0);
    expect(bytes).toBeLessThan(60_000);
    // A told its own phone to start streaming straight over the phone's socket, not through the stream.
    expect(added.filter(([, fields]) => fields.some((field) => field.includes('live.start')))).toHaveLength(0);

    await ask(watcher, 'live.unwatch', { deviceId: device.id });
    await until(async () => !agent.live.active, 'the stream stopped', 2000);
    const count = frames.length;
    await pause(300);
    expect(frames.length).toBeLessThanOrEqual(count + 1);
  });
});
