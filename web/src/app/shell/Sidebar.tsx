import { Box, NavLink, ScrollArea, Stack, Text, Tooltip } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import { useAuthStore } from '../../features/auth/auth.store';
import { useCurrentUser } from '../../features/auth/auth.api';
import { isActivePath, navigation } from './navigation';
import { UserMenu } from './UserMenu';

export interface SidebarProps {
  /** Icon mode: 3rem wide, labels in tooltips. */
  collapsed: boolean;
  /** Called after a link is followed, so the mobile drawer can close. */
  onNavigate?: () => void;
}

export function Sidebar({ collapsed, onNavigate }: SidebarProps) {
  const { pathname } = useLocation();
  const me = useCurrentUser();
  const storedRole = useAuthStore((state) => state.user?.role);
  const role = me?.role ?? storedRole;
  const caption = role === 'va' ? 'VA Portal' : 'Grid Admin';

  return (
    <Stack h="100%" gap={0}>
      <Box px={collapsed ? 0 : 'md'} pt="md" pb="xs" ta={collapsed ? 'center' : undefined}>
        {collapsed ? null : (
          <Text size="sm" fw={700} c="blue">
            {caption}
          </Text>
        )}
      </Box>
      <ScrollArea flex={1} type="hover" scrollbarSize={6}>
        <nav aria-label="Main navigation">
          {navigation.map((group) => (
            <Box key={group.label} mb="md" px={collapsed ? 4 : 'sm'}>
              {collapsed ? null : (
                <Text size="xs" fw={600} c="dimmed" tt="uppercase" px="xs" mb={4}>
                  {group.label}
                </Text>
              )}
              <Stack gap={2} component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
                {group.items.map((item) => {
                  const active = isActivePath(pathname, item.href);
                  const Icon = item.icon;
                  const link = (
                    <NavLink
                      component={Link}
                      to={item.href}
                      onClick={onNavigate}
                      active={active}
                      aria-current={active ? 'page' : undefined}
                      aria-label={collapsed ? item.label : undefined}
                      label={collapsed ? null : item.label}
                      leftSection={<Icon size={20} stroke={1.6} aria-hidden />}
                      px={collapsed ? 10 : 'xs'}
                      style={{ borderRadius: 'var(--mantine-radius-md)' }}
                    />
                  );
                  return (
                    <li key={item.href}>
                      {collapsed ? (
                        <Tooltip label={item.label} position="right">
                          {link}
                        </Tooltip>
                      ) : (
                        link
                      )}
                    </li>
                  );
                })}
              </Stack>
            </Box>
          ))}
        </nav>
      </ScrollArea>
      <Box p={collapsed ? 4 : 'sm'} style={{ borderTop: '1px solid var(--app-shell-border-color)' }}>
        <UserMenu compact={collapsed} onNavigate={onNavigate} />
      </Box>
    </Stack>
  );
}
