import { sql } from 'kysely';
import type { Me, Role } from '@farm/contracts';
import { messages } from '@farm/contracts';
import { AppError, conflict } from '../errors.ts';
import type { Db } from '../shared/types.ts';
import { hashToken } from './auth.queries.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { recordActivity } from '../events/write.ts';

type MeRow = {
  id: string;
  email: string;
  name: string;
  role: Role;
  createdAt: Date;
  workspaceId: string | null;
  workspaceName: string | null;
  deactivatedAt: Date | null;
};

export function toMe(row: MeRow): Me {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    isActive: row.deactivatedAt === null,
    createdAt: row.createdAt.toISOString(),
    workspaceId: row.workspaceId,
    workspaceName: row.workspaceName,
  };
}

export async function findInvitationByToken(db: Db, token: string, now = new Date()) {
  return db
    .selectFrom('invitations as i')
    .innerJoin('workspaces as w', 'w.id', 'i.workspaceId')
    .select(['i.id', 'i.workspaceId', 'i.role', 'i.email', 'i.expiresAt', 'w.name as workspaceName'])
    .where('i.tokenHash', '=', hashToken(token))
    .where('i.acceptedAt', 'is', null)
    .where('i.expiresAt', '>', now)
    .executeTakeFirst();
}

/**
 * Creates the person and, as the role asks: an operator gets a new workspace; an invited person joins the
 * invitation's workspace with its role; a VA with no invitation gets an account and no workspace yet.
 */
export async function signup(
  db: Db,
  body: { email: string; password: string; name: string; role: Role; inviteToken?: string | undefined; timeZone?: string | undefined },
): Promise<string> {
  const passwordHash = await hashPassword(body.password);
  return db.transaction().execute(async (tx) => {
    const taken = await tx.selectFrom('users').select('id').where(sql`lower(email)`, '=', body.email.toLowerCase()).executeTakeFirst();
    if (taken) throw conflict(messages.emailTaken);
    const invitation = body.inviteToken ? await findInvitationByToken(tx, body.inviteToken) : undefined;
    if (body.inviteToken && !invitation) throw new AppError(400, messages.invitationInvalid, [{ field: 'inviteToken', message: messages.invitationInvalid }]);
    if (invitation?.email && invitation.email !== body.email.toLowerCase()) {
      throw new AppError(400, 'This invitation was sent to another email address', [
        { field: 'email', message: 'This invitation was sent to another email address' },
      ]);
    }
    // One invitation admits one person: the claim is a guarded update, so of parallel signups with one token
    // one claims it and the others, waiting on its row lock, find it taken.
    if (invitation && !(await claimInvitation(tx, invitation.id))) {
      throw new AppError(400, messages.invitationInvalid, [{ field: 'inviteToken', message: messages.invitationInvalid }]);
    }
    const role: Role = invitation?.role ?? body.role;
    const user = await insertUser(tx, { email: body.email, passwordHash, name: body.name, role });
    let workspaceId: string | undefined;
    if (invitation) {
      workspaceId = invitation.workspaceId;
      await tx.updateTable('invitations').set({ acceptedById: user.id }).where('id', '=', invitation.id).execute();
    } else if (role === 'operator') {
      const workspace = await tx
        .insertInto('workspaces')
        .values({ name: `${body.name}'s Farm`, timeZone: body.timeZone ?? 'UTC' })
        .returning('id')
        .executeTakeFirstOrThrow();
      workspaceId = workspace.id;
    }
    if (workspaceId) {
      await tx.insertInto('workspaceMembers').values({ workspaceId, userId: user.id, role }).execute();
      await recordActivity(
        tx,
        { workspaceId, userId: user.id, action: invitation ? `${body.name} joined the workspace` : `${body.name} created the workspace`, type: 'success' },
        { action: 'user.joined', entityType: 'user', entityId: user.id, data: { role } },
      );
    }
    return user.id;
  });
}

/** Marks the invitation accepted unless someone already did; answers whether this call did. */
async function claimInvitation(tx: Db, invitationId: string): Promise<boolean> {
  const claimed = await tx
    .updateTable('invitations')
    .set({ acceptedAt: new Date() })
    .where('id', '=', invitationId)
    .where('acceptedAt', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** The new person's row; a parallel signup that took the email first is answered as a taken email. */
async function insertUser(tx: Db, values: { email: string; passwordHash: string; name: string; role: Role }): Promise<{ id: string }> {
  try {
    return await tx.insertInto('users').values(values).returning('id').executeTakeFirstOrThrow();
  } catch (error) {
    if ((error as { code?: unknown }).code === '23505') throw conflict(messages.emailTaken);
    throw error;
  }
}

/** Changes the person's name and/or password; a new password ends their other sessions, answered by id. */
export async function updateMe(
  db: Db,
  userId: string,
  currentSessionId: string,
  body: { name?: string | undefined; currentPassword?: string | undefined; password?: string | undefined },
): Promise<string[]> {
  const changes: { name?: string; passwordHash?: string } = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.password !== undefined) {
    const user = await db.selectFrom('users').select('passwordHash').where('id', '=', userId).executeTakeFirstOrThrow();
    if (!(await verifyPassword(user.passwordHash, body.currentPassword ?? ''))) {
      throw new AppError(400, messages.currentPasswordWrong, [{ field: 'currentPassword', message: messages.currentPasswordWrong }]);
    }
    changes.passwordHash = await hashPassword(body.password);
  }
  if (Object.keys(changes).length === 0) return [];
  await db.updateTable('users').set(changes).where('id', '=', userId).execute();
  if (!changes.passwordHash) return [];
  const ended = await db.deleteFrom('authSessions').where('userId', '=', userId).where('id', '!=', currentSessionId).returning('id').execute();
  return ended.map((row) => row.id);
}
