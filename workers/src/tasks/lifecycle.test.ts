/**
 * The task lifecycle's moves and races, against a real database: PGlite always, PostgreSQL (where two movers really
 * race) when DATABASE_URL is set.
 */
import { describe, expect, it } from 'vitest';
import type { TaskRow } from '@farm/sql';
import type { Db } from '../db.ts';
import { Outbox, Outboxes } from '../outbox.ts';
import type { Change } from '../changes.ts';
import { account, age, device, publishTask, quickSettings, reportResult, scheduledPosts, useTestDatabase, workspace } from '../../test/farm.ts';
import {
  acceptResults,
  ackTask,
  ackTasks,
  cancelTasks,
  dispatchMany,
  dispatchNext,
  expireLeases,
  progressTask,
  retryTask,
  withdrawTask,
  type NewTask,
  type PhoneResult,
  type ResultFrom,
} from './lifecycle.ts';

let db: Db;
const postgres = process.env.TEST_DB === 'postgres';
useTestDatabase((opened) => (db = opened), { quick: true });

async function farm() {
  const ws = await workspace(db);
  const phone = await device(db, ws);
  const acct = await account(db, ws, phone.id);
  return { ws, phone, acct };
}

/** Automation's work (it has a source, and a shipped recipe does it); only that goes to phones. */
const make = (ws: string, deviceId: string | null, overrides: Partial<NewTask> = {}) => publishTask(db, ws, deviceId, overrides);

/** A phone's result, announced changes collected. */
const report = (deviceId: string, result: PhoneResult) => reportResult(db, deviceId, result);

/** Phones' results written together, announced changes collected. */
async function reportAll(results: ResultFrom[]) {
  const changes: Change[] = [];
  const outboxes = new Outboxes();
  const verdicts = await db.transaction().execute((tx) => acceptResults(tx, results, outboxes));
  outboxes.flush((change) => changes.push(change));
  return { verdicts, changes };
}

const task = (id: string) => db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const withdrawn = (changes: Change[]) => changes.filter((change) => change.event === 'task.withdrawn').map((change) => change.payload);

describe('the task lifecycle', () => {
  it('leases a task as attempt 1, takes the ack and progress, and settles it once', async () => {
    const { ws, phone } = await farm();
    const created = await make(ws, phone.id);
    expect(created).toMatchObject({ status: 'pending', attempt: 0, dispatchedAt: null });

    const leased = await dispatchNext(db, phone.id);
    expect(leased).toMatchObject({ id: created.id, status: 'pending', attempt: 1 });
    expect(leased!.leaseExpiresAt!.getTime() - leased!.dispatchedAt!.getTime()).toBe(300);
    const given = () => db.selectFrom('taskAttempts').selectAll().where('taskId', '=', created.id).executeTakeFirstOrThrow();
    expect(await given()).toMatchObject({ attempt: 1, deviceId: phone.id, workspaceId: ws, ackedAt: null, outcome: null });
    // Another phone's ack, or one for another attempt, changes nothing.
    const other = await device(db, ws);
    expect(await ackTask(db, other.id, created.id, 1)).toBeUndefined();
    expect(await ackTask(db, phone.id, created.id, 2)).toBeUndefined();
    expect((await given()).ackedAt).toBeNull();
    expect(await ackTask(db, phone.id, created.id, 1)).toMatchObject({ status: 'in-progress' });
    const acked = (await given()).ackedAt;
    expect(acked).toBeInstanceOf(Date);
    expect(await ackTask(db, phone.id, created.id, 1)).toBeUndefined();
    expect((await given()).ackedAt).toEqual(acked);
    expect(await progressTask(db, phone.id, { taskId: created.id, attempt: 1, percent: 40, note: 'Writing the caption' })).toMatchObject({
      progress: 40,
      progressNote: 'Writing the caption',
    });

    const first = await report(phone.id, { taskId: created.id, attempt: 1, status: 'completed' });
    expect(first.verdict.kind).toBe('settled');
    const again = await report(phone.id, { taskId: created.id, attempt: 1, status: 'completed' });
    expect(again.verdict.kind).toBe('ignored');
    expect(await task(created.id)).toMatchObject({ status: 'completed', progress: 100, leaseExpiresAt: null, failureCode: null });
    const attempts = await db.selectFrom('taskAttempts').selectAll().where('taskId', '=', created.id).execute();
    expect(attempts).toEqual([expect.objectContaining({ attempt: 1, deviceId: phone.id, outcome: 'completed' })]);
  });

  it('hands no task to a phone while a dry run is under way on it, and does once the run ended', async () => {
    const { ws, phone } = await farm();
    const created = await make(ws, phone.id);
    const recipe = await db
      .insertInto('workspaceRecipes')
      .values({ workspaceId: ws, recipeId: 'instagram.warmup', version: 1, name: 'Warm-up', platform: 'instagram', routines: ['warmup'], body: '{}' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const run = await db
      .insertInto('recipeDryRuns')
      .values({
        workspaceId: ws,
        recipeRowId: recipe.id,
        recipeId: 'instagram.warmup',
        recipeVersion: 1,
        deviceId: phone.id,
        startedById: null,
        accountId: null,
        mode: 'step',
        effects: false,
        status: 'running',
        actions: '{}',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(await dispatchNext(db, phone.id)).toBeUndefined();
    expect((await dispatchMany(db, [phone.id])).size).toBe(0);
    await db.updateTable('recipeDryRuns').set({ status: 'stopped' }).where('id', '=', run.id).execute();
    expect(await dispatchNext(db, phone.id)).toMatchObject({ id: created.id, attempt: 1 });
  });

  it("takes many phones' acks in one statement, moving only the attempts out on the phones that sent them", async () => {
    const { ws, phone } = await farm();
    const second = await device(db, ws);
    const third = await device(db, ws);
    const [a, b, c] = [await make(ws, phone.id), await make(ws, second.id), await make(ws, third.id)];
    for (const id of [phone.id, second.id, third.id]) await dispatchNext(db, id);
    const changes: Change[] = [];
    const outboxes = new Outboxes();
    const acked = await ackTasks(
      db,
      [
        { deviceId: phone.id, taskId: a.id, attempt: 1 },
        // The same ack twice in one batch moves its task once.
        { deviceId: phone.id, taskId: a.id, attempt: 1 },
        // Another phone's word, and an attempt never given: nothing.
        { deviceId: phone.id, taskId: b.id, attempt: 1 },
        { deviceId: third.id, taskId: c.id, attempt: 2 },
        { deviceId: second.id, taskId: b.id, attempt: 1 },
      ],
      outboxes,
    );
    outboxes.flush((change) => changes.push(change));
    expect(acked.map((row) => row.id).sort()).toEqual([a.id, b.id].sort());
    expect(acked.every((row) => row.status === 'in-progress')).toBe(true);
    expect((await task(c.id)).status).toBe('pending');
    const attempts = await db.selectFrom('taskAttempts').select(['taskId', 'ackedAt']).where('taskId', 'in', [a.id, b.id, c.id]).execute();
    expect(
      attempts
        .filter((row) => row.ackedAt !== null)
        .map((row) => row.taskId)
        .sort(),
    ).toEqual([a.id, b.id].sort());
    expect(changes.filter((change) => change.event === 'task.updated')).toHaveLength(2);
    // Again: nothing moves twice.
    expect(await ackTasks(db, [{ deviceId: phone.id, taskId: a.id, attempt: 1 }])).toEqual([]);
    expect(await ackTasks(db, [])).toEqual([]);
  });

  it('keeps one attempt out per phone, however many dispatchers race', async () => {
    const { ws, phone } = await farm();
    const tasks = [await make(ws, phone.id, { priority: 'low' }), await make(ws, phone.id, { priority: 'high' }), await make(ws, phone.id)];
    const leased = (await Promise.all(Array.from({ length: 6 }, () => dispatchNext(db, phone.id)))).filter(Boolean);
    expect(leased).toHaveLength(1);
    // High priority first.
    expect(leased[0]!.id).toBe(tasks[1]!.id);
    expect(await dispatchNext(db, phone.id)).toBeUndefined();
    await report(phone.id, { taskId: tasks[1]!.id, attempt: 1, status: 'completed' });
    expect((await dispatchNext(db, phone.id))!.id).toBe(tasks[2]!.id);
  });

  it("leases many phones' next tasks in one statement, one attempt out per phone however many such leases race", async () => {
    const { ws, phone } = await farm();
    const second = await device(db, ws);
    const busy = await device(db, ws);
    const idle = await device(db, ws);
    const first = [await make(ws, phone.id, { priority: 'low' }), await make(ws, phone.id, { priority: 'high' })];
    const secondTask = await make(ws, second.id);
    await make(ws, busy.id);
    const out = await dispatchNext(db, busy.id);
    await make(ws, busy.id);

    const changes: Change[] = [];
    const outboxes = new Outboxes();
    const leased = await dispatchMany(db, [phone.id, second.id, busy.id, idle.id], outboxes);
    outboxes.flush((change) => changes.push(change));
    // Each free phone its best task (high priority first); the busy phone and the phone with nothing, none.
    expect([...leased.keys()].sort()).toEqual([phone.id, second.id].sort());
    expect(leased.get(phone.id)).toMatchObject({ id: first[1]!.id, attempt: 1, deviceId: phone.id });
    expect(leased.get(second.id)).toMatchObject({ id: secondTask.id, attempt: 1 });
    const attempts = await db.selectFrom('taskAttempts').select(['taskId', 'deviceId']).where('workspaceId', '=', ws).execute();
    expect(attempts.map((row) => row.taskId).sort()).toEqual([out!.id, first[1]!.id, secondTask.id].sort());
    expect(changes.filter((change) => change.event === 'task.updated')).toHaveLength(2);
    expect(await dispatchMany(db, [])).toEqual(new Map());

    // Racing batches over the same phones (as two API processes might, briefly, after a phone moves): each phone still
    // has one attempt out, whoever won it.
    const phones = [await device(db, ws), await device(db, ws), await device(db, ws)];
    for (const each of phones) for (let i = 0; i < 3; i++) await make(ws, each.id);
    await Promise.all(
      Array.from({ length: 6 }, () =>
        dispatchMany(
          db,
          phones.map((each) => each.id),
        ),
      ),
    );
    const perPhone = await db
      .selectFrom('tasks')
      .select(['deviceId', (eb) => eb.fn.countAll<string>().as('n')])
      .where(
        'deviceId',
        'in',
        phones.map((each) => each.id),
      )
      .where('dispatchedAt', 'is not', null)
      .groupBy('deviceId')
      .execute();
    expect(perPhone.map((row) => Number(row.n))).toEqual([1, 1, 1]);
  });

  it.runIf(postgres)('leases a batch whose phones another lease holds and waits for, even when the two wait on each other', async () => {
    const { ws, phone } = await farm();
    const second = await device(db, ws);
    for (const each of [phone, second]) for (let i = 0; i < 2; i++) await make(ws, each.id);
    // Another dispatcher's lease of the first phone, not yet committed; the batch of both phones waits for it, and
    // may hold the second phone meanwhile. When the other then asks for the second phone, the two wait on each other
    // and PostgreSQL undoes one: that one answers as a race lost, and the batch still leases both phones.
    const other = await db.startTransaction().execute();
    expect((await dispatchMany(other, [phone.id])).has(phone.id)).toBe(true);
    const batch = dispatchMany(db, [second.id, phone.id]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await dispatchMany(other, [second.id]);
    await other.rollback().execute();
    expect([...(await batch).keys()].sort()).toEqual([phone.id, second.id].sort());
    const out = await db
      .selectFrom('tasks')
      .select(['deviceId', (eb) => eb.fn.countAll<string>().as('n')])
      .where('deviceId', 'in', [phone.id, second.id])
      .where('dispatchedAt', 'is not', null)
      .groupBy('deviceId')
      .execute();
    expect(out.map((row) => Number(row.n))).toEqual([1, 1]);
  });

  it("clears a post's waiting notice when its work goes out, and says so", async () => {
    const { ws, phone, acct } = await farm();
    const [post, quiet] = await scheduledPosts(db, ws, acct.id, 2);
    await db
      .updateTable('posts')
      .set({ waitingCode: 'device_offline', waitingMessage: 'Waiting for a person: the phone is offline' })
      .where('id', '=', post!.id)
      .execute();
    const waited = await make(ws, phone.id, { postId: post!.id });
    const changes: Change[] = [];
    const outbox = new Outbox(ws);
    expect(await dispatchNext(db, phone.id, outbox)).toMatchObject({ id: waited.id, postId: post!.id, attempt: 1 });
    outbox.flush((change) => changes.push(change));
    expect(changes.map((change) => change.event)).toEqual(['post.updated', 'task.updated']);
    expect(changes[0]!.payload).toMatchObject({ id: post!.id, waitingCode: null, waitingMessage: null });
    expect(changes[1]!.payload).not.toHaveProperty('wokenPostId');
    await report(phone.id, { taskId: waited.id, attempt: 1, status: 'completed' });

    // A post that was not waiting is not announced again.
    const plain = await make(ws, phone.id, { postId: quiet!.id });
    const later = new Outbox(ws);
    expect(await dispatchNext(db, phone.id, later)).toMatchObject({ id: plain.id });
    const announced: Change[] = [];
    later.flush((change) => announced.push(change));
    expect(announced.map((change) => change.event)).toEqual(['task.updated']);
  });

  it('settles once when two results of one attempt arrive at the same moment', async () => {
    const { ws, phone } = await farm();
    const created = await make(ws, phone.id);
    await dispatchNext(db, phone.id);
    const verdicts = await Promise.all([
      report(phone.id, { taskId: created.id, attempt: 1, status: 'completed' }),
      report(phone.id, { taskId: created.id, attempt: 1, status: 'failed', failure: { code: 'account_blocked' } }),
      report(phone.id, { taskId: created.id, attempt: 1, status: 'completed' }),
    ]);
    expect(verdicts.filter((v) => v.verdict.kind === 'settled')).toHaveLength(1);
    const settled = await task(created.id);
    expect(['completed', 'failed']).toContain(settled.status);
    if (postgres) expect(verdicts.filter((v) => v.verdict.kind === 'ignored')).toHaveLength(2);
  });

  it('accepts a late result of an earlier attempt after a reconnect and withdraws the newer attempt', async () => {
    const { ws, phone } = await farm();
    const created = await make(ws, phone.id);
    await dispatchNext(db, phone.id);
    await ackTask(db, phone.id, created.id, 1);
    await age(db, 10_000);
    await expireLeases(db, new Outboxes());
    expect(await task(created.id)).toMatchObject({ status: 'pending', dispatchedAt: null, failureCode: 'lease_expired' });
    expect((await dispatchNext(db, phone.id))!.attempt).toBe(2);

    const late = await report(phone.id, { taskId: created.id, attempt: 1, status: 'completed' });
    expect(late.verdict.kind).toBe('settled');
    expect(await task(created.id)).toMatchObject({ status: 'completed', failureCode: null });
    expect(withdrawn(late.changes)).toEqual([expect.objectContaining({ taskId: created.id, deviceId: phone.id, attempt: 2 })]);
    expect((await report(phone.id, { taskId: created.id, attempt: 2, status: 'completed' })).verdict.kind).toBe('ignored');
  });

  it('changes nothing for a result after a cancel, and flags a late "completed"', async () => {
    const { ws, phone } = await farm();
    const created = await make(ws, phone.id);
    await dispatchNext(db, phone.id);
    const outboxes = new Outboxes();
    await db.transaction().execute((tx) => cancelTasks(tx, { taskIds: [created.id] }, { message: 'The post was deleted', cause: 'change' }, outboxes));
    const changes: Change[] = [];
    outboxes.flush((change) => changes.push(change));
    expect(withdrawn(changes)).toEqual([expect.objectContaining({ attempt: 1, code: 'cancelled', reason: 'The post was deleted' })]);
    const { verdict } = await report(phone.id, { taskId: created.id, attempt: 1, status: 'completed' });
    expect(verdict).toMatchObject({ kind: 'ignored', late: true });
    expect(await task(created.id)).toMatchObject({ status: 'cancelled', failureCode: 'cancelled', failureMessage: 'The post was deleted' });
  });

  it('retries a retryable failure after a backoff and fails it once its attempts are spent', async () => {
    quickSettings({ backoffBaseMs: 60_000 });
    const { ws, phone } = await farm();
    const created = await make(ws, phone.id);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      expect((await dispatchNext(db, phone.id))!.attempt).toBe(attempt);
      const { verdict } = await report(phone.id, { taskId: created.id, attempt, status: 'failed', failure: { code: 'network', message: 'No signal' } });
      if (attempt < 3) {
        expect(verdict.kind).toBe('retrying');
        const waiting = await task(created.id);
        expect(waiting).toMatchObject({ status: 'pending', dispatchedAt: null, failureCode: 'network', failureMessage: 'No signal' });
        expect(waiting.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 20_000);
        expect(await dispatchNext(db, phone.id)).toBeUndefined();
        await age(db, 11 * 60_000);
      } else {
        expect(verdict.kind).toBe('settled');
      }
    }
    expect(await task(created.id)).toMatchObject({ status: 'failed', attempt: 3, failureCode: 'network', failureMessage: 'No signal' });
  });

  it('tries an unreadable screen again once, then ends it; never retries an untested language or unsupported work', async () => {
    quickSettings({ backoffBaseMs: 60_000 });
    const { ws, phone } = await farm();
    const created = await make(ws, phone.id);
    expect((await dispatchNext(db, phone.id))!.attempt).toBe(1);
    const first = await report(phone.id, { taskId: created.id, attempt: 1, status: 'failed', failure: { code: 'screen_unreadable' } });
    expect(first.verdict.kind).toBe('retrying');
    await age(db, 11 * 60_000);
    expect((await dispatchNext(db, phone.id))!.attempt).toBe(2);
    const second = await report(phone.id, { taskId: created.id, attempt: 2, status: 'failed', failure: { code: 'screen_unreadable' } });
    expect(second.verdict.kind).toBe('settled');
    expect(await task(created.id)).toMatchObject({ status: 'failed', attempt: 2, failureCode: 'screen_unreadable' });

    // Another failure in between does not spend the one retry: the first unreadable screen is still tried again.
    const other = await make(ws, phone.id, { sourceKey: `run:${crypto.randomUUID()}` });
    await dispatchNext(db, phone.id);
    expect((await report(phone.id, { taskId: other.id, attempt: 1, status: 'failed', failure: { code: 'network' } })).verdict.kind).toBe('retrying');
    await age(db, 11 * 60_000);
    await dispatchNext(db, phone.id);
    expect((await report(phone.id, { taskId: other.id, attempt: 2, status: 'failed', failure: { code: 'screen_unreadable' } })).verdict.kind).toBe('retrying');

    for (const code of ['language_untested', 'unsupported'] as const) {
      const fresh = await farm();
      const run = await make(fresh.ws, fresh.phone.id);
      expect((await dispatchNext(db, fresh.phone.id))!.id).toBe(run.id);
      // Never retried, whatever the phone says.
      const { verdict } = await report(fresh.phone.id, { taskId: run.id, attempt: 1, status: 'failed', failure: { code, retryable: true } });
      expect(verdict.kind).toBe('settled');
      expect(await task(run.id)).toMatchObject({ status: 'failed', attempt: 1, failureCode: code });
    }
  });

  it('ends a lease the phone never acked, and one whose phone went silent', async () => {
    const { ws, phone } = await farm();
    const created = await make(ws, phone.id);
    await dispatchNext(db, phone.id);
    const outboxes = new Outboxes();
    await expireLeases(db, outboxes);
    expect((await task(created.id)).attempt).toBe(1);
    expect((await task(created.id)).dispatchedAt).not.toBeNull();
    await age(db, 1_000);
    await expireLeases(db, outboxes);
    expect(await task(created.id)).toMatchObject({ status: 'pending', failureCode: 'ack_timeout' });
    await dispatchNext(db, phone.id);
    await ackTask(db, phone.id, created.id, 2);
    await age(db, 1_000);
    await expireLeases(db, outboxes);
    expect(await task(created.id)).toMatchObject({ status: 'pending', failureCode: 'lease_expired', attempt: 2 });
    const attempts = await db
      .selectFrom('taskAttempts')
      .select(['attempt', 'outcome', 'failureCode'])
      .where('taskId', '=', created.id)
      .orderBy('attempt')
      .execute();
    expect(attempts).toEqual([
      { attempt: 1, outcome: 'expired', failureCode: 'ack_timeout' },
      { attempt: 2, outcome: 'expired', failureCode: 'lease_expired' },
    ]);
  });

  it('records a late result on its expired attempt, and keeps the first result a phone sent for an attempt', async () => {
    const { ws, phone } = await farm();
    const created = await make(ws, phone.id);
    await dispatchNext(db, phone.id);
    await ackTask(db, phone.id, created.id, 1);
    await age(db, 1_000);
    await expireLeases(db, new Outboxes());
    const outcomes = async () =>
      db.selectFrom('taskAttempts').select(['attempt', 'outcome', 'failureCode']).where('taskId', '=', created.id).orderBy('attempt').execute();
    expect(await outcomes()).toEqual([{ attempt: 1, outcome: 'expired', failureCode: 'lease_expired' }]);

    // The phone was offline and ran it all the same: its result settles the task and replaces "expired".
    expect((await report(phone.id, { taskId: created.id, attempt: 1, status: 'completed' })).verdict.kind).toBe('settled');
    expect(await outcomes()).toEqual([{ attempt: 1, outcome: 'completed', failureCode: null }]);
    // A second, different word on the same attempt changes nothing.
    const again = await report(phone.id, { taskId: created.id, attempt: 1, status: 'failed', failure: { code: 'network' } });
    expect(again.verdict.kind).toBe('ignored');
    expect(await outcomes()).toEqual([{ attempt: 1, outcome: 'completed', failureCode: null }]);
    expect(await task(created.id)).toMatchObject({ status: 'completed', attempt: 1 });
  });

  it.runIf(postgres)('takes a result while a person calls the task off, in either order, without a deadlock', async () => {
    const { ws, phone } = await farm();
    const created = await make(ws, phone.id);
    await dispatchNext(db, phone.id);
    await ackTask(db, phone.id, created.id, 1);
    // A person's move holds the task, as every move does first, then ends the attempt out; the phone's result comes
    // in between. Locking the attempt before the task, the result would hold what the person waits for.
    let result: ReturnType<typeof report> | undefined;
    await db.transaction().execute(async (person) => {
      await person.updateTable('tasks').set({ title: 'Publish a reel (called off)' }).where('id', '=', created.id).execute();
      result = report(phone.id, { taskId: created.id, attempt: 1, status: 'completed' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await person
        .updateTable('taskAttempts')
        .set({ outcome: 'withdrawn', endedAt: new Date() })
        .where('taskId', '=', created.id)
        .where('attempt', '=', 1)
        .execute();
    });
    expect((await result!).verdict.kind).toBe('settled');
    expect(await task(created.id)).toMatchObject({ status: 'completed', title: 'Publish a reel (called off)' });
    const attempt = await db.selectFrom('taskAttempts').select('outcome').where('taskId', '=', created.id).executeTakeFirstOrThrow();
    expect(attempt.outcome).toBe('completed');
  });

  it("settles many phones' completions together, as one by one would: tasks, attempts, posts, daily actions, announcements", async () => {
    const { ws, phone, acct } = await farm();
    const second = await device(db, ws, { name: 'Pixel 7 #02' });
    const third = await device(db, ws, { name: 'Pixel 7 #03' });
    const posts = await scheduledPosts(db, ws, acct.id, 3);
    const phones = [phone, second, third];
    const tasks: TaskRow[] = [];
    for (const [i, post] of posts.entries()) {
      tasks.push(await make(ws, phones[i]!.id, { postId: post.id, accountId: acct.id, sourceKey: `post:${post.id}:${post.scheduleVersion}` }));
    }
    // The third post was moved after its task was made: its task completes, the post stays as it is now.
    await db.updateTable('posts').set({ scheduleVersion: 1 }).where('id', '=', posts[2]!.id).execute();
    await dispatchMany(
      db,
      phones.map((one) => one.id),
    );
    await ackTask(db, phone.id, tasks[0]!.id, 1);
    const finishedAt = new Date(Date.now() - 5_000);
    const results: ResultFrom[] = [
      { deviceId: phone.id, workspaceId: ws, result: { taskId: tasks[0]!.id, attempt: 1, status: 'completed', finishedAt } },
      { deviceId: second.id, workspaceId: ws, result: { taskId: tasks[1]!.id, attempt: 1, status: 'completed', engagement: { likes: 3 } } },
      { deviceId: third.id, workspaceId: ws, result: { taskId: tasks[2]!.id, attempt: 1, status: 'completed' } },
      { deviceId: phone.id, workspaceId: ws, result: { taskId: 'not-a-task', attempt: 1, status: 'completed' } },
      { deviceId: phone.id, workspaceId: ws, result: { taskId: tasks[1]!.id, attempt: 1, status: 'completed' } },
    ];
    // The last two are not for writing together: an id that names no task, and a task named twice.
    const first = await reportAll(results);
    expect(first.verdicts.map((verdict) => verdict.kind)).toEqual(['settled', 'settled', 'settled', 'unknown', 'unknown']);
    for (const one of tasks) {
      expect(await task(one.id)).toMatchObject({ status: 'completed', progress: 100, leaseExpiresAt: null, nextAttemptAt: null, failureCode: null });
    }
    expect((await task(tasks[1]!.id)).engagement).toEqual({ likes: 3 });
    const attempts = await db.selectFrom('taskAttempts').selectAll().where('workspaceId', '=', ws).orderBy('deviceId').execute();
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['completed', 'completed', 'completed']);
    expect(attempts.find((attempt) => attempt.taskId === tasks[0]!.id)!.endedAt).toEqual(finishedAt);
    const published = await db.selectFrom('posts').select(['id', 'status', 'publishedAt']).where('accountId', '=', acct.id).execute();
    expect(published.find((post) => post.id === posts[0]!.id)).toMatchObject({ status: 'published', publishedAt: finishedAt });
    expect(published.find((post) => post.id === posts[1]!.id)!.status).toBe('published');
    expect(published.find((post) => post.id === posts[2]!.id)).toMatchObject({ status: 'scheduled', publishedAt: null });
    // Each completed post task counts a post for its account, as one by one (summed into the one row of the day).
    const daily = () => db.selectFrom('accountDailyActions').select(['posts', 'likes']).where('accountId', '=', acct.id).execute();
    expect(await daily()).toEqual([{ posts: 3, likes: 3 }]);
    const events = (name: string) =>
      first.changes.filter((change) => change.event === name).map((change) => change.payload as { id?: string; deviceId?: string });
    expect(
      events('task.updated')
        .map((task) => task.id)
        .sort(),
    ).toEqual(tasks.map((one) => one.id).sort());
    expect(
      events('post.updated')
        .map((post) => post.id)
        .sort(),
    ).toEqual([posts[0]!.id, posts[1]!.id].sort());
    expect(
      events('device.wake')
        .map((wake) => wake.deviceId)
        .sort(),
    ).toEqual(phones.map((one) => one.id).sort());

    // The same results again (a phone that did not hear the answer sends them again): nothing moves twice.
    const again = await reportAll(results.slice(0, 3));
    expect(again.verdicts.map((verdict) => verdict.kind)).toEqual(['ignored', 'ignored', 'ignored']);
    expect(await daily()).toEqual([{ posts: 3, likes: 3 }]);
    expect(again.changes).toEqual([]);
  });

  it('takes every other result in a batch one by one: failures, late results, results after a cancel', async () => {
    const { ws, phone } = await farm();
    const second = await device(db, ws, { name: 'Pixel 7 #02' });
    const third = await device(db, ws, { name: 'Pixel 7 #03' });
    // The third phone's lease ended and its task went out again on it: attempt 1's completion comes late.
    const moved = await make(ws, third.id);
    await dispatchNext(db, third.id);
    await ackTask(db, third.id, moved.id, 1);
    await age(db, 10_000);
    await expireLeases(db, new Outboxes());
    expect((await dispatchNext(db, third.id))!.attempt).toBe(2);
    const failing = await make(ws, phone.id);
    const cancelled = await make(ws, second.id);
    await dispatchMany(db, [phone.id, second.id]);
    await db.transaction().execute((tx) => cancelTasks(tx, { taskIds: [cancelled.id] }, { message: 'The post was deleted', cause: 'change' }, new Outboxes()));
    const { verdicts, changes } = await reportAll([
      { deviceId: phone.id, workspaceId: ws, result: { taskId: failing.id, attempt: 1, status: 'failed', failure: { code: 'network' } } },
      { deviceId: second.id, workspaceId: ws, result: { taskId: cancelled.id, attempt: 1, status: 'completed' } },
      { deviceId: third.id, workspaceId: ws, result: { taskId: moved.id, attempt: 1, status: 'completed' } },
    ]);
    expect(verdicts).toEqual([
      expect.objectContaining({ kind: 'retrying' }),
      expect.objectContaining({ kind: 'ignored', late: true }),
      expect.objectContaining({ kind: 'settled' }),
    ]);
    expect(await task(failing.id)).toMatchObject({ status: 'pending', failureCode: 'network', dispatchedAt: null });
    expect((await task(cancelled.id)).status).toBe('cancelled');
    expect((await task(moved.id)).status).toBe('completed');
    expect(withdrawn(changes)).toEqual([expect.objectContaining({ taskId: moved.id, deviceId: third.id, attempt: 2 })]);
  });

  it.runIf(postgres)('settles a task once when its batch of results races a cancel', async () => {
    const { ws, phone } = await farm();
    const phones = [phone, await device(db, ws, { name: 'Pixel 7 #02' }), await device(db, ws, { name: 'Pixel 7 #03' })];
    for (let round = 0; round < 5; round += 1) {
      const tasks: TaskRow[] = [];
      for (const one of phones) tasks.push(await make(ws, one.id));
      await dispatchMany(
        db,
        phones.map((one) => one.id),
      );
      const [{ verdicts }, cancelledTasks] = await Promise.all([
        reportAll(tasks.map((one, i) => ({ deviceId: phones[i]!.id, workspaceId: ws, result: { taskId: one.id, attempt: 1, status: 'completed' } }))),
        db.transaction().execute((tx) => cancelTasks(tx, { taskIds: [tasks[1]!.id] }, { message: 'Called off', cause: 'person' }, new Outboxes())),
      ]);
      const cancelledOne = cancelledTasks.length === 1;
      expect(verdicts[1]!.kind).toBe(cancelledOne ? 'ignored' : 'settled');
      expect((await task(tasks[1]!.id)).status).toBe(cancelledOne ? 'cancelled' : 'completed');
      expect([verdicts[0]!.kind, verdicts[2]!.kind]).toEqual(['settled', 'settled']);
    }
  });

  it('refuses a result for an attempt this phone was never given', async () => {
    const { ws, phone } = await farm();
    const other = await device(db, ws, { name: 'Pixel 7 #02' });
    const created = await make(ws, phone.id);
    await dispatchNext(db, phone.id);
    expect((await report(other.id, { taskId: created.id, attempt: 1, status: 'completed' })).verdict.kind).toBe('unknown');
    expect((await report(phone.id, { taskId: created.id, attempt: 7, status: 'completed' })).verdict.kind).toBe('unknown');
    expect((await task(created.id)).status).toBe('pending');
  });

  it('pauses an account the platform blocked and calls off its other automation, not its posts', async () => {
    const { ws, phone, acct } = await farm();
    const run = await make(ws, phone.id, { accountId: acct.id, sourceKey: `run:${crypto.randomUUID()}` });
    const warmup = await make(ws, phone.id, { accountId: acct.id, sourceKey: `warmup:${acct.id}:x:0` });
    const manual = await make(ws, phone.id, { accountId: acct.id, sourceKey: null });
    await dispatchNext(db, phone.id);
    const { verdict } = await report(phone.id, {
      taskId: run.id,
      attempt: 1,
      status: 'failed',
      failure: { code: 'account_blocked', message: 'Instagram asks to confirm it is you' },
    });
    expect(verdict.kind).toBe('settled');
    expect(await task(run.id)).toMatchObject({ status: 'failed', failureCode: 'account_blocked' });
    const paused = await db.selectFrom('accounts').selectAll().where('id', '=', acct.id).executeTakeFirstOrThrow();
    expect(paused).toMatchObject({ status: 'paused', pausedCode: 'account_blocked', pausedMessage: 'Instagram asks to confirm it is you' });
    expect((await task(warmup.id)).status).toBe('cancelled');
    expect((await task(manual.id)).status).toBe('pending');
    const feed = await db.selectFrom('activities').select('action').where('workspaceId', '=', ws).execute();
    expect(feed.map((a) => a.action)).toContain(
      `Automation paused for @${acct.username}: Instagram asks to confirm it is you. Resume the account once a person has checked it.`,
    );
    // What only a person can get past becomes a task on the phone for a person, never dispatched to its agent.
    const asked = await db.selectFrom('tasks').selectAll().where('workspaceId', '=', ws).where('type', '=', 'monitor').execute();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      title: `Check @${acct.username}: the platform blocked or challenged it on ${phone.name}`,
      priority: 'high',
      status: 'pending',
      deviceId: phone.id,
      accountId: acct.id,
      sourceKey: null,
    });
    expect(asked[0]!.description).toContain('Instagram asks to confirm it is you');
    // A second failure of the paused account asks nothing more.
    expect(await dispatchNext(db, phone.id)).toBeUndefined();
  });

  it('asks the phone’s person to sign the right account in, or to unlock the phone, pausing nothing and retrying nothing', async () => {
    const { ws, phone, acct } = await farm();
    for (const [code, title] of [
      ['wrong_account', `Sign in as @${acct.username} on ${phone.name}`],
      ['device_locked', `Unlock the phone on ${phone.name}`],
    ] as const) {
      const run = await make(ws, phone.id, { accountId: acct.id, sourceKey: `run:${crypto.randomUUID()}` });
      await dispatchNext(db, phone.id);
      await report(phone.id, { taskId: run.id, attempt: 1, status: 'failed', failure: { code } });
      expect(await task(run.id)).toMatchObject({ status: 'failed', failureCode: code });
      const asked = await db.selectFrom('tasks').selectAll().where('workspaceId', '=', ws).where('title', '=', title).execute();
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ type: 'monitor', priority: 'high', status: 'pending', deviceId: phone.id, accountId: acct.id, sourceKey: null });
    }
    expect(await db.selectFrom('accounts').select('status').where('id', '=', acct.id).executeTakeFirstOrThrow()).not.toMatchObject({ status: 'paused' });
  });

  it('takes an attempt back from its phone without spending a retry, and lets a person retry a failed task', async () => {
    const { ws, phone } = await farm();
    const created = await make(ws, phone.id);
    const leased = (await dispatchNext(db, phone.id))!;
    const changes: Change[] = [];
    const outboxes = new Outboxes();
    const back = await db.transaction().execute((tx) => withdrawTask(tx, leased, 'A person took the task over', outboxes.for(ws)));
    outboxes.flush((change) => changes.push(change));
    expect(back).toMatchObject({ status: 'pending', dispatchedAt: null, maxAttempts: 4 });
    expect(withdrawn(changes)).toEqual([expect.objectContaining({ attempt: 1, reason: 'A person took the task over' })]);

    await dispatchNext(db, phone.id);
    await report(phone.id, { taskId: created.id, attempt: 2, status: 'failed', failure: { code: 'login_required' } });
    const failed = await task(created.id);
    expect(failed).toMatchObject({ status: 'failed', failureCode: 'login_required', failureMessage: 'The app asks to log in again' });
    const retried = await db.transaction().execute((tx) => retryTask(tx, failed, new Outboxes()));
    expect(retried).toMatchObject({ status: 'pending', failureCode: null, maxAttempts: 5, dispatchedAt: null });
    expect((await dispatchNext(db, phone.id))!.attempt).toBe(3);
  });
});
