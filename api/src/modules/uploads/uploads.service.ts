import { randomUUID } from 'node:crypto';
import { fieldLabel, messages, uploadLimits } from '@farm/contracts';
import { AppError, badRequest, conflict, notFound } from '../../errors.ts';
import { isUuid } from '@farm/sql';
import type { Actor, Db } from '../../shared/types.ts';
import { objectPath, type Storage } from '../../storage/storage.ts';
import { claimReservation, insertReservation, lockPendingReservations, RESERVATION_MS, reservationExists } from './uploads.queries.ts';

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

/** Stores an image sent inline as a data URL and answers its path. */
export async function storeDataUrl(db: Db, storage: Storage, actor: Actor, dataUrl: string, field: string): Promise<string> {
  const match = /^data:(image\/(?:png|jpeg|gif|webp|avif|bmp));base64,([A-Za-z0-9+/=\s]+)$/.exec(dataUrl);
  if (!match?.[1] || !match[2]) throw badRequest(field, `${fieldLabel(field)} must be an image data URL`);
  const bytes = Buffer.from(match[2], 'base64');
  if (bytes.length > uploadLimits.maxFileSize) throw badRequest(field, `${fieldLabel(field)} exceeds maximum allowed size of 10 MB`);
  const id = randomUUID();
  await storage.write(id, bytes);
  await db
    .insertInto('storedObjects')
    .values({ key: id, workspaceId: actor.workspaceId, createdById: actor.userId, contentType: match[1], size: bytes.length, uploadedAt: new Date() })
    .execute();
  return objectPath(id);
}
