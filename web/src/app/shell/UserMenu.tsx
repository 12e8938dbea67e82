import { Avatar, Group, Menu, Text, UnstyledButton } from '@mantine/core';
import { IconChevronRight, IconLogout, IconSettings, IconUser } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { useCurrentUser, useLogout } from '../../features/auth/auth.api';
import { useAuthStore } from '../../features/auth/auth.store';
import { initials } from '../../shared/format';

/** The signed-in person at the foot of the sidebar, with Settings and Log out. */
export function UserMenu({ compact, onNavigate }: { compact: boolean; onNavigate?: () => void }) {
  const me = useCurrentUser();
  const stored = useAuthStore((state) => state.user);
  const name = me?.name ?? stored?.name ?? '';
  const email = me?.email ?? stored?.email ?? '';
  const navigate = useNavigate();
  const logout = useLogout();

  const signOut = () => {
    onNavigate?.();
    logout.mutate(undefined, { onSettled: () => void navigate('/login', { replace: true }) });
  };

  return (
    <Menu position={compact ? 'right-end' : 'top-end'} width={220} withinPortal>
      <Menu.Target>
        <UnstyledButton
          aria-label={compact ? `Account menu for ${name}` : undefined}
          p={compact ? 4 : 'xs'}
          w="100%"
          style={{ borderRadius: 'var(--mantine-radius-md)' }}
        >
          <Group gap="sm" wrap="nowrap" justify={compact ? 'center' : 'flex-start'}>
            {/* Icon mode shows a plain avatar so the button's only text is its label. */}
            <Avatar color="blue" radius="xl" size={compact ? 32 : 36}>
              {compact ? <IconUser size={18} aria-hidden /> : initials(name)}
            </Avatar>
            {compact ? null : (
              <>
                <div style={{ flex: 1, minWidth: 0 }}>
                  <Text size="sm" fw={600} truncate="end">
                    {name}
                  </Text>
                  <Text size="xs" c="dimmed" truncate="end">
                    {email}
                  </Text>
                </div>
                <IconChevronRight size={16} aria-hidden />
              </>
            )}
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{email}</Menu.Label>
        <Menu.Item
          leftSection={<IconSettings size={16} />}
          onClick={() => {
            onNavigate?.();
            void navigate('/settings');
          }}
        >
          Settings
        </Menu.Item>
        <Menu.Item color="red" leftSection={<IconLogout size={16} />} onClick={signOut} disabled={logout.isPending}>
          Log out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
