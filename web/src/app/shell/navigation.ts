import {
  IconActivity,
  IconAddressBook,
  IconChartBar,
  IconDeviceMobile,
  IconLayoutDashboard,
  IconListCheck,
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

/** The sidebar, identical for both roles (SPEC §2 and §6). */
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
      { label: 'Live Monitor', href: '/monitor', icon: IconActivity },
      { label: 'Analytics', href: '/analytics', icon: IconChartBar },
    ],
  },
  {
    label: 'System',
    items: [{ label: 'Settings', href: '/settings', icon: IconSettings }],
  },
];

export function isActivePath(pathname: string, href: string): boolean {
  return pathname === href || pathname.startsWith(`${href}/`);
}
