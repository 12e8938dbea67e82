/**
 * A person's answer to "did the post go up?", the question a phone's `post_unconfirmed` leaves for its VA
 * (`tasks/effects.ts`). "It is up" publishes the post at the time the person gives (or now) and completes its task;
 * "It is not" sends it out again through the publishing task's own retry, so its attempts go on counting. The question is settled by the
 * answer, once: of two answers racing, the second finds it settled and changes nothing.
 */
import type { PostRow, TaskRow } from '@farm/sql';
import { serialize } from '@farm/sql';
import { recordActivity } from '../activities.ts';
import type { Tx } from '../db.ts';
import type { Outboxes } from '../outbox.ts';
import { completeFailedTask, retryTask, settleTask } from '../tasks/lifecycle.ts';

export type UnconfirmedAnswer = { answer: 'up'; publishedAt?: Date | undefined } | { answer: 'not' };

/** Who answers, for the activity feed. */
export interface Answerer {
  userId: string;
  name: string;
}

/** What became of an answer. */
export type AnswerVerdict =
  | { kind: 'answered'; question: TaskRow; post: PostRow | undefined; publishTask: TaskRow | undefined }
  /** No such task in the workspace. */
  | { kind: 'not-found' }
  /** The task asks nothing about a post. */
  | { kind: 'not-a-question' }
  /** Someone answered it (or it was settled some other way) first. */
  | { kind: 'settled'; question: TaskRow }
  /** The post moved on since the phone reported (edited, rescheduled, deleted, published): nothing to decide. */
  | { kind: 'moved-on'; question: TaskRow; postStatus: string | null }
  /** The time given lies before the attempt that published it began. */
  | { kind: 'too-early'; question: TaskRow; earliest: Date };

/** The question task, locked: who may answer is the caller's to check (its assignee, or an operator). */
export function lockQuestion(tx: Tx, workspaceId: string, id: string): Promise<TaskRow | undefined> {
  return tx.selectFrom('tasks').selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId).forUpdate().executeTakeFirst();
}

/**
 * Answers a locked question task (see `lockQuestion`). The caller checks that the time given is not in the future;
 * this checks it is not before the publishing attempt began.
 */
export async function answerUnconfirmed(tx: Tx, question: TaskRow, given: UnconfirmedAnswer, by: Answerer, outboxes: Outboxes): Promise<AnswerVerdict> {
  if (!question.unconfirmedTaskId) return { kind: 'not-a-question' };
  if (question.status === 'completed' || question.status === 'failed' || question.status === 'cancelled') return { kind: 'settled', question };
  const publishTask = await tx
    .selectFrom('tasks')
    .selectAll()
    .where('id', '=', question.unconfirmedTaskId)
    .where('workspaceId', '=', question.workspaceId)
    .forUpdate()
    .executeTakeFirst();
  const post = publishTask?.postId
    ? await tx
        .selectFrom('posts')
        .selectAll()
        .where('id', '=', publishTask.postId)
        .where('workspaceId', '=', question.workspaceId)
        .forUpdate()
        .executeTakeFirst()
    : undefined;
  const stillUnconfirmed =
    publishTask?.status === 'failed' && publishTask.failureCode === 'post_unconfirmed' && post?.status === 'failed' && post.failureCode === 'post_unconfirmed';
  if (!publishTask || !post || !stillUnconfirmed) return { kind: 'moved-on', question, postStatus: post?.status ?? null };
  const account = await tx.selectFrom('accounts').select(['username', 'platform']).where('id', '=', post.accountId).executeTakeFirst();
  const who = account ? `@${account.username}` : 'its account';
  const outbox = outboxes.for(question.workspaceId);

  if (given.answer === 'up') {
    const attempt = await tx
      .selectFrom('taskAttempts')
      .select('dispatchedAt')
      .where('taskId', '=', publishTask.id)
      .where('attempt', '=', publishTask.attempt)
      .executeTakeFirst();
    const earliest = attempt?.dispatchedAt ?? publishTask.dispatchedAt ?? publishTask.createdAt;
    const at = given.publishedAt ?? new Date();
    // The attempt's start is stored to the millisecond; a time typed to the minute may fall just before it.
    if (at.getTime() < Math.floor(earliest.getTime() / 60_000) * 60_000) return { kind: 'too-early', question, earliest };
    const settled = await settleTask(tx, question, 'completed', { cause: 'person' }, outboxes);
    if (!settled) return { kind: 'settled', question };
    const published = await tx
      .updateTable('posts')
      .set({ status: 'published', publishedAt: at, failureCode: null, failureMessage: null, waitingCode: null, waitingMessage: null })
      .where('id', '=', post.id)
      .where('status', '=', 'failed')
      .returningAll()
      .executeTakeFirstOrThrow();
    outbox.add('post.updated', serialize(published));
    // The work was done after all: its task completes, and the post counts in the account's actions of the day.
    const done = await completeFailedTask(tx, publishTask, at, outboxes);
    await recordActivity(
      tx,
      {
        workspaceId: question.workspaceId,
        userId: by.userId,
        action: `${by.name} confirmed the post of ${who} is up (the phone could not confirm it)`,
        deviceId: publishTask.deviceId,
        type: 'success',
      },
      { action: 'post.confirmed', entityType: 'post', entityId: post.id, data: { taskId: publishTask.id, publishedAt: at.toISOString() } },
      outbox,
    );
    return { kind: 'answered', question: settled, post: published, publishTask: done ?? publishTask };
  }

  const settled = await settleTask(tx, question, 'completed', { cause: 'person' }, outboxes);
  if (!settled) return { kind: 'settled', question };
  // The publishing task's own retry: its attempts go on from where they were, and its post is scheduled again.
  const again = await retryTask(tx, publishTask, outboxes);
  const scheduled = await tx.selectFrom('posts').selectAll().where('id', '=', post.id).executeTakeFirst();
  await recordActivity(
    tx,
    {
      workspaceId: question.workspaceId,
      userId: by.userId,
      action: `${by.name} found the post of ${who} is not up: the phone publishes it again (attempt ${publishTask.attempt + 1})`,
      deviceId: publishTask.deviceId,
      type: 'warning',
    },
    { action: 'post.unconfirmed-retried', entityType: 'post', entityId: post.id, data: { taskId: publishTask.id } },
    outbox,
  );
  return { kind: 'answered', question: settled, post: scheduled, publishTask: again };
}
