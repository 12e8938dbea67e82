/**
 * Two-factor sign-in: TOTP codes from an authenticator app (RFC 6238 through `otpauth`), a QR code to scan
 * (`qrcode`), and one-time recovery codes kept only as hashes. The TOTP secret is sealed (AES-256-GCM under a
 * key derived from the server's secret) so that a copy of the database alone does not give the codes away.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { TwoFactorSetup } from '@farm/contracts';
import type { Db } from '../shared/types.ts';
import { acceptStep, disableTwoFactor, enableTwoFactor, replaceRecoveryCodes, useRecoveryCode, type TwoFactorRow } from './two-factor.queries.ts';

const ISSUER = 'Phone Farm Console';
const PERIOD_SECONDS = 30;
/** Codes of the step before and after are accepted too: phones' clocks drift. */
const WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;

function keyOf(serverSecret: string): Buffer {
  return createHash('sha256').update(`two-factor:${serverSecret}`).digest();
}

/** The TOTP secret sealed for storage. */
export function sealSecret(secretBase32: string, serverSecret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(serverSecret), iv);
  const sealed = Buffer.concat([cipher.update(secretBase32, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
}

/** The TOTP secret back from storage; undefined when it was sealed under another server secret. */
export function openSecret(sealed: string, serverSecret: string): string | undefined {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || !data) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(serverSecret), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

function totpOf(secretBase32: string, label: string): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

/** A fresh secret and what an authenticator app needs to hold it. */
export async function newSetup(label: string): Promise<TwoFactorSetup & { secretBase32: string }> {
  const secret = new Secret({ size: 20 });
  const otpauthUrl = totpOf(secret.base32, label).toString();
  const qrCode = await QRCode.toDataURL(otpauthUrl, { errorCorrectionLevel: 'M', margin: 1, width: 220 });
  return { secret: secret.base32, secretBase32: secret.base32, otpauthUrl, qrCode };
}

/** The time step of a right code for `secretBase32`, or undefined. A step may be used once: the caller records it. */
export function codeStep(secretBase32: string, code: string, now = Date.now()): number | undefined {
  const digits = code.replace(/[\s-]/g, '');
  if (!/^\d{6}$/.test(digits)) return undefined;
  const delta = totpOf(secretBase32, 'check').validate({ token: digits, timestamp: now, window: WINDOW });
  if (delta === null) return undefined;
  return Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}

/** The current code of a secret: what an authenticator app shows now (used by tests and the demo). */
export function currentCode(secretBase32: string, now = Date.now()): string {
  return totpOf(secretBase32, 'now').generate({ timestamp: now });
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A recovery code as typed: case, spaces and dashes do not matter. */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

export function hashRecoveryCode(code: string): string {
  return createHash('sha256')
    .update(`recovery:${normaliseRecoveryCode(code)}`)
    .digest('hex');
}

/** Ten fresh codes like "k7m2p-q9xr4", to be shown once, and their hashes to keep. */
export function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
  return { codes, hashes: codes.map(hashRecoveryCode) };
}

/**
 * Checks a second factor of a person who has two-factor sign-in on: a code from their app (each time step once),
 * or an unused recovery code (each once). Answers which one it was, or undefined.
 */
export async function verifySecondFactor(
  db: Db,
  user: Pick<TwoFactorRow, 'id' | 'totpSecret'>,
  code: string,
  serverSecret: string,
  options: { appCodes: boolean } = { appCodes: true },
): Promise<'app' | 'recovery' | undefined> {
  // With app codes paused (too many wrong ones for this account), only a recovery code is looked at.
  const secret = options.appCodes && user.totpSecret ? openSecret(user.totpSecret, serverSecret) : undefined;
  if (secret) {
    const step = codeStep(secret, code);
    if (step !== undefined) return (await acceptStep(db, user.id, step)) ? 'app' : undefined;
  }
  if (/^[a-z0-9]{10}$/.test(normaliseRecoveryCode(code)) && (await useRecoveryCode(db, user.id, hashRecoveryCode(code)))) return 'recovery';
  return undefined;
}

/**
 * Turns two-factor on with the secret being set up and its first accepted step, and stores the new recovery codes,
 * in one transaction. Answers false when the setup was no longer pending (a parallel confirmation won).
 */
export function enableWithRecoveryCodes(db: Db, userId: string, pendingSecret: string, step: number, codeHashes: string[]): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    if (!(await enableTwoFactor(tx, userId, pendingSecret, step))) return false;
    await replaceRecoveryCodes(tx, userId, codeHashes);
    return true;
  });
}

/** The person's recovery codes, all made anew. */
export async function renewRecoveryCodes(db: Db, userId: string, codeHashes: string[]): Promise<void> {
  await db.transaction().execute((tx) => replaceRecoveryCodes(tx, userId, codeHashes));
}

export async function turnOffTwoFactor(db: Db, userId: string): Promise<void> {
  await db.transaction().execute((tx) => disableTwoFactor(tx, userId));
}
