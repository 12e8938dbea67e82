/**
 * Settings' parts: each section of what was one long page at an address of its own (/settings/<slug>), who may open
 * it, and where the old one-page anchors (`/settings#<section>-title`) lead now. Each part is its own chunk, loaded
 * when it is opened. The app library and the recipes moved out to where operators work: Devices → Apps and
 * Campaigns → Recipes.
 */
import type { Me } from '@farm/contracts';
import {
  IconBell,
  IconBuilding,
  IconDatabase,
  IconDeviceDesktop,
  IconDeviceTv,
  IconDevices,
  IconHistory,
  IconMailForward,
  IconShieldLock,
  IconUser,
  IconUsers,
  IconWebhook,
  type Icon,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { lazyNamed } from '../../shared/lazy';

const ProfileSection = lazyNamed(() => import('./components/ProfileSection'), 'ProfileSection');
const TwoFactorSection = lazyNamed(() => import('./components/TwoFactorSection'), 'TwoFactorSection');
const SessionsSection = lazyNamed(() => import('./components/SessionsSection'), 'SessionsSection');
const WorkspaceSection = lazyNamed(() => import('./components/WorkspaceSection'), 'WorkspaceSection');
const MembersSection = lazyNamed(() => import('./components/MembersSection'), 'MembersSection');
const InvitationsSection = lazyNamed(() => import('./components/InvitationsSection'), 'InvitationsSection');
const PhoneHostsSection = lazyNamed(() => import('../fleet/hosts/PhoneHostsSection'), 'PhoneHostsSection');
const WallLinksSection = lazyNamed(() => import('./components/WallLinksSection'), 'WallLinksSection');
const StorageSection = lazyNamed(() => import('./components/StorageSection'), 'StorageSection');
const NotificationsSection = lazyNamed(() => import('./components/NotificationsSection'), 'NotificationsSection');
const AlertsSection = lazyNamed(() => import('./components/AlertsSection'), 'AlertsSection');
const AuditLogSection = lazyNamed(() => import('./components/AuditLogSection'), 'AuditLogSection');

/** Who sees a part: anyone signed in, any member of a workspace, or its operators only. */
export type PartAccess = 'everyone' | 'member' | 'operator';

export interface SettingsPart {
  slug: string;
  label: string;
  icon: Icon;
  access: PartAccess;
  /** The ids the one-page Settings gave this part's headings, which old links end with. */
  anchors: readonly string[];
  render: (me: Me) => ReactNode;
}

/** In the order of the old page; the first one anyone may open is where /settings leads. */
export const settingsParts: readonly SettingsPart[] = [
  { slug: 'profile', label: 'Profile', icon: IconUser, access: 'everyone', anchors: ['profile-title'], render: (me) => <ProfileSection me={me} /> },
  {
    slug: 'two-factor',
    label: 'Two-factor sign-in',
    icon: IconShieldLock,
    access: 'everyone',
    anchors: ['two-factor-title'],
    render: () => <TwoFactorSection />,
  },
  { slug: 'sessions', label: 'Sessions', icon: IconDeviceDesktop, access: 'everyone', anchors: ['sessions-title'], render: () => <SessionsSection /> },
  {
    slug: 'workspace',
    label: 'Workspace',
    icon: IconBuilding,
    access: 'member',
    anchors: ['workspace-title', 'retention-title'],
    render: (me) => <WorkspaceSection canManage={me.role === 'operator'} />,
  },
  { slug: 'members', label: 'Members', icon: IconUsers, access: 'member', anchors: ['members-title'], render: (me) => <MembersSection me={me} /> },
  {
    slug: 'invitations',
    label: 'Invitations',
    icon: IconMailForward,
    access: 'operator',
    anchors: ['invitations-title'],
    render: () => <InvitationsSection />,
  },
  { slug: 'hosts', label: 'Phone hosts', icon: IconDevices, access: 'operator', anchors: ['phone-hosts-title'], render: () => <PhoneHostsSection /> },
  { slug: 'wall-links', label: 'Wall screens', icon: IconDeviceTv, access: 'operator', anchors: ['wall-links-title'], render: () => <WallLinksSection /> },
  { slug: 'storage', label: 'Storage', icon: IconDatabase, access: 'operator', anchors: ['storage-title'], render: () => <StorageSection /> },
  { slug: 'notifications', label: 'Notifications', icon: IconBell, access: 'member', anchors: ['notifications-title'], render: () => <NotificationsSection /> },
  { slug: 'alerts', label: 'Alerts', icon: IconWebhook, access: 'operator', anchors: ['alerts-title'], render: () => <AlertsSection /> },
  { slug: 'audit-log', label: 'Audit log', icon: IconHistory, access: 'operator', anchors: ['audit-title'], render: () => <AuditLogSection /> },
];

/** Old anchors of sections that left Settings, and where they are now. */
const movedOut: Readonly<Record<string, string>> = {
  'apps-title': '/devices/apps',
  'recipes-title': '/campaigns/recipes',
  'recipe-health-title': '/campaigns/recipes',
};

export const partPath = (part: SettingsPart) => `/settings/${part.slug}`;

/** The role may open the part (a part it may not is not in its nav, and its address reads 'Page Not Found'). */
export function roleMayOpen(part: SettingsPart, me: Pick<Me, 'role'>): boolean {
  return part.access !== 'operator' || me.role === 'operator';
}

/** The parts in this person's nav: those their role may open, the workspace's only for a member of one. */
export function partsFor(me: Pick<Me, 'role' | 'workspaceId'>): SettingsPart[] {
  return settingsParts.filter((part) => roleMayOpen(part, me) && (part.access === 'everyone' || me.workspaceId !== null));
}

/** Where `/settings` with this hash leads: an old anchor's new place, else the first part (open to anyone). */
export function settingsTarget(hash: string): string {
  const anchor = hash.replace(/^#/, '');
  const moved = movedOut[anchor];
  if (moved) return moved;
  const part = settingsParts.find((candidate) => candidate.anchors.includes(anchor)) ?? settingsParts[0];
  return part ? partPath(part) : '/settings/profile';
}
