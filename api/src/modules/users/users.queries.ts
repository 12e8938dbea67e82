import { sql } from 'kysely';
import type { Insertable, Updateable } from 'kysely';
import type { InvitationsTable, Role, WorkspacesTable } from '@farm/sql';
import type { Db, Tx } from '../../shared/types.ts';
import { operatorForResets } from '../../auth/reset-targets.ts';
import { memberColumns } from '../../auth/members.queries.ts';

// One member is read the same way by the sign-in rooms below (auth/members.queries.ts).
export { findMember } from '../../auth/members.queries.ts';

/** The workspace's members, operators and VAs alike; never a password hash. */
export function listMembers(db: Db, workspaceId: string, filter: { role?: Role | undefined; search?: string | undefined } = {}) {
  let query = db.selectFrom('workspaceMembers as m').innerJoin('users as u', 'u.id', 'm.userId').select(memberColumns).where('m.workspaceId', '=', workspaceId);
  if (filter.role) query = query.where('m.role', '=', filter.role);
  if (filter.search) {
    const like = `%${filter.search.replace(/[\\%_]/g, '\\$&')}%`;
    query = query.where((eb) => eb.or([eb('u.name', 'ilike', like), eb('u.email', 'ilike', like)]));
  }
  return query.orderBy('u.name').orderBy('u.id').execute();
}

/** Changes a member's role or activity; a demotion from operator stamps `lastOperatorAt` (resets read it). */
export async function updateMember(db: Db, workspaceId: string, userId: string, changes: { role?: Role; deactivatedAt?: Date | null }): Promise<void> {
  // Nothing to change (an empty body): an UPDATE with no SET is invalid SQL.
  if (Object.keys(changes).length === 0) return;
  // `role` on the right of SET is the row's role before this update, so only a real demotion stamps the time.
  const demotion =
    changes.role && changes.role !== 'operator' ? { lastOperatorAt: sql<Date | null>`case when role = 'operator' then now() else last_operator_at end` } : {};
  await db
    .updateTable('workspaceMembers')
    .set({ ...changes, ...demotion })
    .where('workspaceId', '=', workspaceId)
    .where('userId', '=', userId)
    .execute();
}

/**
 * Takes the workspace's row lock for a change of who may run it: two operators demoting each other at once are
 * served one after the other, so the second counts the first's change and a workspace keeps an active operator.
 */
export async function lockWorkspaceMembership(tx: Tx, workspaceId: string): Promise<void> {
  await tx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().execute();
}

export function countActiveOperators(db: Db, workspaceId: string) {
  return db
    .selectFrom('workspaceMembers')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('workspaceId', '=', workspaceId)
    .where('role', '=', 'operator')
    .where('deactivatedAt', 'is', null)
    .executeTakeFirstOrThrow();
}

export type MemberRow = Awaited<ReturnType<typeof listMembers>>[number];

export function toUser(row: MemberRow) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    isActive: row.deactivatedAt === null,
    createdAt: row.createdAt.toISOString(),
    resetsAsOperator: operatorForResets(row),
  };
}

/** The workspace's columns the console shows (Settings → Workspace). */
export const workspaceColumns = [
  'id',
  'name',
  'timeZone',
  'createdAt',
  'requireTwoFactor',
  'keepScreenshotsDays',
  'keepScreenshotsPerDevice',
  'keepActivityDays',
  'keepFinishedTasksDays',
] as const;

export function findWorkspace(db: Db, workspaceId: string) {
  return db.selectFrom('workspaces').select(workspaceColumns).where('id', '=', workspaceId).executeTakeFirstOrThrow();
}

export function updateWorkspace(db: Db, workspaceId: string, changes: Updateable<WorkspacesTable>) {
  return db.updateTable('workspaces').set(changes).where('id', '=', workspaceId).returning(workspaceColumns).executeTakeFirstOrThrow();
}

/** The person's role as their account says it (the member row of their workspace is changed beside it). */
export async function setUserRole(tx: Tx, userId: string, role: Role): Promise<void> {
  await tx.updateTable('users').set({ role }).where('id', '=', userId).execute();
}

/** A deactivated VA hands back their phones. */
export async function unassignDevicesOf(tx: Tx, workspaceId: string, userId: string): Promise<void> {
  await tx.updateTable('devices').set({ assignedToId: null }).where('workspaceId', '=', workspaceId).where('assignedToId', '=', userId).execute();
}

/** The workspace's invitations, newest first (at most 500). */
export function listInvitations(db: Db, workspaceId: string) {
  return db
    .selectFrom('invitations')
    .select(['id', 'role', 'email', 'expiresAt', 'acceptedAt', 'createdAt'])
    .where('workspaceId', '=', workspaceId)
    .orderBy('createdAt', 'desc')
    .limit(500)
    .execute();
}

export function insertInvitation(db: Db, values: Insertable<InvitationsTable>) {
  return db.insertInto('invitations').values(values).returning(['id', 'role', 'expiresAt']).executeTakeFirstOrThrow();
}

/** Answers whether an invitation of the workspace was there to delete. */
export async function deleteInvitation(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('invitations').where('id', '=', id).where('workspaceId', '=', workspaceId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
