/**
 * One-time enrollment codes: issued for a device or a farm host, shown once, stored hashed, valid 15 minutes; a new
 * code voids the previous one; exchanged once for a long-lived credential (also stored hashed).
 */
import { randomBytes, randomInt } from 'node:crypto';
import { sql } from 'kysely';
import { ENROLLMENT_MINUTES } from '@farm/contracts';
import { hashToken } from '../../auth/auth.queries.ts';
import type { Tx } from '../../shared/types.ts';

/** Letters and digits that cannot be mistaken for one another when read aloud or typed from a screen. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** A code like `K7QM-3XRA`. */
export function newCode(): string {
  const chars = Array.from({ length: 8 }, () => ALPHABET[randomInt(ALPHABET.length)]!);
  return `${chars.slice(0, 4).join('')}-${chars.slice(4).join('')}`;
}

/** The code as it is stored: spaces and dashes dropped, upper case, hashed. */
export const codeHash = (code: string) => hashToken(code.replace(/[\s-]/g, '').toUpperCase());

export const newToken = (prefix: 'dev' | 'host') => `${prefix}_${randomBytes(24).toString('base64url')}`;

/** Issues a code for a device or a host, voiding any earlier one still unused. */
export async function issueCode(tx: Tx, workspaceId: string, target: { deviceId: string } | { hostId: string }, createdById: string) {
  const column = 'deviceId' in target ? 'deviceId' : 'hostId';
  const targetId = 'deviceId' in target ? target.deviceId : target.hostId;
  await tx
    .updateTable('enrollmentCodes')
    .set({ voidedAt: sql<Date>`now()` })
    .where(column, '=', targetId)
    .where('usedAt', 'is', null)
    .where('voidedAt', 'is', null)
    .execute();
  const code = newCode();
  const row = await tx
    .insertInto('enrollmentCodes')
    .values({
      workspaceId,
      deviceId: 'deviceId' in target ? target.deviceId : null,
      hostId: 'hostId' in target ? target.hostId : null,
      codeHash: codeHash(code),
      expiresAt: sql<Date>`now() + ${ENROLLMENT_MINUTES} * interval '1 minute'`,
      createdById,
    })
    .returning('expiresAt')
    .executeTakeFirstOrThrow();
  return { code, expiresAt: row.expiresAt };
}

export type Redemption =
  | { kind: 'device'; workspaceId: string; deviceId: string }
  | { kind: 'host'; workspaceId: string; hostId: string }
  | { kind: 'refused'; status: 404 | 410; reason: 'unknown' | 'used' | 'voided' | 'expired' | 'revoked' };

/** Takes the code for its one use: of two exchanges racing, one wins, the other is told it was used. */
export async function redeemCode(tx: Tx, code: string): Promise<Redemption> {
  const row = await tx
    .selectFrom('enrollmentCodes as c')
    .leftJoin('hosts as h', 'h.id', 'c.hostId')
    .select([
      'c.id',
      'c.workspaceId',
      'c.deviceId',
      'c.hostId',
      'c.usedAt',
      'c.voidedAt',
      'h.revokedAt as hostRevokedAt',
      sql<boolean>`c.expires_at < now()`.as('expired'),
    ])
    .where('c.codeHash', '=', codeHash(code))
    .forUpdate('c')
    .executeTakeFirst();
  if (!row) return { kind: 'refused', status: 404, reason: 'unknown' };
  if (row.usedAt) return { kind: 'refused', status: 410, reason: 'used' };
  if (row.voidedAt) return { kind: 'refused', status: 410, reason: 'voided' };
  if (row.expired) return { kind: 'refused', status: 410, reason: 'expired' };
  if (row.hostRevokedAt) return { kind: 'refused', status: 410, reason: 'revoked' };
  await tx.updateTable('enrollmentCodes').set({ usedAt: sql<Date>`now()` }).where('id', '=', row.id).execute();
  return row.deviceId
    ? { kind: 'device', workspaceId: row.workspaceId, deviceId: row.deviceId }
    : { kind: 'host', workspaceId: row.workspaceId, hostId: row.hostId! };
}

/** Another device of the workspace with this serial (a phone enrolled twice), if any. */
export function findSerialTwin(tx: Tx, workspaceId: string, deviceId: string, serial: string) {
  return tx
    .selectFrom('devices')
    .select('name')
    .where('workspaceId', '=', workspaceId)
    .where('serial', '=', serial)
    .where('id', '<>', deviceId)
    .executeTakeFirst();
}

/** Records what the agent told of its phone (serial, model, Android version); the device was found by its code. */
export async function setDeviceFacts(tx: Tx, deviceId: string, facts: { serial?: string; model?: string; androidVersion?: string }) {
  await tx.updateTable('devices').set(facts).where('id', '=', deviceId).execute();
}
