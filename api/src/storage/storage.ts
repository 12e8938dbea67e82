/**
 * Files on local disk under DATA_DIR/objects, written through short-lived signed upload URLs
 * and read back by signed-in members of the owning workspace.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyReply } from 'fastify';
import { objectsDir, storedFiles } from '@farm/workers';
import type { Config } from '../config.ts';

export interface Storage {
  /** A URL the browser may PUT the bytes of object `id` to, valid for a few minutes. */
  signUpload(id: string, now?: number): string;
  verifyUpload(id: string, expires: string, signature: string, now?: number): boolean;
  write(id: string, bytes: Buffer): Promise<void>;
  /** Takes a file on this machine as object `id` (moved when it can be, else copied): large files never pass through memory. */
  writeFrom(id: string, localPath: string): Promise<void>;
  read(id: string): Promise<Buffer>;
  /** The file as a stream, for large ones (APKs) that should not be held in memory. */
  stream(id: string): NodeJS.ReadableStream;
  /** Removes files (retention); one already gone is not an error. */
  remove(ids: readonly string[]): Promise<void>;
}

const UPLOAD_TTL_MS = 15 * 60_000;

/** Answers a stored file as its recorded type, never sniffed by the browser. */
export async function sendStoredFile(
  reply: FastifyReply,
  storage: Storage,
  file: { key: string; contentType: string | null },
  cacheControl: string,
): Promise<FastifyReply> {
  return reply
    .type(file.contentType ?? 'application/octet-stream')
    .header('cache-control', cacheControl)
    .header('x-content-type-options', 'nosniff')
    .send(await storage.read(file.key));
}

export function objectPath(id: string): string {
  return `/api/objects/${id}`;
}

export function createStorage(config: Pick<Config, 'dataDir' | 'sessionSecret'>): Storage {
  const dir = objectsDir(config.dataDir);
  const files = storedFiles(config.dataDir);
  const sign = (id: string, expires: string) => createHmac('sha256', config.sessionSecret).update(`PUT ${id} ${expires}`).digest('base64url');
  return {
    signUpload(id, now = Date.now()) {
      const expires = String(now + UPLOAD_TTL_MS);
      return `${objectPath(id)}?expires=${expires}&signature=${sign(id, expires)}`;
    },
    verifyUpload(id, expires, signature, now = Date.now()) {
      if (!/^\d+$/.test(expires) || Number(expires) < now) return false;
      const expected = Buffer.from(sign(id, expires));
      const given = Buffer.from(signature);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
    async write(id, bytes) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, id), bytes);
    },
    async writeFrom(id, localPath) {
      if (!/^[\w-]+$/.test(id)) throw new Error('not a stored file key');
      await mkdir(dir, { recursive: true });
      const partial = join(dir, `${id}.${process.pid}.part`);
      try {
        await rename(localPath, partial);
      } catch {
        // Another file system (the temporary folder on its own disk): copied instead.
        await copyFile(localPath, partial);
      }
      try {
        await rename(partial, join(dir, id));
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
    },
    read(id) {
      return readFile(join(dir, id));
    },
    stream(id) {
      return createReadStream(join(dir, id));
    },
    remove: (ids) => files.remove(ids),
  };
}
