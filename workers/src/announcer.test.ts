import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ANNOUNCED, redisAnnouncer } from './announcer.ts';
import type { Change } from './changes.ts';

const redisUrl = process.env.REDIS_URL;

describe.runIf(redisUrl)('announcements over Redis', () => {
  const names = { channel: `test:changes:${randomUUID()}`, seqKey: `test:changes:seq:${randomUUID()}` };
  let publisher: Redis;
  let other: Redis;
  let subscriber: Redis;
  const heard: { seq: number; event: string; payload: { n: number; from: string } }[] = [];

  beforeAll(async () => {
    publisher = new Redis(redisUrl!);
    other = new Redis(redisUrl!);
    subscriber = new Redis(redisUrl!);
    await subscriber.subscribe(names.channel);
    subscriber.on('message', (_channel: string, text: string) => heard.push(JSON.parse(text)));
  });
  afterAll(async () => {
    await publisher?.del(names.seqKey);
    for (const client of [publisher, other, subscriber]) client?.disconnect();
  });

  const change = (n: number, from: string) =>
    ({ event: 'task.updated', workspaceId: '00000000-0000-4000-8000-000000000001', payload: { n, from } }) as unknown as Change;
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  };

  it('numbers a burst of changes in order, one after another, each message one change with its number', async () => {
    await publisher.set(names.seqKey, 41);
    const errors: unknown[] = [];
    const a = redisAnnouncer(publisher, (error) => errors.push(error), names);
    const count = MAX_ANNOUNCED * 2 + 7;
    for (let n = 0; n < count; n += 1) a.announce(change(n, 'a'));
    await a.flushed();
    await until(() => heard.length >= count);
    expect(errors).toEqual([]);
    expect(heard.map((message) => message.seq)).toEqual(Array.from({ length: count }, (_, i) => 42 + i));
    expect(heard.map((message) => message.payload.n)).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(heard[0]).toEqual({ seq: 42, ...change(0, 'a') });
    expect(await publisher.get(names.seqKey)).toBe(String(41 + count));
  });

  it('keeps two processes’ numbers in the order they reach the channel', async () => {
    heard.length = 0;
    const a = redisAnnouncer(publisher, () => undefined, names);
    const b = redisAnnouncer(other, () => undefined, names);
    for (let turn = 0; turn < 20; turn += 1) {
      for (let n = 0; n < 30; n += 1) {
        a.announce(change(turn * 30 + n, 'a'));
        b.announce(change(turn * 30 + n, 'b'));
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all([a.flushed(), b.flushed()]);
    await until(() => heard.length >= 1200);
    expect(heard).toHaveLength(1200);
    const seqs = heard.map((message) => message.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(1200);
    for (const from of ['a', 'b']) {
      const own = heard.filter((message) => message.payload.from === from).map((message) => message.payload.n);
      expect(own).toEqual(Array.from({ length: 600 }, (_, i) => i));
    }
  });

  it('reports a failed batch and goes on with the next', async () => {
    heard.length = 0;
    const broken = new Redis(redisUrl!, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    const errors: unknown[] = [];
    const announcer = redisAnnouncer(broken, (error) => errors.push(error), names);
    announcer.announce(change(1, 'broken'));
    await announcer.flushed();
    expect(errors).toHaveLength(1);
    // The failed command set the client connecting.
    if (broken.status !== 'ready') await new Promise((resolve) => broken.once('ready', resolve));
    announcer.announce(change(2, 'broken'));
    await announcer.flushed();
    await until(() => heard.length >= 1);
    expect(heard.map((message) => message.payload.n)).toEqual([2]);
    broken.disconnect();
  });
});
