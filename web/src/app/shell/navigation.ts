import {
  IconActivity,
  IconAddressBook,
  IconChartBar,
  IconDeviceMobile,
  IconLayoutDashboard,
  IconListCheck,
  IconListDetails,
  IconPhoto,
  IconRocket,
  IconSettings,
  IconUsers,
  type Icon,
} from '@tabler/icons-react';

export interface NavItem {
  label: string;
  href: string;
  icon: Icon;
}

export interface NavGroup {
  label: string;
  items: readonly NavItem[];
}

/** The sidebar, identical for both roles (SPEC §2 and §6), plus My Tasks for pushed work. */
export const navigation: readonly NavGroup[] = [
  {
    label: 'Operations',
    items: [
      { label: 'Dashboard', href: '/dashboard', icon: IconLayoutDashboard },
      { label: 'Campaigns', href: '/campaigns', icon: IconRocket },
      { label: 'Content', href: '/content', icon: IconPhoto },
      { label: 'Accounts', href: '/accounts', icon: IconAddressBook },
      { label: 'Devices', href: '/devices', icon: IconDeviceMobile },
      { label: 'Virtual Assistants', href: '/vas', icon: IconUsers },
      { label: 'Tasks', href: '/tasks', icon: IconListCheck },
      // Anyone can be given a task (VAs mostly, operators too), so the entry is there for both roles.
      { label: 'My Tasks', href: '/tasks/mine', icon: IconListDetails },
      { label: 'Live Monitor', href: '/monitor', icon: IconActivity },
      { label: 'Analytics', href: '/analytics', icon: IconChartBar },
    ],
  },
  {
    label: 'System',
    items: [{ label: 'Settings', href: '/settings', icon: IconSettings }],
  },
];

function matchesPath(pathname: string, href: string): boolean {
  return pathname === href || pathname.startsWith(`${href}/`);
}

const allHrefs = navigation.flatMap((group) => group.items.map((item) => item.href));

/** The entry for this path: the one with the longest matching href (/tasks/mine is My Tasks, not Tasks). */
export function isActivePath(pathname: string, href: string): boolean {
  if (!matchesPath(pathname, href)) return false;
  return !allHrefs.some((other) => other.length > href.length && matchesPath(pathname, other));
}
