/**
 * The agent link's SQL: a device's agent credential (issued, replaced, revoked), what its agent sent (screenshots)
 * and was handed (task attempts), and the media a post of its task names.
 */
import { sql } from 'kysely';
import { DRY_RUN_UNDER_WAY } from '@farm/workers';
import { hashToken } from '../../auth/auth.queries.ts';
import type { Db, Tx } from '../../shared/types.ts';
import { newToken } from './fleet.enrollment.queries.ts';

/** Gives the device a new credential (the old one stops working); answers the token, shown once. */
export async function setDeviceCredential(db: Db, workspaceId: string, deviceId: string): Promise<{ token: string; createdAt: Date }> {
  const token = newToken('dev');
  const row = await db
    .insertInto('deviceCredentials')
    .values({ deviceId, workspaceId, tokenHash: hashToken(token) })
    .onConflict((oc) => oc.column('deviceId').doUpdateSet({ tokenHash: hashToken(token), createdAt: sql<Date>`now()`, lastUsedAt: null }))
    .returning('createdAt')
    .executeTakeFirstOrThrow();
  return { token, createdAt: row.createdAt };
}

export function revokeDeviceCredential(tx: Tx, workspaceId: string, deviceId: string) {
  return tx.deleteFrom('deviceCredentials').where('deviceId', '=', deviceId).where('workspaceId', '=', workspaceId).executeTakeFirst();
}

/** The device's latest screenshots, newest first; the caller has found the device in its workspace. */
export function listScreenshots(db: Db, deviceId: string, limit: number) {
  return db
    .selectFrom('screenshots')
    .select(['id', 'deviceId', 'sessionId', 'objectKey', 'capturedAt'])
    .where('deviceId', '=', deviceId)
    .orderBy('capturedAt', 'desc')
    .limit(limit)
    .execute();
}

/** The attempts handed to a device, newest first, with their task's title. */
export function deviceHistory(db: Db, workspaceId: string, deviceId: string, limit: number) {
  return db
    .selectFrom('taskAttempts as a')
    .innerJoin('tasks as t', 't.id', 'a.taskId')
    .leftJoin('taskFailureTraces as f', (join) => join.onRef('f.taskId', '=', 'a.taskId').onRef('f.attempt', '=', 'a.attempt'))
    .select(['a.taskId', 't.title', 't.type', 'a.attempt', 'a.dispatchedAt', 'a.ackedAt', 'a.endedAt', 'a.outcome', 'a.failureCode', 'a.failureMessage'])
    .select(sql<boolean>`f.task_id is not null`.as('evidence'))
    .where('a.workspaceId', '=', workspaceId)
    .where('a.deviceId', '=', deviceId)
    .orderBy('a.dispatchedAt', 'desc')
    .orderBy('a.attempt', 'desc')
    .limit(limit)
    .execute();
}

/** A stored, uploaded object of the workspace, only when a post of a task on this phone names it at `path`, or a dry run under way on it picked it. */
export function findAgentMedia(db: Db, workspaceId: string, deviceId: string, key: string, path: string) {
  return db
    .selectFrom('storedObjects as o')
    .select(['o.key', 'o.contentType'])
    .where('o.key', '=', key)
    .where('o.workspaceId', '=', workspaceId)
    .where('o.uploadedAt', 'is not', null)
    .where(({ exists, or, selectFrom }) =>
      or([
        exists(
          selectFrom('tasks as t')
            .innerJoin('posts as p', 'p.id', 't.postId')
            .select('t.id')
            .where('t.deviceId', '=', deviceId)
            .where(sql<boolean>`${path} = any(p.media_urls)`),
        ),
        // The uploads a person picked for a dry run under way on this phone.
        exists(
          selectFrom('recipeDryRuns as r')
            .select('r.id')
            .where('r.deviceId', '=', deviceId)
            .where('r.status', 'in', DRY_RUN_UNDER_WAY)
            .where(sql<boolean>`${key} = any(r.media_keys)`),
        ),
      ]),
    )
    .executeTakeFirst();
}
