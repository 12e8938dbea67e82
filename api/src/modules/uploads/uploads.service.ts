import { randomUUID } from 'node:crypto';
import { fieldLabel, messages, sizeText, uploadLimits } from '@farm/contracts';
import { AppError, badRequest, conflict, notFound } from '../../errors.ts';
import { isUuid } from '@farm/sql';
import type { Actor, Db } from '../../shared/types.ts';
import { objectPath, type Storage } from '../../storage/storage.ts';
import { automation } from '@farm/workers';
import { write, type WriteContext } from '../../events/write.ts';
import {
  claimReservation,
  deleteStorageReservation,
  insertStorageReservation,
  reservedBytes,
  setReservedBytes,
  insertReservation,
  lockPendingReservations,
  lockQuota,
  RESERVATION_MS,
  reservationExists,
  reservationWorkspace,
} from './uploads.queries.ts';

/** Raster images only: an SVG served from this origin could run script. */
export const SAFE_IMAGE = /^image\/(png|jpeg|gif|webp|avif|bmp)$/;

/** The sentence of a full workspace storage. */
export function storageFullMessage(used: number, size: number, quota: number): string {
  return `This workspace's storage is full: ${sizeText(used)} of ${sizeText(quota)} used, and this file needs ${sizeText(size)} more. Delete files (screenshots age out with retention) or raise WORKSPACE_STORAGE_QUOTA_BYTES, then try again.`;
}

/**
 * Checks that `size` more bytes fit the workspace's storage quota, in the transaction that records the file (under a
 * lock on the workspace, so racing uploads are counted one after the other); over it, a 413 with a sentence.
 */
export async function assertQuota(tx: Db, workspaceId: string, size: number): Promise<void> {
  const quota = automation().storageQuotaBytes;
  const { fits, used } = await lockQuota(tx, workspaceId, size, quota);
  if (!fits) throw new AppError(413, storageFullMessage(used, size, quota));
}

/**
 * Holds `bytes` of the workspace's quota for an upload before a byte of it is written, under the quota's lock: two
 * uploads at once are counted one after the other, so they cannot both pass the edge. Over it, a 413 with a sentence.
 * Answers the reservation, released with releaseStorage() whatever happens.
 */
export async function reserveStorage(ctx: WriteContext, workspaceId: string, bytes: number): Promise<string> {
  return write(ctx, workspaceId, async (tx) => {
    await assertQuota(tx, workspaceId, bytes);
    return insertStorageReservation(tx, workspaceId, bytes);
  });
}

/** Makes a reservation hold `bytes` instead (what the upload turned out to need), refusing with a 413 when they do not fit. */
export async function resizeStorage(ctx: WriteContext, workspaceId: string, id: string, bytes: number): Promise<void> {
  await write(ctx, workspaceId, async (tx) => {
    const quota = automation().storageQuotaBytes;
    const { used } = await lockQuota(tx, workspaceId, 0, quota);
    const others = used - (await reservedBytes(tx, id));
    if (others + bytes > quota) throw new AppError(413, storageFullMessage(others, bytes, quota));
    await setReservedBytes(tx, id, bytes);
  });
}

/** Gives a reservation's bytes back (the upload was refused or is stored and counted on its own). */
export async function releaseStorage(ctx: WriteContext, workspaceId: string, id: string): Promise<void> {
  await write(ctx, workspaceId, (tx) => deleteStorageReservation(tx, id));
}

/**
 * Reserves an object for the caller's workspace; the bytes come later through the signed URL. A person holds at
 * most `pendingMax` unused reservations at once (each lapses with its URL after 15 minutes).
 */
export async function reserveObject(db: Db, storage: Storage, actor: Actor, pendingMax: number): Promise<{ id: string; url: string }> {
  const id = randomUUID();
  await db.transaction().execute(async (tx) => {
    const pending = await lockPendingReservations(tx, actor.userId);
    if (pending.count >= pendingMax) {
      const freeAt = (pending.oldest ? new Date(pending.oldest).getTime() : Date.now()) + RESERVATION_MS;
      throw new AppError(429, messages.tooManyPendingUploads, undefined, { 'retry-after': String(Math.max(1, Math.ceil((freeAt - Date.now()) / 1000))) });
    }
    await insertReservation(tx, { key: id, workspaceId: actor.workspaceId, createdById: actor.userId });
  });
  return { id, url: storage.signUpload(id) };
}

/** Stores the bytes of a reserved object: once per reservation, however many uploads race for it. */
export async function storeUpload(db: Db, storage: Storage, id: string, file: { bytes: Buffer; contentType: string }): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const workspaceId = await reservationWorkspace(tx, id);
    if (!workspaceId) throw notFound();
    // Counted before the claim: a refusal leaves the link unused, to try again once room is made.
    await assertQuota(tx, workspaceId, file.bytes.length);
    if (!(await claimReservation(tx, id, { contentType: file.contentType, size: file.bytes.length }))) {
      throw (await reservationExists(tx, id)) ? conflict(messages.uploadLinkUsed) : notFound();
    }
    // Written while the claim is held: if writing fails, the claim is rolled back and the link works again.
    await storage.write(id, file.bytes);
  });
}

/** The object id behind a URL or path this server gave out, when it belongs to the workspace and holds bytes. */
export async function resolveStoredObject(db: Db, workspaceId: string, url: string, field: string): Promise<string> {
  const match = /\/api\/objects\/([0-9a-f-]{36})/i.exec(url);
  const id = match?.[1];
  if (id && isUuid(id)) {
    const row = await db
      .selectFrom('storedObjects')
      .select('key')
      .where('key', '=', id)
      .where('workspaceId', '=', workspaceId)
      .where('uploadedAt', 'is not', null)
      .executeTakeFirst();
    if (row) return objectPath(row.key);
  }
  throw badRequest(field, `${fieldLabel(field)} must be an image uploaded to this workspace`);
}

/**
 * The object id behind an address this server gives out for a stored file: `/api/objects/<id>`, alone or after the
 * server's own scheme and host (any query, such as an upload signature, is ignored). Anything else is null.
 */
export function storedObjectId(url: string): string | null {
  const match = /^(?:https?:\/\/[^/?#\s]+)?\/api\/objects\/([0-9a-f-]{36})(?:\?[^#\s]*)?$/i.exec(url.trim());
  const id = match?.[1]?.toLowerCase();
  return id && isUuid(id) ? id : null;
}

/** Of these object ids, the ones uploaded to this workspace (holding bytes). */
export async function uploadedObjectsOf(db: Db, workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('storedObjects')
    .select('key')
    .where('key', 'in', [...new Set(ids)])
    .where('workspaceId', '=', workspaceId)
    .where('uploadedAt', 'is not', null)
    .execute();
  return new Set(rows.map((row) => row.key));
}

/** The sentence for a post media address that is not one of the workspace's stored files. */
export function outsideMediaMessage(label: string, url: string): string {
  const shown = url.length > 80 ? `${url.slice(0, 77)}...` : url;
  return `${label} must be images uploaded to this workspace; "${shown}" is not one (upload the file instead of linking it)`;
}

/**
 * A post's media as saved: each address must name a file uploaded to this workspace, and is kept as the server's
 * own path. An outside address (which the farm PC would otherwise fetch) is refused with a sentence naming the field.
 */
export async function resolveMediaUrls(db: Db, workspaceId: string, urls: readonly string[], field = 'mediaUrls'): Promise<string[]> {
  const ids = urls.map(storedObjectId);
  const known = await uploadedObjectsOf(
    db,
    workspaceId,
    ids.filter((id): id is string => id !== null),
  );
  return urls.map((url, index) => {
    const id = ids[index];
    if (!id || !known.has(id)) throw badRequest(field, outsideMediaMessage(fieldLabel(field), url));
    return objectPath(id);
  });
}

/**
 * Stores an image sent inline as a data URL (a profile picture) and answers its path: the same limits as an upload
 * (raster image types, the 10 MB cap, the workspace's storage quota). Call in the transaction that uses the path.
 */
export async function storeDataUrl(db: Db, storage: Storage, actor: Actor, dataUrl: string, field: string): Promise<string> {
  const match = /^data:([\w.+/-]+);base64,([A-Za-z0-9+/=\s]+)$/.exec(dataUrl);
  if (!match?.[1] || !match[2] || !SAFE_IMAGE.test(match[1])) throw badRequest(field, `${fieldLabel(field)} must be an image data URL`);
  const bytes = Buffer.from(match[2], 'base64');
  if (bytes.length === 0) throw badRequest(field, `${fieldLabel(field)} is empty`);
  if (bytes.length > uploadLimits.maxFileSize)
    throw new AppError(413, `${fieldLabel(field)} exceeds maximum allowed size of 10 MB`, [
      { field, message: `${fieldLabel(field)} exceeds maximum allowed size of 10 MB` },
    ]);
  await assertQuota(db, actor.workspaceId, bytes.length);
  const id = randomUUID();
  await storage.write(id, bytes);
  await db
    .insertInto('storedObjects')
    .values({ key: id, workspaceId: actor.workspaceId, createdById: actor.userId, contentType: match[1], size: bytes.length, uploadedAt: new Date() })
    .execute();
  return objectPath(id);
}
