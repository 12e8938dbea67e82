/** Phones join: the transactions behind issuing a device's code and an agent redeeming one. */
import type { z } from 'zod';
import type { enrollBody } from '@farm/contracts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor, Db } from '../../shared/types.ts';
import { setHostToken } from './fleet.hosts.queries.ts';
import { findDevice } from '../devices/devices.queries.ts';
import { findSerialTwin, issueCode, newToken, redeemCode, setDeviceCredential, setDeviceFacts } from './fleet.enrollment.queries.ts';

/** A one-time code for the workspace's device. Not found: 404. */
export function issueDeviceCode(db: Db, actor: Actor, deviceId: string) {
  return db.transaction().execute(async (tx) => {
    if (!(await findDevice(tx, actor.workspaceId, deviceId))) throw notFound();
    return issueCode(tx, actor.workspaceId, { deviceId }, actor.userId);
  });
}

/**
 * Redeems an agent's code in one transaction: a host gets its token; a phone gets its credential, after its serial is
 * checked against the workspace's other devices (409) and its facts recorded. A refused code is returned, not thrown.
 */
export function enroll(db: Db, body: z.output<typeof enrollBody>) {
  return db.transaction().execute(async (tx) => {
    const redeemed = await redeemCode(tx, body.code);
    if (redeemed.kind === 'refused') return redeemed;
    if (redeemed.kind === 'host') {
      const token = newToken('host');
      await setHostToken(tx, redeemed.hostId, token);
      return { answer: { hostId: redeemed.hostId, token }, workspaceId: redeemed.workspaceId };
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
    return { answer: { deviceId: redeemed.deviceId, token: credential.token }, workspaceId: redeemed.workspaceId, deviceId: redeemed.deviceId };
  });
}
