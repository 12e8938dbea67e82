/**
 * A screen's own navigation: links to its parts, each with its own address, the current one marked. Across the top
 * (a screen's tabs, or Settings on a phone, scrolling sideways) or as a column (Settings beside its part).
 */
import { Box, Group, NavLink, Stack } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';
import { Link, useLocation } from 'react-router';

export interface SubNavItem {
  label: string;
  to: string;
  icon?: Icon;
}

export interface SubNavProps {
  /** The navigation's accessible name. */
  label: string;
  items: readonly SubNavItem[];
  vertical?: boolean;
}

export function SubNav({ label, items, vertical = false }: SubNavProps) {
  const { pathname } = useLocation();
  const links = items.map((item) => {
    const active = pathname === item.to;
    const Icon = item.icon;
    return (
      <Box component="li" key={item.to} style={vertical ? undefined : { flex: 'none' }}>
        <NavLink
          component={Link}
          to={item.to}
          label={item.label}
          active={active}
          aria-current={active ? 'page' : undefined}
          {...(Icon ? { leftSection: <Icon size={18} stroke={1.6} aria-hidden /> } : {})}
          style={{ borderRadius: 'var(--mantine-radius-md)', whiteSpace: 'nowrap' }}
        />
      </Box>
    );
  });

  if (vertical) {
    return (
      <Box component="nav" aria-label={label}>
        <Stack component="ul" gap={2} m={0} p={0} style={{ listStyle: 'none' }}>
          {links}
        </Stack>
      </Box>
    );
  }
  return (
    <Box component="nav" aria-label={label} mb="md" pb={4} style={{ borderBottom: '1px solid var(--mantine-color-default-border)', overflowX: 'auto' }}>
      <Group component="ul" gap={4} wrap="nowrap" m={0} p={0} style={{ listStyle: 'none' }}>
        {links}
      </Group>
    </Box>
  );
}
