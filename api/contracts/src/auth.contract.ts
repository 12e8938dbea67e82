import { z } from 'zod';
import { id, isoTime, timeZone } from './common.ts';
import { messages } from './messages.ts';
import { whenMissing } from './sentences.ts';

export const roleValues = ['operator', 'va'] as const;
export const role = z.enum(roleValues);
export type Role = z.infer<typeof role>;
export const roleLabels: Record<Role, string> = { operator: 'Grid Operator', va: 'Virtual Assistant' };

const email = z
  .string({ error: whenMissing('Email is required') })
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: 'Email must be a valid email address' }));
const password = z
  .string({ error: whenMissing('Password is required') })
  .min(8, { message: 'Password must be at least 8 characters' })
  .max(256);

export const signupBody = z.object({
  email,
  password,
  name: z
    .string({ error: whenMissing('Name is required') })
    .trim()
    .min(1, { message: 'Name is required' })
    .max(120),
  role: z.enum(roleValues, {
    error: (issue) => (issue.input === undefined ? messages.roleRequired : 'Role must be operator or va'),
  }),
  inviteToken: z.string().max(200).optional(),
  /** The browser's zone: a new workspace counts its days in it. */
  timeZone: timeZone.optional(),
});
export type SignupBody = z.input<typeof signupBody>;

export const loginBody = z.object({
  email: z.string().trim().toLowerCase().min(1, { message: 'Email is required' }).max(254),
  password: z.string().min(1, { message: 'Password is required' }).max(256),
});
export type LoginBody = z.infer<typeof loginBody>;

/** A person as others in the workspace see them: never a password hash or a session. */
export const user = z.object({
  id,
  email: z.string(),
  name: z.string(),
  role,
  isActive: z.boolean(),
  createdAt: isoTime,
  /**
   * In the member list: whether resets treat this person as an operator (one now, or one in the last
   * OPERATOR_RESET_DAYS), so a reset takes a second operator's approval.
   */
  resetsAsOperator: z.boolean().optional(),
});
export type User = z.infer<typeof user>;

/** The signed-in person, with their workspace (null for a VA who signed up without an invitation). */
export const me = user.extend({
  workspaceId: id.nullable(),
  workspaceName: z.string().nullable(),
});
export type Me = z.infer<typeof me>;
export const userResponse = z.object({ user: me });

export const appConfig = z.object({
  demo: z.boolean(),
  demoCredentials: z.object({ email: z.string(), password: z.string() }).nullable(),
});
export type AppConfig = z.infer<typeof appConfig>;

export const updateMeBody = z
  .object({
    name: z.string().trim().min(1, { message: 'Name is required' }).max(120).optional(),
    currentPassword: z.string().max(256).optional(),
    password: password.optional(),
  })
  .refine((body) => body.password === undefined || body.currentPassword !== undefined, {
    message: 'Current password is required to change the password',
    path: ['currentPassword'],
  });

export const updateUserBody = z.object({
  role: role.optional(),
  isActive: z.boolean().optional(),
});

/** How long a workspace keeps its history: screenshots by age and count per phone, activity and finished tasks by age. */
/** A whole number in a range, every refusal in one sentence naming what it is about. */
const kept = (whole: string, range: string, min: number, max: number) =>
  z.number({ message: whole }).int({ message: whole }).min(min, { message: range }).max(max, { message: range });
export const retentionSettings = z.object({
  screenshotsDays: kept('Screenshots are kept a whole number of days', 'Screenshots are kept 1 to 3650 days', 1, 3650),
  screenshotsPerDevice: kept('Screenshots per phone is a whole number', 'Keep 10 to 100000 screenshots per phone', 10, 100_000),
  activityDays: kept('Activity is kept a whole number of days', 'Activity is kept 7 to 3650 days', 7, 3650),
  finishedTasksDays: kept('Finished tasks are kept a whole number of days', 'Finished tasks are kept 7 to 3650 days', 7, 3650),
});
export type RetentionSettings = z.infer<typeof retentionSettings>;

export const workspace = z.object({
  id,
  name: z.string(),
  timeZone: z.string(),
  createdAt: isoTime,
  requireTwoFactor: z.boolean(),
  retention: retentionSettings,
});
export const updateWorkspaceBody = z.object({
  name: z.string().trim().min(1, { message: 'Name is required' }).max(120),
  timeZone: timeZone.optional(),
});

export const invitation = z.object({
  id,
  role,
  email: z.string().nullable(),
  expiresAt: isoTime,
  acceptedAt: isoTime.nullable(),
  createdAt: isoTime,
  status: z.enum(['pending', 'accepted', 'expired']),
});
export type Invitation = z.infer<typeof invitation>;
export const createInvitationBody = z.object({
  role: role.default('va'),
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254)
    .pipe(z.email({ message: 'Email must be a valid email address' }))
    .optional(),
});
/** Only the creation answer carries the token: it is stored hashed. */
export const createdInvitation = z.object({
  invitation: z.object({ id, token: z.string(), url: z.string(), role, expiresAt: isoTime }),
});
export const invitationPreview = z.object({
  workspaceName: z.string(),
  role,
  email: z.string().nullable(),
  expiresAt: isoTime,
});
export type InvitationPreview = z.infer<typeof invitationPreview>;
