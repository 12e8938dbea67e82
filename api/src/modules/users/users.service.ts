/**
 * The workspace's people and settings: a member's role and access changed (a workspace always keeps an active
 * operator), the workspace's name, time zone and history kept, and invitations made and revoked.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { createInvitationBody, RetentionSettings, updateUserBody, updateWorkspaceBody, User } from '@farm/contracts';
import { deleteSessionsOfUser, hashToken } from '../../auth/auth.queries.ts';
import { findTwoFactor } from '../../auth/two-factor.queries.ts';
import { AppError, forbidden, notFound } from '../../errors.ts';
import { write, type WriteContext } from '../../events/write.ts';
import { findMember } from '../../shared/members.queries.ts';
import type { Actor, Db } from '../../shared/types.ts';
import {
  countActiveOperators,
  deleteInvitation,
  insertInvitation,
  lockWorkspaceMembership,
  setUserRole,
  toUser,
  unassignDevicesOf,
  updateMember,
  updateWorkspace,
} from './users.queries.ts';

const INVITATION_DAYS = 7;

/**
 * Changes a member's role or access under the workspace's membership lock. A deactivation ends their sessions and
 * hands back their phones; a promotion to operator where operators must use two-factor sign-in ends their sessions.
 */
export async function changeMember(ctx: WriteContext, actor: Actor, id: string, body: z.output<typeof updateUserBody>): Promise<User> {
  const { role: newRole, isActive } = body;
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    await lockWorkspaceMembership(tx, actor.workspaceId);
    // Who may run the workspace is read again under the lock: an operator demoted a moment ago is one no more.
    const self = await findMember(tx, actor.workspaceId, actor.userId);
    if (self?.role !== 'operator' || self.deactivatedAt) throw forbidden();
    const member = await findMember(tx, actor.workspaceId, id);
    if (!member) throw notFound();
    const demotes = (newRole !== undefined && newRole !== 'operator') || isActive === false;
    if (member.role === 'operator' && demotes && (await countActiveOperators(tx, actor.workspaceId)).count <= 1) {
      throw new AppError(409, 'A workspace needs at least one active operator');
    }
    await updateMember(tx, actor.workspaceId, id, {
      ...(newRole ? { role: newRole } : {}),
      ...(isActive === undefined ? {} : { deactivatedAt: isActive ? null : new Date() }),
    });
    if (newRole) await setUserRole(tx, id, newRole);
    let revoked: string[] = [];
    // In a workspace that requires two-factor sign-in of operators, a promotion ends the person's sessions: they
    // sign in again as an operator, through the second factor, and no session without one carries over.
    if (newRole === 'operator' && member.role !== 'operator' && (await findTwoFactor(tx, id)).required) revoked = await deleteSessionsOfUser(tx, id);
    if (isActive === false) {
      revoked = await deleteSessionsOfUser(tx, id);
      // A deactivated VA hands back their phones.
      await unassignDevicesOf(tx, actor.workspaceId, id);
    }
    await outbox.record(
      {
        userId: actor.userId,
        action: isActive === false ? `${member.name} was deactivated` : `${member.name}'s access was updated`,
        type: isActive === false ? 'warning' : 'info',
      },
      { action: 'user.updated', entityType: 'user', entityId: id, data: body },
    );
    const user = toUser((await findMember(tx, actor.workspaceId, id))!);
    outbox.add('user.updated', user);
    if (revoked.length > 0) outbox.internal('auth.revoked', { sessionIds: revoked });
    return user;
  });
}

/** Settings → Workspace: its name, and its time zone when given. */
export function renameWorkspace(db: Db, workspaceId: string, body: z.output<typeof updateWorkspaceBody>) {
  return updateWorkspace(db, workspaceId, { name: body.name, ...(body.timeZone ? { timeZone: body.timeZone } : {}) });
}

/** Settings → Workspace → History: how long screenshots, activity and finished tasks are kept (pruned hourly). */
export function keepHistory(db: Db, workspaceId: string, body: RetentionSettings) {
  return updateWorkspace(db, workspaceId, {
    keepScreenshotsDays: body.screenshotsDays,
    keepScreenshotsPerDevice: body.screenshotsPerDevice,
    keepActivityDays: body.activityDays,
    keepFinishedTasksDays: body.finishedTasksDays,
  });
}

/** A link that lets a person join the workspace with the role, for INVITATION_DAYS; only its hash is kept. */
export async function createInvitation(db: Db, actor: Actor, body: z.output<typeof createInvitationBody>, publicUrl: string | undefined) {
  const token = randomBytes(24).toString('base64url');
  const row = await insertInvitation(db, {
    workspaceId: actor.workspaceId,
    tokenHash: hashToken(token),
    role: body.role,
    email: body.email ?? null,
    createdById: actor.userId,
    expiresAt: new Date(Date.now() + INVITATION_DAYS * 24 * 3600_000),
  });
  const path = `/signup?invite=${token}`;
  return { id: row.id, token, url: publicUrl ? new URL(path, publicUrl).toString() : path, role: row.role, expiresAt: row.expiresAt.toISOString() };
}

export async function revokeInvitation(db: Db, workspaceId: string, id: string): Promise<void> {
  if (!(await deleteInvitation(db, workspaceId, id))) throw notFound();
}
