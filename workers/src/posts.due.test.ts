/**
 * posts.due against a real database: PGlite always, PostgreSQL with two BullMQ workers racing on Redis when
 * DATABASE_URL and REDIS_URL are set. Every due post gets exactly one task; nothing is lost or made twice.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Database } from '@farm/sql';
import { processPostsDue } from './posts.due.ts';
import type { Announcement } from './changes.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function farm(database: Database, posts: number) {
  const db = database.db;
  const ws = await db.insertInto('workspaces').values({ name: 'W' }).returning('id').executeTakeFirstOrThrow();
  const device = await db.insertInto('devices').values({ workspaceId: ws.id, name: 'Phone' }).returning('id').executeTakeFirstOrThrow();
  const account = await db.insertInto('accounts').values({ workspaceId: ws.id, username: 'acct', platform: 'instagram', deviceId: device.id }).returning('id').executeTakeFirstOrThrow();
  const due = new Date(Date.now() - 1000);
  await db
    .insertInto('posts')
    .values(Array.from({ length: posts }, (_, i) => ({ workspaceId: ws.id, accountId: account.id, caption: `Post ${i}`, status: 'scheduled' as const, scheduledAt: due })))
    .execute();
  return ws.id;
}

async function taskCounts(database: Database) {
  const rows = await database.db.selectFrom('tasks').select(['postId']).where('postId', 'is not', null).execute();
  return { tasks: rows.length, distinctPosts: new Set(rows.map((r) => r.postId)).size };
}

describe('posts.due on PGlite', () => {
  it('turns every due post into one task, and a second run into nothing', async () => {
    const database = await openDatabase({ kind: 'pglite' });
    cleanups.push(() => database.close());
    await migrate(database);
    await farm(database, 30);
    const announced: Announcement[] = [];
    const first = await processPostsDue(undefined, { db: database.db, announce: (c) => announced.push(c) });
    const second = await processPostsDue(undefined, { db: database.db, announce: (c) => announced.push(c) });
    expect(first).toEqual({ tasks: 30, failed: 0 });
    expect(second).toEqual({ tasks: 0, failed: 0 });
    expect(await taskCounts(database)).toEqual({ tasks: 30, distinctPosts: 30 });
    expect(announced.filter((c) => c.event === 'task.created')).toHaveLength(30);
  });
});

describe.runIf(process.env.DATABASE_URL && process.env.REDIS_URL)('posts.due on PostgreSQL with BullMQ', () => {
  it('two workers racing on one queue dispatch 1,000 due posts once each', async () => {
    const base = process.env.DATABASE_URL!;
    const name = `farm_workers_${randomBytes(5).toString('hex')}`;
    const admin = await openDatabase({ kind: 'postgres', url: base, poolSize: 1 });
    await admin.exec(`CREATE DATABASE ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const database = await openDatabase({ kind: 'postgres', url: url.toString() });
    cleanups.push(async () => {
      await database.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    });
    await migrate(database);
    await farm(database, 1000);

    const { startBullmq } = await import('./bullmq.ts');
    const queue = `farm-test-${randomBytes(4).toString('hex')}`;
    const started = Date.now();
    const a = await startBullmq(process.env.REDIS_URL!, { db: database.db }, { queue });
    const b = await startBullmq(process.env.REDIS_URL!, { db: database.db }, { queue });
    cleanups.push(async () => {
      await a.close();
      await b.close();
    });
    let counts = await taskCounts(database);
    while (counts.tasks < 1000 && Date.now() - started < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      counts = await taskCounts(database);
    }
    expect(counts).toEqual({ tasks: 1000, distinctPosts: 1000 });
    await a.queue.obliterate({ force: true });
  });
});
