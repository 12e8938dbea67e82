import { sql } from 'kysely';
import { hashToken } from '../../auth/auth.queries.ts';
import type { Db } from '../../shared/types.ts';
import { objectPath } from '../../storage/storage.ts';

/** The live link behind a wall token; undefined once revoked. */
export function findWallLink(db: Db, token: string) {
  return db.selectFrom('wallLinks').select(['id', 'workspaceId']).where('tokenHash', '=', hashToken(token)).where('revokedAt', 'is', null).executeTakeFirst();
}

/** Every phone of the workspace (or of one of its groups) as a wall tile, in a stable order (oldest first). */
export async function wallTiles(db: Db, workspaceId: string, groupId?: string) {
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
    .$if(groupId !== undefined, (query) =>
      query.where(sql<boolean>`exists (select 1 from device_group_members m where m.device_id = d.id and m.group_id = ${groupId})`),
    )
    .orderBy('d.createdAt')
    .orderBy('d.id')
    .execute();
  return rows.map(({ screenshotKey, lastActive, ...row }) => ({
    ...row,
    lastActive: lastActive.toISOString(),
    screenshotUrl: screenshotKey ? objectPath(screenshotKey) : null,
  }));
}

export function listWallLinks(db: Db, workspaceId: string) {
  return db
    .selectFrom('wallLinks')
    .select(['id', 'name', 'createdAt', 'revokedAt'])
    .where('workspaceId', '=', workspaceId)
    .orderBy('createdAt', 'desc')
    .execute();
}

/** Stores a new wall link by its token's hash (the token itself is shown once and never kept). */
export function insertWallLink(db: Db, workspaceId: string, values: { tokenHash: string; createdById: string; name?: string | undefined }) {
  return db
    .insertInto('wallLinks')
    .values({
      workspaceId,
      tokenHash: values.tokenHash,
      createdById: values.createdById,
      ...(values.name ? { name: values.name } : {}),
    })
    .returning(['id', 'name', 'createdAt', 'revokedAt'])
    .executeTakeFirstOrThrow();
}

/** Revokes a live wall link; undefined when it is unknown or already revoked. */
export function revokeWallLink(db: Db, workspaceId: string, id: string) {
  return db
    .updateTable('wallLinks')
    .set({ revokedAt: new Date() })
    .where('id', '=', id)
    .where('workspaceId', '=', workspaceId)
    .where('revokedAt', 'is', null)
    .returning('id')
    .executeTakeFirst();
}

export function workspaceName(db: Db, workspaceId: string) {
  return db.selectFrom('workspaces').select('name').where('id', '=', workspaceId).executeTakeFirstOrThrow();
}

/** The workspace's groups and tags with their phone counts, for the wall's filter (by name). */
export async function wallGroups(db: Db, workspaceId: string) {
  const rows = await db
    .selectFrom('deviceGroups as g')
    .select(['g.id', 'g.name', 'g.kind', sql<number>`(select count(*)::int from device_group_members m where m.group_id = g.id)`.as('phones')])
    .where('g.workspaceId', '=', workspaceId)
    .orderBy(sql`lower(g.name)`)
    .limit(1000)
    .execute();
  return rows.map((row) => ({ ...row, kind: row.kind === 'tag' ? ('tag' as const) : ('group' as const) }));
}
