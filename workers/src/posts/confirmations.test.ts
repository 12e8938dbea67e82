/**
 * The phone's newer results from the phone to the task, the post and the account, and the person's answer to a post
 * the phone could not confirm: PGlite always, PostgreSQL (where two answers really race) when DATABASE_URL is set.
 */
import { describe, expect, it } from 'vitest';
import type { FailureCode } from '@farm/sql';
import type { Db } from '../db.ts';
import { Outboxes } from '../outbox.ts';
import type { Change } from '../changes.ts';
import { account, device, reportResult, scheduledPostTask, useTestDatabase, va, workspace } from '../../test/farm.ts';
import { cancelTasks, dispatchNext, retryTask, type PhoneResult } from '../tasks/lifecycle.ts';
import { answerUnconfirmed, lockQuestion, type UnconfirmedAnswer } from './confirmations.ts';

let db: Db;
const postgres = process.env.TEST_DB === 'postgres';
useTestDatabase((opened) => (db = opened), { quick: true });

/** A farm with a scheduled post whose publishing task is out on its phone (attempt 1). */
async function postOut(options: { withVa?: boolean } = {}) {
  const ws = await workspace(db);
  const person = options.withVa === false ? undefined : await va(db, ws);
  const phone = await device(db, ws);
  if (person) await db.updateTable('devices').set({ assignedToId: person.id }).where('id', '=', phone.id).execute();
  const acct = await account(db, ws, phone.id);
  const { post, task } = await scheduledPostTask(db, ws, phone.id, acct);
  const leased = await dispatchNext(db, phone.id);
  expect(leased?.id).toBe(task.id);
  return { ws, person, phone, acct, post, task };
}

const report = async (deviceId: string, result: PhoneResult) => (await reportResult(db, deviceId, result)).verdict;

const rowOf = {
  task: (id: string) => db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
  post: (id: string) => db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
  account: (id: string) => db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
};

const questionsOf = (ws: string) => db.selectFrom('tasks').selectAll().where('workspaceId', '=', ws).where('unconfirmedTaskId', 'is not', null).execute();

/** Answers as a person of that workspace (made on first use, named Vera). */
async function answer(ws: string, questionId: string, given: UnconfirmedAnswer) {
  const member = await db.selectFrom('workspaceMembers').select('userId').where('workspaceId', '=', ws).executeTakeFirst();
  const userId = member?.userId ?? (await va(db, ws)).id;
  const changes: Change[] = [];
  const outboxes = new Outboxes();
  const verdict = await db.transaction().execute(async (tx) => {
    const question = await lockQuestion(tx, ws, questionId);
    if (!question) return { kind: 'not-found' as const };
    return answerUnconfirmed(tx, question, given, { userId, name: 'Vera' }, outboxes);
  });
  outboxes.flush((change) => changes.push(change));
  return { verdict, changes };
}

describe('the phone’s newer results, end to end', () => {
  const newer: FailureCode[] = ['post_unconfirmed', 'app_changed', 'app_version_untested', 'wrong_account', 'device_locked'];

  it.each(newer)('%s: the task fails at once (even when the phone says to retry), the post fails, the account is not paused', async (code) => {
    const { ws, phone, acct, post, task } = await postOut();
    const verdict = await report(phone.id, { taskId: task.id, attempt: 1, status: 'failed', failure: { code, message: 'Said by the phone', retryable: true } });
    expect(verdict.kind).toBe('settled');
    expect(await rowOf.task(task.id)).toMatchObject({
      status: 'failed',
      failureCode: code,
      failureMessage: 'Said by the phone',
      attempt: 1,
      nextAttemptAt: null,
    });
    expect(await rowOf.post(post.id)).toMatchObject({
      status: 'failed',
      failureCode: code,
      failureMessage: code === 'post_unconfirmed' ? 'Not confirmed' : 'Said by the phone',
    });
    expect(await rowOf.account(acct.id)).toMatchObject({ status: 'active', pausedCode: null });
    // Nothing goes back out to the phone on its own.
    expect(await dispatchNext(db, phone.id)).toBeUndefined();
    const people = await db.selectFrom('tasks').selectAll().where('workspaceId', '=', ws).where('id', '!=', task.id).execute();
    const asked = { post_unconfirmed: 1, wrong_account: 1, device_locked: 1, app_changed: 0, app_version_untested: 0 }[code as string];
    expect(people).toHaveLength(asked ?? 0);
  });

  it('app_version_untested and app_changed show their label when the phone gives no words', async () => {
    for (const code of ['app_version_untested', 'app_changed'] as const) {
      const { phone, post, task } = await postOut();
      await report(phone.id, { taskId: task.id, attempt: 1, status: 'failed', failure: { code } });
      const label =
        code === 'app_changed' ? 'The app changed: the recipe no longer finds its screens' : "The app's version is not one the recipe was tested on";
      expect(await rowOf.task(task.id)).toMatchObject({ status: 'failed', failureMessage: label });
      expect(await rowOf.post(post.id)).toMatchObject({ status: 'failed', failureMessage: label });
    }
  });

  it('post_unconfirmed asks the phone’s VA whether the post went up, or leaves it unassigned when the phone has no VA', async () => {
    const { ws, person, phone, acct, task } = await postOut();
    await report(phone.id, {
      taskId: task.id,
      attempt: 1,
      status: 'failed',
      failure: { code: 'post_unconfirmed', message: 'No "posted" notice in 3 minutes' },
    });
    const [question] = await questionsOf(ws);
    expect(question).toMatchObject({
      title: `Check whether the post of @${acct.username} went up on ${phone.name}`,
      type: 'post',
      priority: 'high',
      status: 'pending',
      deviceId: phone.id,
      assignedToId: person!.id,
      accountId: acct.id,
      postId: null,
      sourceKey: null,
      unconfirmedTaskId: task.id,
    });
    expect(question!.description).toContain('No "posted" notice in 3 minutes');
    expect(question!.description).toContain('"It is up"');

    const alone = await postOut({ withVa: false });
    await report(alone.phone.id, { taskId: alone.task.id, attempt: 1, status: 'failed', failure: { code: 'post_unconfirmed' } });
    expect((await questionsOf(alone.ws))[0]).toMatchObject({ assignedToId: null, unconfirmedTaskId: alone.task.id });
  });
});

describe('answering whether an unconfirmed post went up', () => {
  async function unconfirmed(options: { withVa?: boolean } = {}) {
    const farm = await postOut(options);
    await report(farm.phone.id, { taskId: farm.task.id, attempt: 1, status: 'failed', failure: { code: 'post_unconfirmed' } });
    const [question] = await questionsOf(farm.ws);
    return { ...farm, question: question! };
  }

  it('"It is up" publishes the post at the time given, once; a second answer changes nothing', async () => {
    const { ws, post, task, question } = await unconfirmed();
    // A moment ago, but not before this minute began (times are checked against the attempt's minute).
    const at = new Date(Math.max(Date.now() - 1000, Math.floor(Date.now() / 60_000) * 60_000));
    const { verdict, changes } = await answer(ws, question.id, { answer: 'up', publishedAt: at });
    expect(verdict.kind).toBe('answered');
    expect(await rowOf.post(post.id)).toMatchObject({ status: 'published', publishedAt: at, failureCode: null, failureMessage: null });
    expect(await rowOf.task(question.id)).toMatchObject({ status: 'completed' });
    // The work was done: its task completes (nothing to retry), its attempt keeps what the phone said, and the post
    // counts in the account's day.
    expect(await rowOf.task(task.id)).toMatchObject({ status: 'completed', failureCode: null });
    const attempt = await db.selectFrom('taskAttempts').selectAll().where('taskId', '=', task.id).executeTakeFirstOrThrow();
    expect(attempt).toMatchObject({ outcome: 'failed', failureCode: 'post_unconfirmed' });
    const day = await db.selectFrom('accountDailyActions').select('posts').where('accountId', '=', post.accountId).executeTakeFirstOrThrow();
    expect(day.posts).toBe(1);
    expect(changes.map((change) => change.event)).toEqual(expect.arrayContaining(['task.updated', 'post.updated', 'activity.created']));
    const feed = await db.selectFrom('activities').select('action').where('workspaceId', '=', ws).execute();
    expect(feed.map((row) => row.action)).toContain(
      `Vera confirmed the post of @${(await rowOf.account(post.accountId)).username} is up (the phone could not confirm it)`,
    );

    const again = await answer(ws, question.id, { answer: 'not' });
    expect(again.verdict.kind).toBe('settled');
    expect((await rowOf.post(post.id)).status).toBe('published');
    expect((await rowOf.task(task.id)).status).toBe('completed');
  });

  it('"It is up" without a time publishes it now; a time before the attempt began is refused', async () => {
    const { ws, post, question } = await unconfirmed();
    const { verdict } = await answer(ws, question.id, { answer: 'up', publishedAt: new Date(Date.now() - 3_600_000) });
    expect(verdict).toMatchObject({ kind: 'too-early', earliest: expect.any(Date) });
    expect((await rowOf.post(post.id)).status).toBe('failed');
    expect((await rowOf.task(question.id)).status).toBe('pending');
    const before = Date.now();
    expect((await answer(ws, question.id, { answer: 'up' })).verdict.kind).toBe('answered');
    const published = await rowOf.post(post.id);
    expect(published.status).toBe('published');
    expect(published.publishedAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('"It is not" sends the post out again through its own task, its attempts counting on', async () => {
    const { ws, phone, post, task, question } = await unconfirmed();
    const { verdict } = await answer(ws, question.id, { answer: 'not' });
    expect(verdict.kind).toBe('answered');
    expect(await rowOf.task(question.id)).toMatchObject({ status: 'completed' });
    expect(await rowOf.task(task.id)).toMatchObject({ status: 'pending', failureCode: null, attempt: 1 });
    expect(await rowOf.post(post.id)).toMatchObject({ status: 'scheduled', failureCode: null, failureMessage: null });
    const leased = await dispatchNext(db, phone.id);
    expect(leased).toMatchObject({ id: task.id, attempt: 2 });
    await report(phone.id, { taskId: task.id, attempt: 2, status: 'completed' });
    expect((await rowOf.post(post.id)).status).toBe('published');
    const feed = await db.selectFrom('activities').select('action').where('workspaceId', '=', ws).execute();
    expect(feed.map((row) => row.action)).toContain(
      `Vera found the post of @${(await rowOf.account(post.accountId)).username} is not up: the phone publishes it again (attempt 2)`,
    );
  });

  it('answers nothing about a post that moved on, nor a task that asks nothing, nor another workspace’s question', async () => {
    const { ws, post, question, task } = await unconfirmed();
    await db.updateTable('posts').set({ status: 'draft', failureCode: null, failureMessage: null }).where('id', '=', post.id).execute();
    expect((await answer(ws, question.id, { answer: 'not' })).verdict).toMatchObject({ kind: 'moved-on', postStatus: 'draft' });
    expect((await rowOf.task(task.id)).status).toBe('failed');
    expect((await answer(ws, task.id, { answer: 'not' })).verdict.kind).toBe('not-a-question');
    const other = await workspace(db, 'Other');
    expect((await answer(other, question.id, { answer: 'up' })).verdict.kind).toBe('not-found');
  });

  it('closes the question when the post is tried again another way, or called off', async () => {
    const retried = await unconfirmed();
    const failed = await rowOf.task(retried.task.id);
    await db.transaction().execute((tx) => retryTask(tx, failed, new Outboxes()));
    expect(await rowOf.task(retried.question.id)).toMatchObject({ status: 'cancelled', failureMessage: 'The post is being published again' });
    expect((await answer(retried.ws, retried.question.id, { answer: 'up' })).verdict.kind).toBe('settled');

    const deleted = await unconfirmed();
    await db.transaction().execute((tx) => cancelTasks(tx, { postId: deleted.post.id }, { message: 'The post was deleted', cause: 'change' }, new Outboxes()));
    expect(await rowOf.task(deleted.question.id)).toMatchObject({ status: 'cancelled', failureMessage: 'The post was deleted' });
  });

  it.runIf(postgres)('of two answers racing, exactly one wins', async () => {
    for (let round = 0; round < 4; round += 1) {
      const { ws, post, question } = await unconfirmed();
      const [first, second] = await Promise.all([answer(ws, question.id, { answer: 'up' }), answer(ws, question.id, { answer: 'not' })]);
      const kinds = [first.verdict.kind, second.verdict.kind].sort();
      expect(kinds).toEqual(['answered', 'settled']);
      const status = (await rowOf.post(post.id)).status;
      expect(status).toBe(first.verdict.kind === 'answered' ? 'published' : 'scheduled');
    }
  });
});
