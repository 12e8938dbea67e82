/**
 * The one way a request writes: `write` opens the transaction, runs it again from the start when PostgreSQL ends it
 * to break a deadlock or for a serialization failure (see `retryingTransaction`), gives the work an outbox for the
 * request's workspace, and announces what the outbox gathered only once the transaction has committed: a rolled-back
 * write announces nothing, and a retried one announces once.
 *
 *   const row = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
 *     …
 *     await outbox.record({ userId: actor.userId, action: 'Post scheduled' }, { action: 'post.scheduled', … });
 *     return row;
 *   });
 *
 * The activity feed's writer is reached through the outbox (`record`), or, for the few writes outside a request's
 * workspace (a signup), through `recordActivity` exported here: the one door to it for the api. Writes that span
 * workspaces go through `writeAcross`, and the phones' one-statement writes through `writeStatement`.
 */
import { type AuditFact, type NewActivity, Outboxes, recordActivity, retryingTransaction } from '@farm/workers';
import { Outbox } from './outbox.ts';
import type { ChangeFeed } from './changes.ts';
import type { Db, Tx } from '../shared/types.ts';

export { recordActivities, recordActivity, recordAudit, type AuditFact, type NewActivity } from '@farm/workers';

/** What a write needs from the app: the database and the feed it announces on. */
export interface WriteContext {
  db: Db;
  changes: Pick<ChangeFeed, 'publish'>;
}

/** A fact of the request's workspace for the activity feed: its workspace is the outbox's. */
export type Fact = Omit<NewActivity, 'workspaceId'>;

/**
 * The outbox of one write: changes of its workspace, announced after commit, and the activity feed written in the
 * write's transaction.
 */
export class WriteOutbox extends Outbox {
  /** The transaction of the attempt running now (a retried write opens a new one). */
  private tx: Tx | undefined;

  /** Set by `write` at each attempt. */
  use(tx: Tx): void {
    this.tx = tx;
  }

  /** Writes one fact to the feed (and the audit log when `audit` is given) in this write; announced after commit. */
  record(fact: Fact, audit?: AuditFact) {
    if (!this.tx) throw new Error('An outbox records only inside its write');
    return recordActivity(this.tx, { ...fact, workspaceId: this.workspaceId }, audit, this);
  }
}

/** Runs `work` in one transaction of `workspaceId`'s write, retried on a deadlock, and announces its changes after commit. */
export async function write<T>(ctx: WriteContext, workspaceId: string, work: (tx: Tx, outbox: WriteOutbox) => Promise<T>): Promise<T> {
  const outbox = new WriteOutbox(workspaceId);
  const result = await retryingTransaction(ctx.db, outbox).execute((tx) => {
    outbox.use(tx);
    return work(tx, outbox);
  });
  outbox.flush(ctx.changes);
  return result;
}

/**
 * As `writeAcross`, for the phones' hot path: a write whose statement is a transaction of its own (a batch of acks, a
 * progress report, a batch of leases, each lease the lifecycle's guarded statement) needs none around it, whose BEGIN
 * and COMMIT would double the round trips of every report; what it changed is announced once it has run.
 */
export async function writeStatement<T>(ctx: WriteContext, work: (db: Db, outboxes: Outboxes) => Promise<T>): Promise<T> {
  const outboxes = new Outboxes();
  const result = await work(ctx.db, outboxes);
  outboxes.flush(ctx.changes);
  return result;
}

/** As `write`, for a write that spans workspaces (a phone host's batch of results): one outbox per workspace. */
export async function writeAcross<T>(ctx: WriteContext, work: (tx: Tx, outboxes: Outboxes) => Promise<T>): Promise<T> {
  const outboxes = new Outboxes();
  const result = await retryingTransaction(ctx.db, outboxes).execute((tx) => work(tx, outboxes));
  outboxes.flush(ctx.changes);
  return result;
}
