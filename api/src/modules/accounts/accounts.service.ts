/**
 * An account's writes: added by operators, its fields and status changed (a VA only its numbers, on their own phone),
 * moved between phones with its waiting work, and removed with its work called off. Every write is one `write()`:
 * announced (`account.*`) after commit, in the feed and the audit log.
 */
import type { z } from 'zod';
import {
  ACCOUNTS_PER_DEVICE,
  accountStatusLabels,
  limitedPlatforms,
  messages,
  type createAccountBody,
  type Platform,
  type updateAccountBody,
} from '@farm/contracts';
import type { AccountRow } from '@farm/sql';
import { cancelTasks, Outboxes, raiseAlert, withdrawTask } from '@farm/workers';
import { AppError, conflict, notFound } from '../../errors.ts';
import { write, type WriteContext, type WriteOutbox } from '../../events/write.ts';
import { assertOwned } from '../../shared/refs.ts';
import { serialize } from '../../shared/serialize.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import type { Storage } from '../../storage/storage.ts';
import { resolveStoredObject, storeDataUrl } from '../uploads/uploads.service.ts';
import {
  countDeviceAccounts,
  deleteAccount,
  deviceAssignee,
  findAccountForUpdate,
  insertAccount,
  lockAccount,
  lockDevice,
  movableTasksForUpdate,
  setTaskDevice,
  updateAccount,
} from './accounts.queries.ts';

type CreateBody = z.output<typeof createAccountBody>;
type UpdateBody = z.output<typeof updateAccountBody>;

/** Fields a VA may change on an account: its numbers, as they read them off the phone. */
const VA_FIELDS = new Set(['followers', 'following']);

/** A phone holds at most 3 accounts of each of Instagram and TikTok; the phone's row is locked while counting. */
async function assertRoomOnDevice(tx: Tx, actor: Actor, deviceId: string, platform: Platform, exceptAccountId?: string): Promise<void> {
  await assertOwned(tx, 'devices', actor.workspaceId, deviceId, 'deviceId');
  if (!limitedPlatforms.includes(platform)) return;
  await lockDevice(tx, deviceId);
  const { count } = await countDeviceAccounts(tx, deviceId, platform, exceptAccountId);
  if (count >= ACCOUNTS_PER_DEVICE) throw conflict(messages.accountLimit);
}

/** The account moved to another phone: its waiting work follows it, and an attempt out on the old phone is taken back. */
async function followAccount(tx: Tx, accountId: string, deviceId: string | null, outbox: WriteOutbox): Promise<void> {
  // Work a person has started stays where it is; what waits, or is out on the old phone, moves.
  const open = await movableTasksForUpdate(tx, accountId);
  for (const task of open) {
    const held = await withdrawTask(tx, task, 'The account moved to another phone', outbox);
    const moved = await setTaskDevice(tx, held.id, deviceId);
    outbox.add('task.updated', serialize(moved));
    if (deviceId) outbox.internal('device.wake', { deviceId });
  }
}

/**
 * A change of an account's status goes to the feed; a pause is the safety stop (the account is rested before a
 * platform flags it), so it is also an alert for the workspace's webhooks.
 */
async function announceStatus(tx: Tx, actor: Actor, account: AccountRow, outbox: WriteOutbox): Promise<void> {
  const label = `@${account.username} (${account.platform})`;
  const paused = account.status === 'paused';
  await outbox.record(
    {
      userId: actor.userId,
      action: paused ? `Account ${label} paused for safety` : `Account ${label} set to ${accountStatusLabels[account.status]}`,
      deviceId: account.deviceId,
      type: paused ? 'warning' : 'info',
    },
    { action: 'account.status', entityType: 'account', entityId: account.id, data: { to: account.status } },
  );
  if (paused) {
    await raiseAlert(tx, actor.workspaceId, 'account.paused', {
      id: account.id,
      at: account.updatedAt.toISOString(),
      text: `Account ${label} was paused for safety`,
      username: account.username,
      platform: account.platform,
    });
  }
}

export async function createAccount(ctx: WriteContext, actor: Actor, body: CreateBody): Promise<AccountRow> {
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    if (body.deviceId) await assertRoomOnDevice(tx, actor, body.deviceId, body.platform);
    const profileImages = await Promise.all(
      (body.profileImages ?? []).map((url, index) => resolveStoredObject(tx, actor.workspaceId, url, `profileImages.${index}`)),
    );
    const created = await insertAccount(tx, actor.workspaceId, { ...body, profileImages });
    outbox.add('account.created', serialize(created));
    await outbox.record(
      { userId: actor.userId, action: `Account @${created.username} (${created.platform}) added`, deviceId: created.deviceId, type: 'success' },
      { action: 'account.created', entityType: 'account', entityId: created.id },
    );
    return created;
  });
}

/**
 * Changes an account. A VA changes only followers and following, of accounts on the phone assigned to them; a pause
 * or suspension calls off its automation, and a move to another phone takes its waiting work along.
 */
export async function changeAccount(ctx: WriteContext & { storage: Storage }, actor: Actor, id: string, body: UpdateBody): Promise<AccountRow> {
  const given = Object.keys(body).filter((key) => body[key as keyof typeof body] !== undefined);
  if (actor.role === 'va') {
    const other = given.find((key) => !VA_FIELDS.has(key));
    if (other) throw new AppError(403, `A virtual assistant may update only followers and following, not ${other}`);
  }
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    const before = await findAccountForUpdate(tx, actor.workspaceId, id);
    if (!before) throw notFound();
    if (actor.role === 'va') {
      // A VA keeps the numbers of the accounts on the phone assigned to them.
      const device = before.deviceId ? await deviceAssignee(tx, before.deviceId) : undefined;
      if (device?.assignedToId !== actor.userId) throw new AppError(403, 'You can only update accounts on the device assigned to you');
    }
    const changes: Record<string, unknown> = {};
    for (const key of given) changes[key] = body[key as keyof typeof body];
    if (body.deviceId && body.deviceId !== before.deviceId) await assertRoomOnDevice(tx, actor, body.deviceId, before.platform as Platform, before.id);
    if (typeof body.profilePicture === 'string') {
      changes.profilePicture = body.profilePicture.startsWith('data:')
        ? await storeDataUrl(tx, ctx.storage, actor, body.profilePicture, 'profilePicture')
        : await resolveStoredObject(tx, actor.workspaceId, body.profilePicture, 'profilePicture');
    }
    if (body.profileImages) {
      if (before.platform === 'tinder' && (body.profileImages.length < 2 || body.profileImages.length > 6)) {
        throw new AppError(400, messages.tinderImages, [{ field: 'profileImages', message: messages.tinderImages }]);
      }
      changes.profileImages = await Promise.all(
        body.profileImages.map((url, index) => resolveStoredObject(tx, actor.workspaceId, url, `profileImages.${index}`)),
      );
    }
    if (body.status === 'warmup' && before.status !== 'warmup' && body.warmupStartDate === undefined) changes.warmupStartDate = new Date();
    // A person resuming a paused account clears why automation stopped; pausing it calls off its automation.
    if (body.status !== undefined && body.status !== 'paused') Object.assign(changes, { pausedCode: null, pausedMessage: null });
    const updated = given.length === 0 ? before : await updateAccount(tx, before.id, changes);
    outbox.add('account.updated', serialize(updated));
    if ((updated.status === 'paused' || updated.status === 'suspended') && before.status !== updated.status) {
      await cancelTasks(
        tx,
        { accountId: updated.id, automationOnly: true },
        { message: `@${updated.username} was ${updated.status}`, cause: 'change' },
        Outboxes.of(outbox),
      );
    }
    if (body.deviceId !== undefined && body.deviceId !== before.deviceId) await followAccount(tx, updated.id, updated.deviceId, outbox);
    if (updated.status !== before.status) await announceStatus(tx, actor, updated, outbox);
    return updated;
  });
}

/** Removes an account; its tasks are called off first (their phones told). */
export async function removeAccount(ctx: WriteContext, actor: Actor, id: string): Promise<void> {
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const target = await lockAccount(tx, actor.workspaceId, id);
    if (!target) throw notFound();
    await cancelTasks(tx, { accountId: target.id }, { message: 'The account was removed', cause: 'change' }, Outboxes.of(outbox));
    const removed = await deleteAccount(tx, actor.workspaceId, id);
    if (!removed) throw notFound();
    outbox.add('account.deleted', { id: removed.id });
    await outbox.record(
      { userId: actor.userId, action: `Account @${removed.username} (${removed.platform}) removed`, type: 'warning' },
      { action: 'account.deleted', entityType: 'account', entityId: removed.id },
    );
  });
}
