import { randomUUID } from 'node:crypto';
import { uploadLimits } from '../../contracts/index.ts';
import { badRequest } from '../../errors.ts';
import { isUuid } from '../../shared/paging.ts';
import type { Actor, Db } from '../../shared/types.ts';
import { objectPath, type Storage } from '../../storage/storage.ts';

/** Reserves an object for the caller's workspace; the bytes come later through the signed URL. */
export async function reserveObject(db: Db, storage: Storage, actor: Actor): Promise<{ id: string; url: string }> {
  const id = randomUUID();
  await db.insertInto('storedObjects').values({ key: id, workspaceId: actor.workspaceId, createdById: actor.userId }).execute();
  return { id, url: storage.signUpload(id) };
}

/** The object id behind a URL or path this server gave out, when it belongs to the workspace and holds bytes. */
export async function resolveStoredObject(db: Db, workspaceId: string, url: string, field: string): Promise<string> {
  const match = /\/api\/objects\/([0-9a-f-]{36})/i.exec(url);
  const id = match?.[1];
  if (id && isUuid(id)) {
    const row = await db.selectFrom('storedObjects').select('key').where('key', '=', id).where('workspaceId', '=', workspaceId).where('uploadedAt', 'is not', null).executeTakeFirst();
    if (row) return objectPath(row.key);
  }
  throw badRequest(field, `${field}: is not an uploaded image of this workspace`);
}

/** Stores an image sent inline as a data URL and answers its path. */
export async function storeDataUrl(db: Db, storage: Storage, actor: Actor, dataUrl: string, field: string): Promise<string> {
  const match = /^data:(image\/(?:png|jpeg|gif|webp|avif|bmp));base64,([A-Za-z0-9+/=\s]+)$/.exec(dataUrl);
  if (!match?.[1] || !match[2]) throw badRequest(field, `${field}: must be an image data URL`);
  const bytes = Buffer.from(match[2], 'base64');
  if (bytes.length > uploadLimits.maxFileSize) throw badRequest(field, `${field} exceeds maximum allowed size of 10 MB`);
  const id = randomUUID();
  await storage.write(id, bytes);
  await db
    .insertInto('storedObjects')
    .values({ key: id, workspaceId: actor.workspaceId, createdById: actor.userId, contentType: match[1], size: bytes.length, uploadedAt: new Date() })
    .execute();
  return objectPath(id);
}
