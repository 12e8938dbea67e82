/**
 * Password reset links, written: an operator's link for a VA (made at once), and an operator's reset, which takes a
 * second operator: one asks, a different one approves, and only then is the one-time link made. Each is one write
 * (the checks, the row, the audit and the activity in one transaction); the person reset is told after it commits.
 */
import { messages, PASSWORD_RESET_HOURS, PASSWORD_RESET_REQUEST_HOURS } from '@farm/contracts';
import { AppError, conflict, notFound } from '../errors.ts';
import { write, type WriteContext } from '../events/write.ts';
import { findMember } from '../shared/members.queries.ts';
import type { Actor } from '../shared/types.ts';
import { createPasswordReset } from './password-resets.queries.ts';
import { approveResetRequest, insertResetRequest, listOpenResetRequests, lockResetRequest } from './reset-requests.queries.ts';
import { operatorForResets } from './reset-targets.ts';
import { tellPerson } from './security.service.ts';

export const RESET_REQUEST_MESSAGES = {
  notOperator: 'Only an operator’s reset needs a second operator: make a VA’s reset link directly',
  pending: (name: string) => `A reset of ${name}'s password is already waiting for another operator's approval`,
  ownRequest: 'A different operator must approve this reset: you asked for it',
  gone: 'This reset request has expired or was already approved',
} as const;

/** A one-time link for a VA (or a member who is no operator), valid PASSWORD_RESET_HOURS; the member is told. */
export async function makeResetLink(ctx: WriteContext, actor: Actor, id: string): Promise<{ token: string; expiresAt: Date }> {
  if (id === actor.userId) throw conflict(messages.passwordResetSelf);
  const expiresAt = new Date(Date.now() + PASSWORD_RESET_HOURS * 3600_000);
  const token = await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const member = await findMember(tx, actor.workspaceId, id);
    if (!member) throw notFound();
    if (member.deactivatedAt) throw conflict(messages.passwordResetDeactivated);
    // A link for another operator would let one operator take another's account silently; one demoted a moment
    // ago is still one here.
    if (member.role === 'operator') throw conflict(messages.passwordResetOperator);
    if (operatorForResets(member)) throw conflict(messages.passwordResetRecentOperator);
    const created = await createPasswordReset(tx, { userId: id, workspaceId: actor.workspaceId, createdById: actor.userId, expiresAt });
    await outbox.record(
      { userId: actor.userId, action: `Sign-in reset link made for ${member.name}`, type: 'info' },
      { action: 'user.password_reset', entityType: 'user', entityId: id },
    );
    return created;
  });
  await tellPerson(ctx.db, ctx.changes, id, {
    kind: 'password_reset.created',
    notice: 'An operator made a password reset link for your account. If you did not ask for it, tell another operator.',
    activity: (name) => `A password reset link was made for ${name}`,
    alert: (name) => `A password reset link was made for ${name}`,
  });
  return { token, expiresAt };
}

/** Operator A asks for an operator's reset: a request another operator must approve within PASSWORD_RESET_REQUEST_HOURS. */
export async function requestOperatorReset(ctx: WriteContext, actor: Actor, id: string) {
  if (id === actor.userId) throw conflict(messages.passwordResetSelf);
  const created = await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const member = await findMember(tx, actor.workspaceId, id);
    if (!member) throw notFound();
    if (member.deactivatedAt) throw conflict(messages.passwordResetDeactivated);
    if (!operatorForResets(member)) throw conflict(RESET_REQUEST_MESSAGES.notOperator);
    const expiresAt = new Date(Date.now() + PASSWORD_RESET_REQUEST_HOURS * 3600_000);
    const requestId = await insertResetRequest(tx, { workspaceId: actor.workspaceId, userId: id, requestedById: actor.userId, expiresAt });
    if (!requestId) throw conflict(RESET_REQUEST_MESSAGES.pending(member.name));
    await outbox.record(
      { userId: actor.userId, action: `A reset of ${member.name}'s password was requested: another operator must approve it`, type: 'warning' },
      { action: 'user.password_reset_requested', entityType: 'user', entityId: id, data: { requestId } },
    );
    return (await listOpenResetRequests(tx, actor.workspaceId)).find((row) => row.id === requestId)!;
  });
  return created;
}

/** A different operator approves a waiting request: the one-time link is made for them to hand over; the person is told. */
export async function approveOperatorReset(ctx: WriteContext, actor: Actor, requestId: string): Promise<{ token: string; expiresAt: Date; userId: string }> {
  const approved = await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const open = await lockResetRequest(tx, actor.workspaceId, requestId);
    if (!open) throw notFound();
    if (open.expiresAt.getTime() <= Date.now()) throw conflict(RESET_REQUEST_MESSAGES.gone);
    if (open.requestedById === actor.userId) throw new AppError(403, RESET_REQUEST_MESSAGES.ownRequest);
    if (open.userId === actor.userId) throw conflict(messages.passwordResetSelf);
    const member = await findMember(tx, actor.workspaceId, open.userId);
    if (!member) throw notFound();
    if (member.deactivatedAt) throw conflict(messages.passwordResetDeactivated);
    await approveResetRequest(tx, open.id, actor.userId);
    const expiresAt = new Date(Date.now() + PASSWORD_RESET_HOURS * 3600_000);
    const token = await createPasswordReset(tx, { userId: open.userId, workspaceId: actor.workspaceId, createdById: actor.userId, expiresAt });
    await outbox.record(
      { userId: actor.userId, action: `The reset of ${member.name}'s password was approved: a sign-in reset link was made`, type: 'warning' },
      {
        action: 'user.password_reset_approved',
        entityType: 'user',
        entityId: open.userId,
        data: { requestId: open.id, requestedById: open.requestedById },
      },
    );
    return { token, expiresAt, userId: open.userId };
  });
  await tellPerson(ctx.db, ctx.changes, approved.userId, {
    kind: 'password_reset.created',
    notice: 'Two operators made a password reset link for your account. If you did not ask for it, tell another operator.',
    activity: (name) => `A password reset link was made for ${name}, approved by two operators`,
    alert: (name) => `A password reset link was made for operator ${name}, approved by two operators`,
  });
  return approved;
}
