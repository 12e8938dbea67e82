/**
 * `posts.stuck`: a scheduled post due for a while and still not on a phone says why on the post itself (no agent,
 * the phone offline, the account paused, a retry waiting, the scheduler not running), so nobody has to guess.
 */
import { sql } from 'kysely';
import { serialize } from '@farm/sql';
import type { JobDeps } from '../jobs.types.ts';
import { Outboxes } from '../outbox.ts';
import { postSourceKeySql } from '../posts/source-key.ts';
import { waitingReason } from '../posts/waiting.ts';
import { automation } from '../settings.ts';

const BATCH = 500;

export async function processStuckPosts(_data: unknown, deps: JobDeps): Promise<{ reported: number }> {
  const outboxes = new Outboxes();
  const reported = await deps.db.transaction().execute(async (tx) => {
    const stuck = await tx
      .selectFrom('posts as p')
      .innerJoin('accounts as a', 'a.id', 'p.accountId')
      .leftJoin('devices as d', 'd.id', 'a.deviceId')
      .leftJoin('tasks as t', (join) => join.on('t.sourceKey', '=', postSourceKeySql('p.id', 'p.scheduleVersion')))
      .select([
        'p.id',
        'p.waitingCode',
        'p.waitingMessage',
        'a.status as accountStatus',
        'd.name as deviceName',
        'd.status as deviceStatus',
        'd.lastSeenAt',
        't.id as taskId',
        't.status as taskStatus',
        't.dispatchedAt',
        't.nextAttemptAt',
        't.failureCode',
        sql<string | null>`t.work->>'kind'`.as('workKind'),
      ])
      .where('p.status', '=', 'scheduled')
      .where('p.scheduledAt', '<', sql<Date>`now() - (${automation().stuckPostMs} * interval '1 millisecond')`)
      .orderBy('p.scheduledAt')
      .limit(BATCH)
      .execute();
    let count = 0;
    for (const post of stuck) {
      const task = post.taskId
        ? {
            status: post.taskStatus!,
            dispatchedAt: post.dispatchedAt,
            nextAttemptAt: post.nextAttemptAt,
            failureCode: post.failureCode,
            byHand: post.workKind === 'manual',
          }
        : undefined;
      const reason =
        waitingReason({ deviceName: post.deviceName, deviceStatus: post.deviceStatus, lastSeenAt: post.lastSeenAt, accountStatus: post.accountStatus, task }) ??
        (task ? undefined : { code: null, message: 'The scheduler has not picked it up yet: check that the workers are running' });
      const code = reason?.code ?? null;
      const message = reason?.message ?? null;
      if (code === post.waitingCode && message === post.waitingMessage) continue;
      const updated = await tx
        .updateTable('posts')
        .set({ waitingCode: code, waitingMessage: message })
        .where('id', '=', post.id)
        .where('status', '=', 'scheduled')
        .returningAll()
        .executeTakeFirst();
      if (!updated) continue;
      outboxes.for(updated.workspaceId).add('post.updated', serialize(updated));
      count += 1;
    }
    return count;
  });
  outboxes.flush(deps.announce);
  return { reported };
}
