/**
 * Secret tokens at rest: a session's, a phone's or a host's credential, a wall link's, a reset link's. Only their
 * hash is stored, so a copy of the database signs nobody in; a token is 32 random bytes, so one round of SHA-256 is
 * enough (nothing to guess, unlike a password).
 */
import { createHash, randomBytes } from 'node:crypto';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new token and the hash that is stored of it. */
export function newToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashToken(token) };
}
