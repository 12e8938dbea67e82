/**
 * The live bus on a Redis of its own: frames and signals reach the other instance; while Redis is away frames are
 * dropped at once (nothing queued in memory for later); once Redis is back both flow again. (Signals are at most once
 * too: the instances repeat who watches every second, so one lost in a reconnect is made good by the next.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { RedisLiveBus, type BusFrame, type LiveSignal } from '../../src/realtime/live.bus.ts';
import { redisPort, startRedis, type OwnRedis } from '../helpers/redis-server.ts';
import { until } from './phones.ts';

const frame = (seq: number): BusFrame => ({
  deviceId: 'phone-1',
  seq,
  width: 324,
  height: 720,
  source: 'sim',
  capturedAt: new Date().toISOString(),
  data: Buffer.alloc(50_000, seq % 256),
});

describe('the live bus over Redis', () => {
  let redis: OwnRedis | undefined;
  const buses: RedisLiveBus[] = [];
  afterAll(async () => {
    for (const bus of buses) await bus.close();
    await redis?.stop();
  });

  it('passes frames and signals between instances, drops frames while Redis is away, and carries on when it is back', async () => {
    const port = redisPort(4);
    redis = await startRedis(port);
    const quiet = () => undefined;
    const a = await RedisLiveBus.connect(redis.url, quiet);
    const b = await RedisLiveBus.connect(redis.url, quiet);
    buses.push(a, b);
    const frames: BusFrame[] = [];
    const signals: LiveSignal[] = [];
    b.subscribeFrames('phone-1', (received) => frames.push(received));
    b.onSignal((message) => signals.push(message));
    await new Promise((resolve) => setTimeout(resolve, 100));

    a.publishFrame(frame(1));
    a.signal({ t: 'watchers', from: a.instanceId, deviceId: 'phone-1', count: 1, slow: false });
    await until(async () => frames.length === 1 && signals.length === 1, 'a frame and a signal across');
    expect(frames[0]).toMatchObject({ deviceId: 'phone-1', seq: 1, width: 324 });
    expect(frames[0]!.data.equals(frame(1).data)).toBe(true);

    await redis.stop();
    await until(async () => (a as unknown as { pub: { status: string } }).pub.status !== 'ready', 'the bus to notice');
    const heapBefore = process.memoryUsage().heapUsed;
    for (let seq = 2; seq < 500; seq += 1) a.publishFrame(frame(seq));
    // 25 MB of frames would be queued if they waited for Redis; none is.
    expect((a as unknown as { pub: { offlineQueue: { length: number } } }).pub.offlineQueue.length).toBe(0);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(20_000_000);
    a.signal({ t: 'watchers', from: a.instanceId, deviceId: 'phone-1', count: 0, slow: false });

    redis = await startRedis(port);
    // As the instances do: announce every few hundred ms, stream while watched.
    let seq = 600;
    const again = setInterval(() => {
      a.signal({ t: 'watchers', from: a.instanceId, deviceId: 'phone-1', count: 1, slow: false });
      a.publishFrame(frame(seq++));
    }, 200);
    try {
      await until(
        async () => signals.some((message) => message.t === 'watchers' && message.count === 1 && signals.indexOf(message) > 0),
        'signals again',
        15_000,
      );
      await until(async () => frames.some((received) => received.seq >= 600), 'frames again', 15_000);
    } finally {
      clearInterval(again);
    }
    expect(frames.filter((received) => received.seq > 1 && received.seq < 500)).toHaveLength(0);
  }, 40_000);

  it('passes H.264 packets in the order they were published, with what they are', async () => {
    const port = redisPort(5);
    const own = await startRedis(port);
    const quiet = () => undefined;
    const a = await RedisLiveBus.connect(own.url, quiet);
    const b = await RedisLiveBus.connect(own.url, quiet);
    try {
      const got: BusFrame[] = [];
      b.subscribeFrames('phone-2', (received) => got.push(received));
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let seq = 1; seq <= 200; seq += 1)
        a.publishFrame({
          deviceId: 'phone-2',
          codec: 'h264',
          stream: 'watch',
          seq,
          config: seq === 1,
          keyFrame: seq === 2,
          ptsUs: seq === 1 ? null : seq * 33_333,
          width: 160,
          height: 320,
          data: Buffer.alloc(2000 + seq, seq % 256),
        });
      await until(async () => got.length === 200, 'every packet');
      expect(got.map((packet) => packet.seq)).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));
      expect(got[0]).toMatchObject({ codec: 'h264', stream: 'watch', config: true, ptsUs: null });
      expect(got[1]).toMatchObject({ codec: 'h264', keyFrame: true, ptsUs: 66_666 });
      expect(got[199]!.data.length).toBe(2200);
    } finally {
      await a.close();
      await b.close();
      await own.stop();
    }
  }, 30_000);
});
