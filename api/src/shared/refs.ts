/**
 * Checks that an id named in a body belongs to the caller's workspace. An unknown or foreign id is the
 * caller's mistake: 400 naming the field, never a foreign-key 500 and never a hint that it exists elsewhere.
 */
import { fieldLabel } from '@farm/contracts';
import { badRequest } from '../errors.ts';
import { isUuid } from '@farm/sql';
import { findMember, type MemberRow } from './members.queries.ts';
import type { Db } from './types.ts';

type Owned = 'devices' | 'tasks' | 'campaigns' | 'accounts' | 'routines' | 'sessions' | 'deviceGroups';

export async function assertOwned(db: Db, table: Owned, workspaceId: string, id: string, field: string): Promise<void> {
  if (isUuid(id)) {
    const row = await db.selectFrom(table).select('id').where('id', '=', id).where('workspaceId', '=', workspaceId).executeTakeFirst();
    if (row) return;
  }
  throw badRequest(field, `${fieldLabel(field)} must be one of this workspace's ${table}`);
}

/** An active member of the workspace, answered with their name and role. */
export async function assertMember(db: Db, workspaceId: string, userId: string, field: string): Promise<MemberRow> {
  const member = isUuid(userId) ? await findMember(db, workspaceId, userId) : undefined;
  if (member && member.deactivatedAt === null) return member;
  throw badRequest(field, `${fieldLabel(field)} must be an active member of this workspace`);
}
