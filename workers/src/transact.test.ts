import { describe, expect, it } from 'vitest';
import type { Db, Tx } from './db.ts';
import { Outbox, Outboxes } from './outbox.ts';
import { retryingTransaction, TRANSACTION_TRIES } from './transact.ts';

/** A database whose transactions fail with the given errors, one per attempt, then commit. */
function failing(...errors: unknown[]): { db: Db; attempts: () => number } {
  let attempts = 0;
  const db = {
    transaction: () => ({
      execute: async <T>(work: (tx: Tx) => Promise<T>): Promise<T> => {
        attempts++;
        const answer = await work({} as Tx);
        const error = errors.shift();
        if (error) throw error;
        return answer;
      },
    }),
  } as unknown as Db;
  return { db, attempts: () => attempts };
}

const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
const events = (changes: { event: string }[]) => changes.map((change) => change.event);

describe('a transaction run again after a deadlock', () => {
  it('runs again, and announces only what the attempt that committed gathered', async () => {
    const { db, attempts } = failing(deadlock, Object.assign(new Error('could not serialize'), { code: '40001' }));
    const outbox = new Outbox('ws-1');
    outbox.add('activity.created', { id: 'before' } as never);
    const answer = await retryingTransaction(db, outbox).execute(async () => {
      outbox.add('post.updated', { id: 'post-1' } as never);
      return 'done';
    });
    expect(answer).toBe('done');
    expect(attempts()).toBe(3);
    const published: { event: string }[] = [];
    outbox.flush((change) => published.push(change));
    expect(events(published)).toEqual(['activity.created', 'post.updated']);
  });

  it("takes back the attempt's changes from every workspace's outbox, those it opened included", async () => {
    const { db } = failing(deadlock);
    const outboxes = new Outboxes();
    outboxes.for('ws-1').add('activity.created', { id: 'kept' } as never);
    let round = 0;
    await retryingTransaction(db, outboxes).execute(async () => {
      round++;
      outboxes.for('ws-1').add('task.updated', { id: `task-${round}` } as never);
      outboxes.for('ws-2').add('task.updated', { id: `task-${round}` } as never);
    });
    const published: { workspaceId: string; payload: { id: string } }[] = [];
    outboxes.flush((change) => published.push(change as never));
    expect(published.map((change) => [change.workspaceId, change.payload.id])).toEqual([
      ['ws-1', 'kept'],
      ['ws-1', 'task-2'],
      ['ws-2', 'task-2'],
    ]);
  });

  it('gives up after a few tries, and never retries any other error', async () => {
    const stuck = failing(...Array.from({ length: TRANSACTION_TRIES }, () => deadlock));
    await expect(retryingTransaction(stuck.db).execute(async () => 1)).rejects.toBe(deadlock);
    expect(stuck.attempts()).toBe(TRANSACTION_TRIES);

    const refused = Object.assign(new Error('duplicate key'), { code: '23505' });
    const once = failing(refused);
    await expect(retryingTransaction(once.db).execute(async () => 1)).rejects.toBe(refused);
    expect(once.attempts()).toBe(1);
  });
});
