/**
 * Phones join: a one-time code issued for a device or a farm host, and an agent redeeming one for its credential.
 * Each is one write: a code's in the operator's workspace, a redemption's across workspaces (the code names its
 * workspace only once it is read).
 */
import type { z } from 'zod';
import type { enrollBody } from '@farm/contracts';
import type { Agents } from '../../agents/agents.socket.ts';
import { AppError, notFound } from '../../errors.ts';
import { write, writeAcross, type WriteContext } from '../../events/write.ts';
import type { Actor, Tx } from '../../shared/types.ts';
import { findDevice } from '../devices/devices.queries.ts';
import { setDeviceCredential } from './fleet.agent-link.queries.ts';
import { findSerialTwin, issueCode, newToken, redeemCode, setDeviceFacts } from './fleet.enrollment.queries.ts';
import { findHost, setHostToken } from './fleet.hosts.queries.ts';

/** What an agent is told when its code cannot be used. */
const refusals = {
  unknown: 'This enrollment code is not known. Check it, or ask an operator for a new one.',
  used: 'This enrollment code was already used. Ask an operator for a new one.',
  voided: 'A newer enrollment code replaced this one. Use the newest code.',
  expired: 'This enrollment code has expired (codes last 15 minutes). Ask an operator for a new one.',
  revoked: 'This phone host was revoked. Ask an operator to add it again.',
} as const;

/** A one-time code for the workspace's device. Not found: 404. */
export function issueDeviceCode(ctx: WriteContext, actor: Actor, deviceId: string) {
  return write(ctx, actor.workspaceId, async (tx) => {
    if (!(await findDevice(tx, actor.workspaceId, deviceId))) throw notFound();
    return issueCode(tx, actor.workspaceId, { deviceId }, actor.userId);
  });
}

/** A new code for the workspace's host (the last one expired, or the PC was reinstalled). Not found or revoked: 404. */
export function issueHostCode(ctx: WriteContext, actor: Actor, hostId: string) {
  return write(ctx, actor.workspaceId, async (tx) => {
    const target = await findHost(tx, actor.workspaceId, hostId);
    if (!target || target.revokedAt) throw notFound();
    return issueCode(tx, actor.workspaceId, { hostId: target.id }, actor.userId);
  });
}

/**
 * Redeems an agent's code: a host gets its token; a phone gets its credential, after its serial is checked against
 * the workspace's other devices (409) and its facts recorded, and the connection of its old credential closes. A code
 * that cannot be used is refused (404, 410) with what the agent is told. Answers what the agent is given.
 */
export async function enroll(ctx: WriteContext & { agents?: Agents | undefined }, body: z.output<typeof enrollBody>) {
  const result = await writeAcross(ctx, (tx) => redeem(tx, body));
  // A phone enrolled again replaces the connection of its old credential.
  if (result.deviceId) ctx.agents?.disconnect(result.deviceId);
  return result.answer;
}

/** `enroll`'s write: answers the device whose old connection should close, if a phone enrolled. */
async function redeem(tx: Tx, body: z.output<typeof enrollBody>) {
  const redeemed = await redeemCode(tx, body.code);
  if (redeemed.kind === 'refused') {
    const message = refusals[redeemed.reason];
    throw new AppError(redeemed.status, message, [{ field: 'code', message }]);
  }
  if (redeemed.kind === 'host') {
    const token = newToken('host');
    await setHostToken(tx, redeemed.hostId, token);
    return { answer: { hostId: redeemed.hostId, token }, deviceId: undefined };
  }
  if (body.serial) {
    const twin = await findSerialTwin(tx, redeemed.workspaceId, redeemed.deviceId, body.serial);
    if (twin)
      throw new AppError(409, `This phone (serial ${body.serial}) is already the device "${twin.name}"`, [
        { field: 'serial', message: 'Another device has this serial' },
      ]);
  }
  const facts = {
    ...(body.serial ? { serial: body.serial } : {}),
    ...(body.model ? { model: body.model } : {}),
    ...(body.androidVersion ? { androidVersion: body.androidVersion } : {}),
  };
  if (Object.keys(facts).length > 0) await setDeviceFacts(tx, redeemed.deviceId, facts);
  const credential = await setDeviceCredential(tx, redeemed.workspaceId, redeemed.deviceId);
  return { answer: { deviceId: redeemed.deviceId, token: credential.token }, deviceId: redeemed.deviceId };
}
