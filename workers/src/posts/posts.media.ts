/**
 * `posts.media`: posts saved before a post's media had to be the workspace's own files may still name outside
 * addresses, which the farm PC would fetch. Each such post is taken in once: every outside address is fetched by the
 * server under the same address checks as webhooks (every resolved address public unless ALERTS_ALLOW_PRIVATE, the
 * connection pinned to the checked address, no redirects), the body capped at the upload limit while it streams, the
 * type a raster image; each file is stored as the workspace's object (within its storage quota) and the post is
 * rewritten to the objects' paths. Where any address fails, the post keeps its media and says why (`media_problem`):
 * it needs new media, and the farm host refuses the outside address anyway.
 *
 * Idempotent and safe across workers: the post is rewritten under its row lock only if it is still as it was read,
 * and once done it no longer matches; two workers racing fetch twice at worst, and the loser's files are removed.
 * It runs at start and then on its schedule, so posts restored from an old backup are taken in too.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { uploadLimits } from '@farm/contracts';
import { serialize } from '@farm/sql';
import type { Db } from '../db.ts';
import type { JobDeps } from '../jobs.types.ts';
import { outboundFailureText, sendOutbound, type OutboundPolicy } from '../net/outbound.ts';
import { Outboxes } from '../outbox.ts';
import { automation } from '../settings.ts';

/** The types a post's media may be stored as: raster images, as uploads (an SVG served from the console could run script). */
const SAFE_IMAGE = /^image\/(png|jpeg|gif|webp|avif|bmp)$/;
const OBJECT_PATH = /^\/api\/objects\/([0-9a-f-]{36})$/;
/** The server's own address for a file, in any form a post may hold it (an absolute URL of an older console). */
const OWN_OBJECT = /^(?:https?:\/\/[^/?#\s]+)?\/api\/objects\/([0-9a-f-]{36})(?:\?[^#\s]*)?$/i;
const FETCH_TIMEOUT_MS = 30_000;
/** Posts looked at in one run; the rest wait for the next. */
const RUN_LIMIT = 200;

/** A post whose media names anything but an uploaded file of its own workspace, and has not been marked yet. */
const needsWork = sql<boolean>`p.media_problem IS NULL AND EXISTS (
  SELECT 1 FROM unnest(p.media_urls) AS u(url)
  WHERE NOT EXISTS (
    SELECT 1 FROM stored_objects o
    WHERE o.workspace_id = p.workspace_id AND o.uploaded_at IS NOT NULL AND '/api/objects/' || o.key = u.url
  )
)`;

export interface MediaReport {
  /** Posts rewritten to the workspace's own files. */
  stored: number;
  /** Posts marked as needing new media. */
  marked: number;
}

type Fetched = { ok: true; bytes: Buffer; contentType: string } | { ok: false; reason: string };

/** Fetches one outside address for a post, as a webhook is sent. */
export async function fetchMedia(url: string, policy: OutboundPolicy): Promise<Fetched> {
  const answer = await sendOutbound(
    url,
    { method: 'GET', timeoutMs: FETCH_TIMEOUT_MS, maxBytes: uploadLimits.maxFileSize, headers: { accept: 'image/*' } },
    policy,
  );
  if (!answer.ok) {
    if (answer.failure === 'failed' && answer.status !== null) return { ok: false, reason: 'the file is larger than 10 MB' };
    return { ok: false, reason: outboundFailureText[answer.failure].replace(/^The endpoint/, 'The server').toLowerCase() };
  }
  if (answer.status !== 200) return { ok: false, reason: `the server answered ${answer.status}` };
  const contentType = (answer.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!SAFE_IMAGE.test(contentType))
    return { ok: false, reason: `it is not a PNG, JPEG, GIF, WebP, AVIF or BMP image (${contentType.slice(0, 60) || 'no type'})` };
  if (!answer.body || answer.body.length === 0) return { ok: false, reason: 'the file is empty' };
  return { ok: true, bytes: answer.body, contentType };
}

async function storedBytes(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('storedObjects')
    .select(sql<number>`coalesce(sum(size), 0)::float8`.as('bytes'))
    .where('workspaceId', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.bytes);
}

export async function processPostsMedia(_data: unknown, deps: JobDeps & { policy?: OutboundPolicy }): Promise<MediaReport> {
  const report: MediaReport = { stored: 0, marked: 0 };
  const files = deps.files;
  // Without the console's files this process cannot store what it fetches: another process (the API) does it.
  if (!files) return report;
  const { db } = deps;
  const policy = deps.policy ?? { allowPrivate: automation().outboundAllowPrivate };
  const outboxes = new Outboxes();
  const tried: string[] = [];
  for (let round = 0; round < RUN_LIMIT; round += 1) {
    const post = await db
      .selectFrom('posts as p')
      .select(['p.id', 'p.workspaceId', 'p.mediaUrls'])
      .where(needsWork)
      .$if(tried.length > 0, (query) => query.where('p.id', 'not in', tried))
      .orderBy('p.createdAt')
      .limit(1)
      .executeTakeFirst();
    if (!post) break;
    tried.push(post.id);
    const ids = post.mediaUrls.map((url) => OWN_OBJECT.exec(url)?.[1]?.toLowerCase()).filter((id): id is string => id !== undefined);
    const known =
      ids.length === 0
        ? new Set<string>()
        : new Set(
            (
              await db
                .selectFrom('storedObjects')
                .select('key')
                .where('workspaceId', '=', post.workspaceId)
                .where('uploadedAt', 'is not', null)
                .where('key', 'in', ids)
                .execute()
            ).map((row) => row.key),
          );
    // Fetched outside any transaction (the embedded database has one connection): each file goes to disk under a
    // new key at once, and counts only once the rows below are written.
    const paths: string[] = [];
    const written: { key: string; contentType: string; size: number }[] = [];
    let problem: string | null = null;
    for (const url of post.mediaUrls) {
      const own = OWN_OBJECT.exec(url)?.[1]?.toLowerCase();
      if (own && known.has(own)) {
        paths.push(`/api/objects/${own}`);
        continue;
      }
      if (own || OBJECT_PATH.test(url)) {
        problem = `A media file of this post is not stored in this workspace (${url.slice(0, 120)}): upload the media again.`;
        break;
      }
      const fetched = await fetchMedia(url, policy);
      if (!fetched.ok) {
        problem = `The media at ${url.slice(0, 120)} could not be taken in: ${fetched.reason}. Upload the media to the post instead.`;
        break;
      }
      const key = randomUUID();
      await files.write(key, fetched.bytes);
      written.push({ key, contentType: fetched.contentType, size: fetched.bytes.length });
      paths.push(`/api/objects/${key}`);
    }
    const kept = await db.transaction().execute(async (tx) => {
      // The post as it is now, locked: if a person (or another worker) changed it meanwhile, this run's files go.
      const now = await tx.selectFrom('posts').select(['mediaUrls', 'mediaProblem']).where('id', '=', post.id).forUpdate().executeTakeFirst();
      if (!now || now.mediaProblem !== null || JSON.stringify(now.mediaUrls) !== JSON.stringify(post.mediaUrls)) return false;
      if (problem === null && written.length > 0) {
        // The workspace's storage quota, counted under the lock uploads take.
        await tx.selectFrom('workspaces').select('id').where('id', '=', post.workspaceId).forUpdate().execute();
        const adding = written.reduce((sum, file) => sum + file.size, 0);
        if ((await storedBytes(tx, post.workspaceId)) + adding > automation().storageQuotaBytes) {
          problem = "The post's media could not be taken in: the workspace's storage is full. Make room, then upload the media to the post.";
        } else {
          await tx
            .insertInto('storedObjects')
            .values(written.map((file) => ({ ...file, workspaceId: post.workspaceId, uploadedAt: new Date() })))
            .execute();
        }
      }
      const updated = await tx
        .updateTable('posts')
        .set(problem === null ? { mediaUrls: paths, mediaProblem: null } : { mediaProblem: problem })
        .where('id', '=', post.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      outboxes.for(updated.workspaceId).add('post.updated', serialize(updated));
      if (problem === null) report.stored += 1;
      else report.marked += 1;
      return problem === null;
    });
    // Nothing half-done: files of a post not rewritten are removed.
    if (!kept && written.length > 0) await files.remove(written.map((file) => file.key));
  }
  outboxes.flush(deps.announce);
  return report;
}
