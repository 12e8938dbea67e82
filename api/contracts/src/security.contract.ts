/** Two-factor sign-in, its login step, and password reset links: the shapes web and api share. */
import { z } from 'zod';
import { isoTime } from './common.ts';
import { me } from './auth.contract.ts';

/** A TOTP code (6 digits) or a recovery code (xxxxx-xxxxx), as typed: spaces and dashes are forgiven. */
const code = z
  .string({ error: (issue) => (issue.input === undefined ? 'Code is required' : undefined) })
  .trim()
  .min(1, { message: 'Code is required' })
  .max(32);
const password = z.string({ error: (issue) => (issue.input === undefined ? 'Password is required' : undefined) }).max(256);
const newPassword = z
  .string({ error: (issue) => (issue.input === undefined ? 'Password is required' : undefined) })
  .min(8, { message: 'Password must be at least 8 characters' })
  .max(256);
const token = z.string().trim().min(1).max(200);

/**
 * The answer to a right password when a second step is due: `code` asks for a code from the authenticator app
 * (or a recovery code); `setup` means the workspace requires two-factor sign-in and this person must set it up now.
 */
export const twoFactorChallenge = z.object({ twoFactor: z.enum(['code', 'setup']), challenge: z.string() });
export type TwoFactorChallenge = z.infer<typeof twoFactorChallenge>;
export const loginResponse = z.union([z.object({ user: me }), twoFactorChallenge]);
export type LoginResponse = z.infer<typeof loginResponse>;
/**
 * A signup: the new person signed in, or, joining as an operator a workspace that requires two-factor sign-in,
 * the setup step (no session until it is done).
 */
export const signupResponse = z.union([z.object({ user: me }), twoFactorChallenge]);
export type SignupResponse = z.infer<typeof signupResponse>;

export const loginCodeBody = z.object({ challenge: token, code });
export const loginSetupBody = z.object({ challenge: token });
/** A completed login; recovery codes come only when two-factor sign-in was set up in this step, to be shown once. */
export const loginCodeResponse = z.object({ user: me, recoveryCodes: z.array(z.string()).optional() });

export const twoFactorStatus = z.object({
  enabled: z.boolean(),
  /** The workspace requires it of this person (an operator of a workspace that turned the rule on). */
  required: z.boolean(),
  recoveryCodesLeft: z.number().int(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatus>;

/** What an authenticator app needs: the secret as text, as an otpauth:// link, and as a QR code image (data URL). */
export const twoFactorSetup = z.object({ secret: z.string(), otpauthUrl: z.string(), qrCode: z.string() });
export type TwoFactorSetup = z.infer<typeof twoFactorSetup>;
export const enableTwoFactorBody = z.object({ code });
export const disableTwoFactorBody = z.object({ password, code });
export const regenerateRecoveryCodesBody = z.object({ code });
/** One-time recovery codes, shown once: only their hashes are kept. */
export const recoveryCodesResponse = z.object({ recoveryCodes: z.array(z.string()) });

export const workspaceTwoFactorBody = z.object({ required: z.boolean({ error: 'Required must be true or false' }) });
export const workspaceTwoFactor = z.object({ required: z.boolean() });

export const PASSWORD_RESET_HOURS = 1;
/** A member demoted from operator counts as one for password resets this many days after. */
export const OPERATOR_RESET_DAYS = 30;
/** A password reset link for a member; only this answer carries its token. */
export const createdPasswordReset = z.object({ url: z.string(), token: z.string(), expiresAt: isoTime });
export type CreatedPasswordReset = z.infer<typeof createdPasswordReset>;
export const passwordResetPreview = z.object({ name: z.string(), email: z.string(), expiresAt: isoTime });
export type PasswordResetPreview = z.infer<typeof passwordResetPreview>;
export const passwordResetBody = z.object({ token, password: newPassword });
export type PasswordResetBody = z.input<typeof passwordResetBody>;

/** A notice for the signed-in person about their sign-in (codes refused, a reset made for them), shown once. */
export const signInNotice = z.object({ id: z.string(), kind: z.string(), message: z.string(), createdAt: isoTime });
export type SignInNotice = z.infer<typeof signInNotice>;
/** `GET /api/auth/me`: the person, and the notices they have not yet seen. */
export const meResponse = z.object({ user: me, notices: z.array(signInNotice) });
export type MeResponse = z.infer<typeof meResponse>;
export const noticesSeenBody = z.object({
  ids: z
    .array(z.uuid({ message: 'Notice is not known' }))
    .min(1)
    .max(100),
});

/** A signed-in browser of the person: what it said it was, from where, and when it was last used. */
export const authSession = z.object({
  id: z.string(),
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
  createdAt: isoTime,
  lastSeenAt: isoTime,
  /** The session this request came with. */
  current: z.boolean(),
});
export type AuthSession = z.infer<typeof authSession>;

/** Resets of an operator's password take two operators: a request waits (24 hours) for a different one's approval. */
export const PASSWORD_RESET_REQUEST_HOURS = 24;
export const passwordResetRequest = z.object({
  id: z.string(),
  userId: z.string(),
  userName: z.string(),
  requestedById: z.string(),
  requestedByName: z.string(),
  createdAt: isoTime,
  expiresAt: isoTime,
});
export type PasswordResetRequest = z.infer<typeof passwordResetRequest>;
