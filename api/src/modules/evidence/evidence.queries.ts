/** A failed run's evidence: its row per attempt, read for a task, a post or a phone, and the phones to re-record on. */
import { sql } from 'kysely';
import type { Db, Tx } from '../../shared/types.ts';

export interface NewFailureTrace {
  taskId: string;
  attempt: number;
  workspaceId: string;
  deviceId: string;
  recipeId: string | null;
  recipeVersion: number | null;
  package: string | null;
  appVersion: string | null;
  seq: number;
  stepPath: string;
  label: string;
  do: string;
  detail: string | null;
  selector: string | null;
  matched: string | null;
  point: string | null;
  ms: number;
  frameKey: string | null;
  frameSize: number | null;
  frameWidth: number | null;
  frameHeight: number | null;
  tree: string | null;
  treeBytes: number;
  dropped: string | null;
}

/** Whether this attempt's trace is kept already (a result sent again keeps the first). */
export async function traceExists(db: Db, taskId: string, attempt: number): Promise<boolean> {
  const row = await db.selectFrom('taskFailureTraces').select('taskId').where('taskId', '=', taskId).where('attempt', '=', attempt).executeTakeFirst();
  return row !== undefined;
}

/** The task of the workspace that attempt was given to this phone for, if it was. */
export async function attemptOfDevice(db: Db, workspaceId: string, taskId: string, attempt: number, deviceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('taskAttempts')
    .select('taskId')
    .where('workspaceId', '=', workspaceId)
    .where('taskId', '=', taskId)
    .where('attempt', '=', attempt)
    .where('deviceId', '=', deviceId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertFrameObject(tx: Tx, values: { key: string; workspaceId: string; contentType: string; size: number }): Promise<void> {
  await tx
    .insertInto('storedObjects')
    .values({ ...values, uploadedAt: new Date() })
    .execute();
}

/** Inserts the trace; answers false when the attempt's trace was there already (nothing changes). */
export async function insertTrace(tx: Tx, values: NewFailureTrace): Promise<boolean> {
  const row = await tx
    .insertInto('taskFailureTraces')
    .values(values)
    .onConflict((oc) => oc.columns(['taskId', 'attempt']).doNothing())
    .returning('taskId')
    .executeTakeFirst();
  return row !== undefined;
}

function evidenceQuery(db: Db, workspaceId: string) {
  return db
    .selectFrom('taskFailureTraces as f')
    .innerJoin('tasks as t', 't.id', 'f.taskId')
    .leftJoin('taskAttempts as a', (join) => join.onRef('a.taskId', '=', 'f.taskId').onRef('a.attempt', '=', 'f.attempt'))
    .leftJoin('devices as d', 'd.id', 'f.deviceId')
    .select([
      'f.taskId',
      'f.attempt',
      't.title as taskTitle',
      'a.failureCode',
      'a.failureMessage',
      'f.seq',
      'f.stepPath',
      'f.do',
      'f.label',
      'f.detail',
      'f.ms',
      'f.selector',
      'f.matched',
      'f.point',
      'f.frameKey',
      'f.frameWidth',
      'f.frameHeight',
      sql<boolean>`f.tree is not null`.as('hasTree'),
      'f.dropped',
      'f.package',
      'f.appVersion',
      'f.recipeId',
      'f.recipeVersion',
      'f.deviceId',
      'd.name as deviceName',
      // Who may see it: whoever may control its phone, or see its post (screens.rules.ts).
      'd.assignedToId as deviceAssignedToId',
      't.postId',
      'f.createdAt',
    ])
    .where('f.workspaceId', '=', workspaceId)
    .where('t.workspaceId', '=', workspaceId);
}

export type EvidenceRow = NonNullable<Awaited<ReturnType<typeof findTaskEvidence>>>;

/** The latest failed attempt's evidence of a task of the workspace. */
export function findTaskEvidence(db: Db, workspaceId: string, taskId: string) {
  return evidenceQuery(db, workspaceId).where('f.taskId', '=', taskId).orderBy('f.attempt', 'desc').limit(1).executeTakeFirst();
}

/** The latest evidence of a post's publishing tasks (a post sent out again has a task per schedule). */
export function findPostEvidence(db: Db, workspaceId: string, postId: string) {
  return evidenceQuery(db, workspaceId).where('t.postId', '=', postId).orderBy('f.createdAt', 'desc').orderBy('f.attempt', 'desc').limit(1).executeTakeFirst();
}

/** The elements of the screen the latest failed attempt of the task failed on. */
export async function findTaskEvidenceTree(db: Db, workspaceId: string, taskId: string): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('taskFailureTraces')
    .select('tree')
    .where('workspaceId', '=', workspaceId)
    .where('taskId', '=', taskId)
    .orderBy('attempt', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? row.tree : undefined;
}

/**
 * Phones of the workspace online now whose agent reported `pkg` at `version`; a VA's, the ones assigned to them only.
 * Answers at most 50, by name.
 */
export function phonesWithApp(db: Db, workspaceId: string, pkg: string, version: string, assignedToId: string | null) {
  let query = db
    .selectFrom('devices as d')
    .innerJoin('deviceSoftware as s', 's.deviceId', 'd.id')
    .select(['d.id', 'd.name', 'd.status'])
    .where('d.workspaceId', '=', workspaceId)
    .where('d.status', '!=', 'offline')
    .where(sql<boolean>`s.apps @> ${JSON.stringify([{ package: pkg, version }])}::jsonb`);
  if (assignedToId) query = query.where('d.assignedToId', '=', assignedToId);
  return query.orderBy('d.name').orderBy('d.id').limit(50).execute();
}
