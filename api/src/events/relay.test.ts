/** The change relay on a real Redis: a burst is recorded in a few writes, and a takeover emits only what was not. */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { Change } from '@farm/contracts';
import { ChangeRelay } from './relay.ts';

const redisUrl = process.env.REDIS_URL;

const wake = (n: number): Change => ({ workspaceId: 'w', event: 'device.wake', payload: { deviceId: `phone-${n}` } });
const numbered = (change: Change) => Number((change.payload as { deviceId: string }).deviceId.slice('phone-'.length));

async function until(check: () => boolean | Promise<boolean>, ms = 8000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.runIf(redisUrl)('change relay', () => {
  // Keys of this run's own: the API tests running beside it relay on the product's keys.
  const keys = { lease: `test:relay:${randomUUID()}:lease`, last: `test:relay:${randomUUID()}:last` };
  const clients: Redis[] = [];
  const client = () => {
    const redis = new Redis(redisUrl!, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
    clients.push(redis);
    return redis;
  };
  afterAll(async () => {
    await clients[0]?.del(keys.lease, keys.last);
    for (const redis of clients) redis.disconnect();
  });

  it('records a burst of 500 announcements in a few writes, the newest last; the next relay emits only what followed', async () => {
    const redisA = client();
    const writes: string[] = [];
    const set = redisA.set.bind(redisA) as (...args: unknown[]) => Promise<unknown>;
    Object.assign(redisA, {
      set: (...args: unknown[]) => {
        if (args[0] === keys.last) writes.push(String(args[1]));
        return set(...args);
      },
    });
    const emittedA: number[] = [];
    const errors: unknown[] = [];
    const a = new ChangeRelay(
      redisA,
      'a',
      (change) => emittedA.push(numbered(change)),
      (error) => errors.push(error),
      keys,
    );
    await until(() => a.isRelay);

    const emittedB: number[] = [];
    const b = new ChangeRelay(
      client(),
      'b',
      (change) => emittedB.push(numbered(change)),
      (error) => errors.push(error),
      keys,
    );
    // Both hear the channel; only the relay emits.
    for (let seq = 1; seq <= 500; seq += 1) {
      a.receive(seq, wake(seq));
      b.receive(seq, wake(seq));
    }
    await until(async () => (await redisA.get(keys.last)) === '500');
    expect(emittedA).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    expect(emittedB).toEqual([]);
    expect(writes.length).toBeLessThanOrEqual(3);
    expect(writes.at(-1)).toBe('500');

    // The relay stops; what it never heard (501–505) the next one emits on taking over, and nothing before.
    await a.close();
    for (let seq = 501; seq <= 505; seq += 1) b.receive(seq, wake(seq));
    await until(() => b.isRelay);
    await until(() => emittedB.length >= 5);
    expect(emittedB).toEqual([501, 502, 503, 504, 505]);
    b.receive(506, wake(506));
    expect(emittedB.at(-1)).toBe(506);
    await until(async () => (await redisA.get(keys.last)) === '506');
    await b.close();
    expect(errors).toEqual([]);
  });
});
