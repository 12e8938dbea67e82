/** Requests to reset an operator's password, waiting for a second operator's approval (0037), in SQL. */
import { sql } from 'kysely';
import type { Db, Tx } from '../shared/types.ts';

/** Open requests of the workspace not yet expired, oldest first, with both people's names. */
export function listOpenResetRequests(db: Db | Tx, workspaceId: string, now = new Date()) {
  return db
    .selectFrom('passwordResetRequests as r')
    .innerJoin('users as u', 'u.id', 'r.userId')
    .innerJoin('users as by', 'by.id', 'r.requestedById')
    .select(['r.id', 'r.userId', 'u.name as userName', 'r.requestedById', 'by.name as requestedByName', 'r.createdAt', 'r.expiresAt'])
    .where('r.workspaceId', '=', workspaceId)
    .where('r.approvedAt', 'is', null)
    .where('r.expiresAt', '>', now)
    .orderBy('r.createdAt')
    .execute();
}

/**
 * A new request for the person, unless one is open: an expired one is cleared first. Answers the request's id, or
 * undefined when another open one exists (the unique index decides between two at once).
 */
export async function insertResetRequest(
  tx: Tx,
  values: { workspaceId: string; userId: string; requestedById: string; expiresAt: Date },
  now = new Date(),
): Promise<string | undefined> {
  await tx.deleteFrom('passwordResetRequests').where('userId', '=', values.userId).where('approvedAt', 'is', null).where('expiresAt', '<=', now).execute();
  const row = await tx
    .insertInto('passwordResetRequests')
    .values(values)
    .onConflict((oc) => oc.column('userId').where('approvedAt', 'is', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** The open request, locked for its approval. */
export function lockResetRequest(tx: Tx, workspaceId: string, id: string) {
  return tx
    .selectFrom('passwordResetRequests')
    .selectAll()
    .where('id', '=', id)
    .where('workspaceId', '=', workspaceId)
    .where('approvedAt', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

export async function approveResetRequest(tx: Tx, id: string, approvedById: string): Promise<void> {
  await tx.updateTable('passwordResetRequests').set({ approvedById, approvedAt: sql<Date>`now()` }).where('id', '=', id).execute();
}
