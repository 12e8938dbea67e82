/**
 * Who may do what: one table, deny by default. Every /api route names one of these access rules;
 * a route that names none is refused at start-up. Row-level rules (a VA works only their own tasks,
 * sessions and account stats) live in the services that own those rows.
 */
import type { Role } from '@farm/contracts';

export const policy = {
  /** Anyone, signed in or not. */
  public: 'anyone',
  /** Any signed-in person, even one without a workspace. */
  session: 'signed-in',
  'workspace.read': ['operator', 'va'],
  'workspace.manage': ['operator'],
  'users.manage': ['operator'],
  'invitations.manage': ['operator'],
  'devices.manage': ['operator'],
  'tasks.manage': ['operator'],
  'tasks.work': ['operator', 'va'],
  'sessions.work': ['operator', 'va'],
  'campaigns.manage': ['operator'],
  'routines.manage': ['operator'],
  'accounts.manage': ['operator'],
  'accounts.stats': ['operator', 'va'],
  'posts.write': ['operator', 'va'],
  'uploads.write': ['operator', 'va'],
  /** The recipe studio's Inspect captures (a VA: of the phones assigned to them, checked in the service). */
  'studio.work': ['operator', 'va'],
  /** Settings → Audit log. */
  'audit.read': ['operator'],
  /** Settings → Alerts: webhooks and their delivery log. */
  'alerts.manage': ['operator'],
} as const satisfies Record<string, 'anyone' | 'signed-in' | readonly Role[]>;

export type Access = keyof typeof policy;

export function roleMay(access: Access, role: Role): boolean {
  const rule = policy[access];
  if (rule === 'anyone' || rule === 'signed-in') return true;
  return (rule as readonly Role[]).includes(role);
}
