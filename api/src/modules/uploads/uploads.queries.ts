/** Stored objects in SQL: reservations, and the one upload a reservation takes. */
import { sql } from 'kysely';
import type { Db, Tx } from '../../shared/types.ts';
import { objectPath } from '../../storage/storage.ts';

/** Unused reservations older than this have expired with their signed URL, and no longer count. */
export const RESERVATION_MS = 15 * 60_000;

/**
 * A person's unused reservations still in time, counted under a lock on the person's row: parallel reservations
 * by one person are counted one after the other, so the cap holds exactly. Answers the count and the oldest.
 */
export async function lockPendingReservations(tx: Tx, userId: string, now = new Date()) {
  await tx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
  return tx
    .selectFrom('storedObjects')
    .select([sql<number>`count(*)::int`.as('count'), sql<Date | null>`min(created_at)`.as('oldest')])
    .where('createdById', '=', userId)
    .where('uploadedAt', 'is', null)
    .where('createdAt', '>', new Date(now.getTime() - RESERVATION_MS))
    .executeTakeFirstOrThrow();
}

export async function insertReservation(tx: Tx, values: { key: string; workspaceId: string; createdById: string }): Promise<void> {
  await tx.insertInto('storedObjects').values(values).execute();
}

/**
 * Takes the reservation for this upload: one guarded update, so of parallel uploads to one signed URL exactly one
 * gets it (the others wait on its row lock, then find it taken). Answers whether this call took it.
 */
export async function claimReservation(tx: Tx, key: string, file: { contentType: string; size: number }): Promise<boolean> {
  const row = await tx
    .updateTable('storedObjects')
    .set({ uploadedAt: new Date(), contentType: file.contentType, size: file.size })
    .where('key', '=', key)
    .where('uploadedAt', 'is', null)
    .returning('key')
    .executeTakeFirst();
  return row !== undefined;
}

/** The workspace a reservation belongs to, if it exists. */
export async function reservationWorkspace(db: Db, key: string): Promise<string | undefined> {
  return (await db.selectFrom('storedObjects').select('workspaceId').where('key', '=', key).executeTakeFirst())?.workspaceId;
}

export async function reservationExists(db: Db, key: string): Promise<boolean> {
  return (await db.selectFrom('storedObjects').select('key').where('key', '=', key).executeTakeFirst()) !== undefined;
}

/** An uploaded file of the workspace; a wall link reaches screenshots only. */
/**
 * A stored file of the workspace, uploaded. For a VA (`viewer`), `hidden` says whether it is a frame of a phone's
 * screen they may not see (screens.rules.ts): a dry-run step's or a saved capture's of a phone not assigned to them,
 * or a failure's of such a phone whose post they may not see either, or a post handed to another VA to comment on.
 */
export function findUploadedObject(db: Db, key: string, scope: { workspaceId: string; screenshotsOnly: boolean; viewer?: string | undefined }) {
  const ws = scope.workspaceId;
  const va = scope.viewer ?? null;
  let query = db
    .selectFrom('storedObjects')
    .select(['key', 'contentType'])
    .select(
      va === null
        ? sql<boolean>`false`.as('hidden')
        : sql<boolean>`(
            exists (
              select 1 from recipe_trace_steps s
              join recipe_dry_runs r on r.id = s.dry_run_id
              left join devices d on d.id = r.device_id
              where s.frame_key = ${key} and s.workspace_id = ${ws} and d.assigned_to_id is distinct from ${va}::uuid
            )
            or exists (
              select 1 from ui_captures c
              left join devices d on d.id = c.device_id
              where c.frame_key = ${key} and c.workspace_id = ${ws} and d.assigned_to_id is distinct from ${va}::uuid
            )
            or exists (
              select 1 from task_failure_traces f
              join tasks t on t.id = f.task_id
              left join devices d on d.id = f.device_id
              where f.frame_key = ${key} and f.workspace_id = ${ws} and d.assigned_to_id is distinct from ${va}::uuid
                and not exists (
                  select 1 from posts p
                  join accounts a on a.id = p.account_id
                  join devices pd on pd.id = a.device_id
                  where p.id = t.post_id and p.workspace_id = ${ws} and pd.assigned_to_id = ${va}::uuid
                )
            )
            or exists (
              select 1 from tasks h
              left join devices d on d.id = h.device_id
              where h.workspace_id = ${ws} and h.hand_over -> 'frame' ->> 'url' = ${objectPath(key)}
                and h.assigned_to_id is distinct from ${va}::uuid and d.assigned_to_id is distinct from ${va}::uuid
            )
          )`.as('hidden'),
    )
    .where('key', '=', key)
    .where('uploadedAt', 'is not', null)
    .where('workspaceId', '=', ws);
  if (scope.screenshotsOnly) query = query.where((eb) => eb.exists(eb.selectFrom('screenshots').select('id').where('objectKey', '=', key)));
  return query.executeTakeFirst();
}

/** Bytes of the workspace's stored files (uploaded ones; an object's reservation holds none yet), the bytes held for uploads being read (storage_reservations) and of its saved UI trees (captures, failures' and dry runs' traces) and recorded steps' screenshots. */
export async function storedBytes(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('storedObjects')
    .select(sql<number>`coalesce(sum(size), 0)::float8`.as('bytes'))
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const trees = await db
    .selectFrom('uiCaptures')
    .select(sql<number>`coalesce(sum(tree_bytes), 0)::float8`.as('bytes'))
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const failures = await db
    .selectFrom('taskFailureTraces')
    .select(sql<number>`coalesce(sum(tree_bytes), 0)::float8`.as('bytes'))
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const traces = await db
    .selectFrom('recipeTraceSteps')
    .select(sql<number>`coalesce(sum(tree_bytes), 0)::float8`.as('bytes'))
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const shots = await db
    .selectFrom('workspaceRecipes')
    .select(sql<number>`coalesce(sum(step_shots_bytes), 0)::float8`.as('bytes'))
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const held = await db
    .selectFrom('storageReservations')
    .select(sql<number>`coalesce(sum(bytes), 0)::float8`.as('bytes'))
    .where('workspaceId', '=', workspaceId)
    .where('expiresAt', '>', new Date())
    .executeTakeFirstOrThrow();
  return Number(row.bytes) + Number(trees.bytes) + Number(failures.bytes) + Number(traces.bytes) + Number(shots.bytes) + Number(held.bytes);
}

/** How long an upload's reservation holds its bytes when nobody releases it (a crash): then it stops counting. */
export const STORAGE_RESERVATION_MS = 60 * 60_000;

/** Holds `bytes` of the workspace's quota for an upload; call after lockQuota said they fit, in its transaction. */
export async function insertStorageReservation(tx: Tx, workspaceId: string, bytes: number): Promise<string> {
  const row = await tx
    .insertInto('storageReservations')
    .values({ workspaceId, bytes, expiresAt: new Date(Date.now() + STORAGE_RESERVATION_MS) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The bytes a reservation holds (0 once released or expired), for resizing it under the quota's lock. */
export async function reservedBytes(tx: Tx, id: string): Promise<number> {
  const row = await tx
    .selectFrom('storageReservations')
    .select(sql<number>`bytes::float8`.as('bytes'))
    .where('id', '=', id)
    .where('expiresAt', '>', new Date())
    .executeTakeFirst();
  return row ? Number(row.bytes) : 0;
}

export async function setReservedBytes(tx: Tx, id: string, bytes: number): Promise<void> {
  await tx.updateTable('storageReservations').set({ bytes }).where('id', '=', id).execute();
}

export async function deleteStorageReservation(db: Db, id: string): Promise<void> {
  await db.deleteFrom('storageReservations').where('id', '=', id).execute();
}

/**
 * Whether `size` more bytes fit the workspace's quota, counted under a lock on the workspace's row: files recorded
 * at once for one workspace (on any instance) are counted one after the other, so two cannot both pass the edge.
 * Call in the transaction that records the file.
 */
export async function lockQuota(tx: Db, workspaceId: string, size: number, quotaBytes: number): Promise<{ fits: boolean; used: number }> {
  await tx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().execute();
  const used = await storedBytes(tx, workspaceId);
  return { fits: used + size <= quotaBytes, used };
}
