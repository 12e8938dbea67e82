/**
 * What an API instance on Redis says to a phone connected to it goes to that phone's socket alone: a dispatch never
 * becomes an entry of the console's persisted stream, which every instance reads and which keeps browsers' missed
 * events (live-redis.test.ts holds the same of the live screen's start and stop).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processPostsDue } from '@farm/workers';
import { buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { buildAccount, buildPost } from '../helpers/factories.ts';
import { simulatedPhone, until } from './phones.ts';
import { listen } from './sockets.ts';

const redisUrl = process.env.REDIS_URL;
const STREAM = 'farm:socket.io';

describe.runIf(redisUrl)('messages to a phone on an instance on Redis', () => {
  let t: TestApp;
  let url: string;
  const closers: (() => unknown)[] = [];

  beforeAll(async () => {
    t = await buildTestApp({ redisUrl });
    url = await listen(t.app);
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await t?.close();
  });

  it('hands a post to its phone without an entry in the stream', async () => {
    const { operator } = await people(t.app);
    const { device } = await simulatedPhone(url, operator as Client, 'Pixel near', closers);

    const redis = new Redis(redisUrl!);
    closers.push(() => redis.quit());
    const lastBefore = ((await redis.xrevrange(STREAM, '+', '-', 'COUNT', 1))[0]?.[0] as string | undefined) ?? '0-0';

    const account = await buildAccount(operator as Client, { deviceId: device.id, status: 'active', platform: 'instagram' });
    const post = await buildPost(operator as Client, account.id, {
      status: 'scheduled',
      scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
      caption: 'Straight to the phone',
    });
    await t.db
      .updateTable('posts')
      .set({ scheduledAt: new Date(Date.now() - 1000) })
      .where('id', '=', post.id)
      .execute();
    await processPostsDue(undefined, { db: t.db, announce: (change) => t.app.ctx.changes.publish(change) });
    const settled = await until(async () => {
      const row = await t.db.selectFrom('tasks').select(['status', 'attempt']).where('postId', '=', post.id).executeTakeFirst();
      return row && row.status !== 'pending' && row.status !== 'in-progress' ? row : undefined;
    }, 'the post run on the phone');
    expect(settled.attempt).toBe(1);

    const added = await redis.xrange(STREAM, `(${lastBefore}`, '+');
    const toPhone = added.filter(([, fields]) => fields.some((field) => /task\.dispatch|task\.cancel|live\.start|live\.stop/.test(field)));
    expect(toPhone).toHaveLength(0);
    // What browsers hear of it still goes through the stream.
    expect(added.some(([, fields]) => fields.some((field) => field.includes('task.updated')))).toBe(true);
  });
});
