/**
 * A transaction that PostgreSQL ends to break a deadlock (two transactions each holding a row the other waits for:
 * a person editing a post while its phone reports the post's task, say) or for a serialization failure is run again
 * from the start, a few times, after a short random pause. What the rolled-back attempt gathered in the outboxes
 * given is taken back first, so nothing is announced twice. Anything else its function does besides writing through
 * `tx` and those outboxes must bear being done again.
 *
 *   await retryingTransaction(db, outbox).execute(async (tx) => …)   // as db.transaction().execute(…)
 */
import type { Db, Tx } from './db.ts';
import type { Outbox, Outboxes } from './outbox.ts';

/** PostgreSQL's codes for a transaction ended to let others go on: deadlock detected, serialization failure. */
const RETRYABLE = new Set(['40P01', '40001']);
export const TRANSACTION_TRIES = 4;

export function isRetryableConflict(error: unknown): boolean {
  return typeof error === 'object' && error !== null && RETRYABLE.has(String((error as { code?: unknown }).code));
}

export function retryingTransaction(db: Db, ...outboxes: (Outbox | Outboxes)[]) {
  return {
    async execute<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        const rewinds = outboxes.map((outbox) => outbox.mark());
        try {
          return await db.transaction().execute(work);
        } catch (error) {
          if (!isRetryableConflict(error) || attempt >= TRANSACTION_TRIES) throw error;
          for (const rewind of rewinds) rewind();
          await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
        }
      }
    },
  };
}
