/**
 * Fault tests with real processes on PostgreSQL and Redis: worker processes killed mid-dispatch, Redis restarted and
 * flushed, phones that go silent or drop and come back, people changing posts as they fall due. After each, every post
 * is published exactly once (once in the database, once on a phone, by the phones' journals) or failed with a reason,
 * and none is stuck.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { TaskDispatchV1 } from '@farm/agent-protocol';
import { bareAgent, helloV1, send } from '../realtime/phones.ts';
import { connected } from '../realtime/sockets.ts';
import { farm, OwnRedis, ownDatabase, pause, schedule, startApi, startWorker, stop, verdict, waitFor, type Farm } from './harness.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** Database, Redis, one API instance and a farm of simulated phones. */
async function stage(phones: number, options: { workMs?: number } = {}) {
  const db = await ownDatabase();
  cleanups.push(() => db.drop());
  const redis = await OwnRedis.start();
  cleanups.push(() => redis.down());
  const api = await startApi(db.database, db.url, redis.url);
  cleanups.push(() => api.close());
  const f = await farm(api, phones, options);
  cleanups.push(async () => {
    for (const { phone } of f.phones) phone.close();
  });
  const workspaceId = (await db.database.db.selectFrom('devices').select('workspaceId').executeTakeFirstOrThrow()).workspaceId;
  const worker = () => {
    const child = startWorker(db.url, redis.url);
    cleanups.push(() => stop(child, 'SIGKILL'));
    return child;
  };
  return { db, redis, api, f, workspaceId, worker };
}

async function settled(database: Awaited<ReturnType<typeof ownDatabase>>['database'], postIds: string[], timeoutMs = 90_000) {
  await waitFor(
    async () => (await database.db.selectFrom('posts').select('id').where('id', 'in', postIds).where('status', '=', 'scheduled').execute()).length === 0,
    'every post to be published or failed',
    timeoutMs,
  );
}

const clean = { stuck: 0, publishedTwice: 0, tasksRunTwice: 0, publishedWithoutRun: 0, failedWithoutReason: 0 };

if (process.env.TEST_DB === 'postgres' && process.env.REDIS_URL) {
  describe('work reaches phones exactly once through faults', () => {
    it('a worker killed (SIGKILL) in the middle of dispatching 500 posts loses and doubles nothing', async () => {
      const s = await stage(20, { workMs: 30 });
      const due = new Date(Date.now() + 2500);
      const posts = await schedule(
        s.db.database,
        s.workspaceId,
        s.f.phones.map((p) => p.accountId),
        500,
        due,
      );
      const a = s.worker();
      const b = s.worker();
      await pause(due.getTime() - Date.now() + 80);
      await stop(a, 'SIGKILL');
      await pause(300);
      await stop(b, 'SIGKILL');
      // Nothing runs the scheduler for a moment; then the workers are back.
      await pause(500);
      s.worker();
      s.worker();
      await settled(s.db.database, posts);
      expect(await verdict(s.db.database, s.f, posts)).toMatchObject({ ...clean, published: 500 });
    }, 150_000);

    it('Redis restarted and flushed with posts scheduled: the triggers come back and every post goes out once', async () => {
      const s = await stage(6);
      const due = new Date(Date.now() + 6000);
      const posts = await schedule(
        s.db.database,
        s.workspaceId,
        s.f.phones.map((p) => p.accountId),
        60,
        due,
      );
      s.worker();
      await pause(1500);
      await s.redis.down();
      await pause(1000);
      await s.redis.up();
      await s.redis.cli('FLUSHALL');
      await settled(s.db.database, posts);
      expect(await verdict(s.db.database, s.f, posts)).toMatchObject({ ...clean, published: 60 });
    }, 150_000);

    it('a protocol 1 phone that acks and goes silent loses the work; back as itself, the post is published once', async () => {
      const s = await stage(1);
      const [{ deviceId, accountId, phone }] = s.f.phones as [Farm['phones'][number]];
      phone.close();
      await waitFor(async () => (await s.f.operator.get(`/api/devices/${deviceId}`)).body.status === 'offline', 'the phone to go');
      const token = (await s.f.operator.post(`/api/devices/${deviceId}/credentials`)).body.token as string;
      // The silent phone: it heartbeats until it takes the work, then says nothing more, its socket still open. (Its
      // heartbeats keep it online however long the worker process takes to start on a loaded machine.)
      const silent = bareAgent(s.api.url, token);
      cleanups.push(async () => void silent.disconnect());
      const dispatches: TaskDispatchV1[] = [];
      const heartbeats = setInterval(() => void send(silent, 'agent.heartbeat', { battery: 90, status: 'online' }), 300);
      cleanups.push(async () => clearInterval(heartbeats));
      silent.on('task.dispatch', (message: TaskDispatchV1) => {
        clearInterval(heartbeats);
        dispatches.push(message);
        void send(silent, 'task.ack', { taskId: message.taskId, attempt: message.attempt });
      });
      await connected(silent);
      await send(silent, 'agent.hello', helloV1);
      s.worker();
      const posts = await schedule(s.db.database, s.workspaceId, [accountId], 1, new Date());
      await waitFor(async () => dispatches.length === 1, 'the silent phone to take the post');
      const taskOf = () => s.db.database.db.selectFrom('tasks').selectAll().where('postId', '=', posts[0]!).executeTakeFirstOrThrow();
      await waitFor(async () => (await taskOf()).failureCode === 'lease_expired', 'the lease to end');
      await waitFor(async () => (await s.f.operator.get(`/api/devices/${deviceId}`)).body.status === 'offline', 'the watchdog to see the silence');
      expect(dispatches).toHaveLength(1);
      // The phone's agent restarts (protocol 2 this time): the post goes to it and is published once.
      const { SimulatedPhone, Journal } = await import('@farm/agent-protocol');
      const journal = new Journal();
      const back = new SimulatedPhone({ url: s.api.url, token, journal, workMs: 50, reconnectionDelayMs: 200 });
      cleanups.push(async () => back.close());
      s.f.phones[0] = { deviceId, accountId, phone: back, journal };
      await settled(s.db.database, posts);
      expect(await verdict(s.db.database, s.f, posts)).toMatchObject({ ...clean, published: 1 });
      expect((await taskOf()).attempt).toBe(2);
    }, 120_000);

    it('phones that drop after running report on reconnect; nothing is run twice', async () => {
      const s = await stage(4, { workMs: 1200 });
      s.worker();
      const posts = await schedule(
        s.db.database,
        s.workspaceId,
        s.f.phones.map((p) => p.accountId),
        8,
        new Date(),
      );
      // Each phone drops as soon as it starts a post, for a short while (within the lease) or a long one (past it).
      const away = [1500, 1500, 6000, 6000];
      for (const [index, { phone }] of s.f.phones.entries()) {
        let dropped = false;
        phone.socket.on('task.dispatch', () => {
          if (dropped) return;
          dropped = true;
          setTimeout(() => {
            phone.socket.disconnect();
            setTimeout(() => phone.socket.connect(), away[index]!);
          }, 100);
        });
      }
      await settled(s.db.database, posts);
      expect(await verdict(s.db.database, s.f, posts)).toMatchObject({ ...clean, published: 8 });
    }, 120_000);

    it('posts deleted, unscheduled, rescheduled, edited and moved to another phone as they fall due: nothing stale runs', async () => {
      const s = await stage(8, { workMs: 400 });
      s.worker();
      const accounts = s.f.phones.slice(0, 6).map((p) => p.accountId);
      const due = new Date(Date.now() + 3000);
      const posts = await schedule(s.db.database, s.workspaceId, accounts, 150, due);
      const [deleting, unscheduling, rescheduling, editing] = [posts.slice(0, 25), posts.slice(25, 50), posts.slice(50, 75), posts.slice(75, 100)];
      await pause(due.getTime() - Date.now() - 100);
      const op = s.f.operator;
      const later = new Date(Date.now() + 4000).toISOString();
      const answers = await Promise.all([
        ...deleting.map((id) => op.delete(`/api/posts/${id}`)),
        ...unscheduling.map((id) => op.patch(`/api/posts/${id}`, { status: 'draft' })),
        ...rescheduling.map((id) => op.patch(`/api/posts/${id}`, { scheduledAt: later })),
        ...editing.map((id) => op.patch(`/api/posts/${id}`, { caption: 'Edited at the last moment' })),
        // Two accounts move to the spare phones while their posts are going out.
        op.patch(`/api/accounts/${accounts[0]}`, { deviceId: s.f.phones[6]!.deviceId }),
        op.patch(`/api/accounts/${accounts[1]}`, { deviceId: s.f.phones[7]!.deviceId }),
      ]);
      // A change that lost the race to the phone is refused as such (a published post cannot move), never a 5xx.
      expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
      const live = posts.filter((id) => !deleting.includes(id));
      await waitFor(
        async () => (await s.db.database.db.selectFrom('posts').select('id').where('id', 'in', live).where('status', '=', 'scheduled').execute()).length === 0,
        'every post still scheduled to go out',
        90_000,
      );
      const result = await verdict(s.db.database, s.f, live);
      expect(result).toMatchObject(clean);
      // Deleted posts ran at most once, and only if a phone had finished before the delete.
      const runs = [...(await s.db.database.db.selectFrom('tasks').select('id').where('postId', 'is', null).where('sourceKey', 'like', 'post:%').execute())];
      const publishes = new Map<string, number>();
      for (const { journal } of s.f.phones) for (const [taskId, n] of journal.completedRuns()) publishes.set(taskId, (publishes.get(taskId) ?? 0) + n);
      expect(runs.every((task) => (publishes.get(task.id) ?? 0) <= 1)).toBe(true);
      // Unscheduled posts stayed drafts unless they were already published.
      const drafts = await s.db.database.db.selectFrom('posts').select(['status']).where('id', 'in', unscheduling).execute();
      expect(drafts.every((post) => post.status === 'draft' || post.status === 'published')).toBe(true);
      // An edited post that had not gone out yet went out with its new words.
      const editedTasks = await s.db.database.db
        .selectFrom('tasks')
        .select(['work'])
        .where('postId', 'in', editing)
        .where('status', '=', 'completed')
        .execute();
      const captions = editedTasks.map((task) => (task.work as { caption: string }).caption);
      expect(
        captions.filter((caption) => caption === 'Edited at the last moment').length +
          captions.filter((caption) => caption !== 'Edited at the last moment').length,
      ).toBe(editing.length);
    }, 150_000);
  });
}
