import { sql } from 'kysely';
import { hashToken } from '../../auth/auth.queries.ts';
import type { Db } from '../../shared/types.ts';
import { objectPath } from '../../storage/storage.ts';

/** The live link behind a wall token; undefined once revoked. */
export function findWallLink(db: Db, token: string) {
  return db.selectFrom('wallLinks').select(['id', 'workspaceId']).where('tokenHash', '=', hashToken(token)).where('revokedAt', 'is', null).executeTakeFirst();
}

/** Every phone of the workspace as a wall tile, in a stable order (oldest first). */
export async function wallTiles(db: Db, workspaceId: string) {
  const rows = await db
    .selectFrom('devices as d')
    .leftJoin('users as u', 'u.id', 'd.assignedToId')
    .select([
      'd.id',
      'd.name',
      'd.status',
      'd.battery',
      'd.lastActive',
      'd.controlledByName',
      'u.name as vaName',
      sql<string | null>`(select s.object_key from screenshots s where s.device_id = d.id order by s.captured_at desc limit 1)`.as('screenshotKey'),
      sql<
        string | null
      >`(select coalesce(se.current_task, t.title) from sessions se left join tasks t on t.id = se.task_id where se.device_id = d.id and se.ended_at is null limit 1)`.as(
        'currentTask',
      ),
    ])
    .where('d.workspaceId', '=', workspaceId)
    .orderBy('d.createdAt')
    .orderBy('d.id')
    .execute();
  return rows.map(({ screenshotKey, lastActive, ...row }) => ({
    ...row,
    lastActive: lastActive.toISOString(),
    screenshotUrl: screenshotKey ? objectPath(screenshotKey) : null,
  }));
}
