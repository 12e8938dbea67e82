/** What a phone's screenshot writes: its stored object and its row, counted on the phone's open session. */
import { sql } from 'kysely';
import type { SessionRow } from '@farm/sql';
import type { Tx } from '../../shared/types.ts';
import { lockQuota } from '../uploads/uploads.queries.ts';

/**
 * Stores a screenshot's record (its bytes are already in storage under `key`) and counts it on the open session;
 * answers `full` (recording nothing) when it does not fit the workspace's storage quota, counted under the same lock
 * uploads take.
 */
export async function recordScreenshot(
  tx: Tx,
  device: { id: string; workspaceId: string },
  shot: { key: string; mime: string; size: number; capturedAt: Date },
  quotaBytes: number,
): Promise<{ session: SessionRow | undefined; sessionId: string | null; capturedAt: Date } | { full: true; used: number }> {
  const room = await lockQuota(tx, device.workspaceId, shot.size, quotaBytes);
  if (!room.fits) return { full: true as const, used: room.used };
  await tx
    .insertInto('storedObjects')
    .values({ key: shot.key, workspaceId: device.workspaceId, contentType: shot.mime, size: shot.size, uploadedAt: new Date() })
    .execute();
  const session = await tx
    .updateTable('sessions')
    .set({ screenshots: sql<number>`screenshots + 1` })
    .where('deviceId', '=', device.id)
    .where('endedAt', 'is', null)
    .returningAll()
    .executeTakeFirst();
  const row = await tx
    .insertInto('screenshots')
    .values({ workspaceId: device.workspaceId, deviceId: device.id, sessionId: session?.id ?? null, objectKey: shot.key, capturedAt: shot.capturedAt })
    .returning(['sessionId', 'capturedAt'])
    .executeTakeFirstOrThrow();
  return { session, sessionId: row.sessionId, capturedAt: row.capturedAt };
}
