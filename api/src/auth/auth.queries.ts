import { CompiledQuery, sql } from 'kysely';
import type { Db } from '../shared/types.ts';
import { hashToken, newToken } from '../shared/tokens.ts';
import type { Role } from '@farm/contracts';

// The features hash their tokens as sessions do; the helper is on the ground floor, where the phone side reaches it.
export { hashToken, newToken } from '../shared/tokens.ts';

export const SESSION_IDLE_MS = 7 * 24 * 3600_000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 3600_000;
/** last_seen_at is written at most this often, so reads do not each cost a write. */
const TOUCH_EVERY_MS = 60_000;

export interface SessionUser {
  sessionId: string;
  lastSeenAt: Date;
  id: string;
  email: string;
  name: string;
  role: Role;
  createdAt: Date;
  workspaceId: string | null;
  workspaceName: string | null;
  deactivatedAt: Date | null;
}

/**
 * Written out once rather than built per call: it runs on every signed-in request that the session cache does not
 * answer, and building it was a fifth of such a request's work. Same columns and joins as the builder would write.
 */
const FIND_SESSION = `select s.id as "sessionId", s.last_seen_at as "lastSeenAt", u.id, u.email, u.name,
  coalesce(m.role, u.role) as role, u.created_at as "createdAt", m.workspace_id as "workspaceId",
  w.name as "workspaceName", m.deactivated_at as "deactivatedAt"
from auth_sessions as s
inner join users as u on u.id = s.user_id
left join workspace_members as m on m.user_id = u.id
left join workspaces as w on w.id = m.workspace_id
where s.token_hash = $1 and s.expires_at > $2 and s.last_seen_at > $3`;

/** The live session behind a cookie token, with its person and workspace; undefined when expired or unknown. */
export async function findSession(db: Db, token: string, now = new Date()): Promise<SessionUser | undefined> {
  const idleSince = new Date(now.getTime() - SESSION_IDLE_MS);
  const result = await db.executeQuery<SessionUser>(CompiledQuery.raw(FIND_SESSION, [hashToken(token), now, idleSince]));
  const row = result.rows[0];
  if (!row) return undefined;
  if (now.getTime() - row.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
    await db.updateTable('authSessions').set({ lastSeenAt: now }).where('id', '=', row.sessionId).execute();
  }
  return row;
}

export async function createSession(
  db: Db,
  userId: string,
  meta: { ip?: string; userAgent?: string },
  now = new Date(),
): Promise<{ token: string; sessionId: string }> {
  const { token, tokenHash } = newToken();
  const row = await db
    .insertInto('authSessions')
    .values({
      tokenHash,
      userId,
      expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
      ip: meta.ip ?? null,
      // Control characters (NUL above all) cannot be stored as text, and say nothing about the browser.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is taken out
      userAgent: meta.userAgent?.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 500) ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  // Expired sessions of this person go when they sign in again: the table does not grow without bound.
  await db
    .deleteFrom('authSessions')
    .where('userId', '=', userId)
    .where((eb) => eb.or([eb('expiresAt', '<=', now), eb('lastSeenAt', '<=', new Date(now.getTime() - SESSION_IDLE_MS))]))
    .execute();
  return { token, sessionId: row.id };
}

export async function deleteSessionByToken(db: Db, token: string): Promise<void> {
  await db.deleteFrom('authSessions').where('tokenHash', '=', hashToken(token)).execute();
}

export async function deleteSessionsOfUser(db: Db, userId: string): Promise<string[]> {
  const rows = await db.deleteFrom('authSessions').where('userId', '=', userId).returning('id').execute();
  return rows.map((row) => row.id);
}

export async function findUserByEmail(db: Db, email: string) {
  return db
    .selectFrom('users as u')
    .leftJoin('workspaceMembers as m', 'm.userId', 'u.id')
    .select(['u.id', 'u.passwordHash', 'm.deactivatedAt'])
    .where(sql`lower(u.email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

/** The signed-in person as the contract's `Me`. */
export async function findMe(db: Db, userId: string) {
  return db
    .selectFrom('users as u')
    .leftJoin('workspaceMembers as m', 'm.userId', 'u.id')
    .leftJoin('workspaces as w', 'w.id', 'm.workspaceId')
    .select([
      'u.id',
      'u.email',
      'u.name',
      sql<Role>`coalesce(m.role, u.role)`.as('role'),
      'u.createdAt',
      'm.workspaceId',
      'w.name as workspaceName',
      'm.deactivatedAt',
    ])
    .where('u.id', '=', userId)
    .executeTakeFirstOrThrow();
}

export async function passwordHashOf(db: Db, userId: string): Promise<string> {
  const row = await db.selectFrom('users').select('passwordHash').where('id', '=', userId).executeTakeFirstOrThrow();
  return row.passwordHash;
}

export async function setPasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ passwordHash }).where('id', '=', userId).execute();
}
