/**
 * A short-lived cache of read answers per workspace. Any change announced for a workspace drops its entries
 * at once; the TTL bounds staleness for changes made by other processes (other API instances, workers):
 * past it, the last answer is served once more while a single refresh runs.
 * Concurrent misses of one key share a single computation, so a burst of identical reads costs one query.
 */
import type { FastifyReply } from 'fastify';
import { z, type ZodType } from 'zod';
import { NEXT_CURSOR_HEADER, type Change } from '@farm/contracts';

/** What the cache follows: the change feed (events/changes.ts), of which it needs only the subscription. */
interface Announcements {
  subscribe(listener: (change: Change) => void): () => void;
}

interface Entry {
  version: number;
  expires: number;
  value: Promise<unknown>;
  refreshing?: boolean;
}

export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly versions = new Map<string, number>();

  constructor(
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  /** Drops the workspace's entries whenever a change of it is announced. */
  follow(feed: Announcements): () => void {
    return feed.subscribe((change) => this.invalidate(change.workspaceId));
  }

  invalidate(workspaceId: string): void {
    this.versions.set(workspaceId, (this.versions.get(workspaceId) ?? 0) + 1);
  }

  get<T>(workspaceId: string, key: string, compute: () => Promise<T>, now = Date.now()): Promise<T> {
    if (this.ttlMs <= 0) return compute();
    const version = this.versions.get(workspaceId) ?? 0;
    const cacheKey = `${workspaceId}\u0000${key}`;
    const hit = this.entries.get(cacheKey);
    if (hit && hit.version === version) {
      if (hit.expires > now) return hit.value as Promise<T>;
      // Nothing changed here, only time passed: answer the last value while one refresh runs behind it.
      if (!hit.refreshing) {
        hit.refreshing = true;
        const fresh = compute();
        fresh.then(
          () => {
            if (this.entries.get(cacheKey) === hit) this.entries.set(cacheKey, { version, expires: Date.now() + this.ttlMs, value: fresh });
          },
          () => {
            hit.refreshing = false;
          },
        );
      }
      return hit.value as Promise<T>;
    }
    const value = compute();
    this.entries.set(cacheKey, { version, expires: now + this.ttlMs, value });
    // A failed read is not remembered.
    value.catch(() => {
      if (this.entries.get(cacheKey)?.value === value) this.entries.delete(cacheKey);
    });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return value;
  }
}

/**
 * Answers a read from the cache as ready JSON: on a miss the rows are loaded, paged, mapped and encoded
 * through the response schema once; every hit sends that text as it is, with the same next-page cursor.
 */
export async function sendCachedJson<T>(
  reply: FastifyReply,
  cache: ReadCache,
  workspaceId: string,
  key: string,
  schema: ZodType<T>,
  load: () => Promise<{ body: T; next?: string | undefined }>,
): Promise<FastifyReply> {
  return sendCachedText(reply, cache, workspaceId, key, async () => {
    const { body, next } = await load();
    return { json: JSON.stringify(z.encode(schema, body)), next };
  });
}

/** The same for an answer the database wrote as JSON text already (see json-rows.ts). */
export async function sendCachedText(
  reply: FastifyReply,
  cache: ReadCache,
  workspaceId: string,
  key: string,
  load: () => Promise<{ json: string; next?: string | undefined }>,
): Promise<FastifyReply> {
  // Kept as bytes, so a hit neither measures nor encodes the text again.
  const answer = await cache.get(workspaceId, key, async () => {
    const { json, next } = await load();
    return { body: Buffer.from(json), next };
  });
  if (answer.next) void reply.header(NEXT_CURSOR_HEADER, answer.next);
  return reply.type('application/json; charset=utf-8').send(answer.body);
}
