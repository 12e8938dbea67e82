import { ActionIcon, Alert, AppShell, Box, Burger, Drawer, Group, Tooltip } from '@mantine/core';
import { useDisclosure, useHotkeys } from '@mantine/hooks';
import { IconInfoCircle, IconLayoutSidebarLeftCollapse, IconLayoutSidebarLeftExpand } from '@tabler/icons-react';
import { messages } from '@farm/contracts';
import { Suspense, useCallback, useEffect, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import { useCurrentUser } from '../../features/auth/auth.api';
import { SignInNotices } from '../../features/auth/components/SignInNotices';
import { Logo } from '../../shared/ui/Logo';
import { LoadingState } from '../../shared/ui/LoadingState';
import { useIsMobile } from '../../shared/ui/useIsMobile';
import { ConnectionBanner } from '../../shared/ui/ConnectionBanner';
import { ConnectionIndicator } from '../../shared/ui/ConnectionIndicator';
import { useConnectionStore } from '../realtime/connection.store';
import { RealtimeBridge } from '../realtime/RealtimeBridge';
import { readSidebarExpanded, writeSidebarExpanded } from './sidebar.state';
import { Sidebar } from './Sidebar';
import { ThemeToggle } from './ThemeToggle';

/** Screens a person without a workspace can still use: Settings, for their own profile (its parts say the rest). */
const workspaceFree = (pathname: string) => pathname === '/settings' || pathname.startsWith('/settings/');

/** The signed-in console: header, collapsible sidebar (a drawer below 768 px) and the current screen. */
export function ShellLayout() {
  const isMobile = useIsMobile();
  const [expanded, setExpanded] = useState(() => readSidebarExpanded());
  const [drawerOpened, { toggle: toggleDrawer, close: closeDrawer }] = useDisclosure(false);
  const { pathname } = useLocation();
  const me = useCurrentUser();

  const toggleSidebar = useCallback(() => {
    if (isMobile) {
      toggleDrawer();
      return;
    }
    writeSidebarExpanded(!expanded);
    setExpanded(!expanded);
  }, [isMobile, toggleDrawer, expanded]);

  useHotkeys([['mod+B', toggleSidebar]]);

  useEffect(() => {
    if (!isMobile) closeDrawer();
  }, [isMobile, closeDrawer]);

  const connection = useConnectionStore((state) => state.status);
  const downSince = useConnectionStore((state) => state.downSince);
  const live = Boolean(me?.workspaceId);

  const collapsed = !expanded;
  const withoutWorkspace = me !== undefined && me.workspaceId === null && !workspaceFree(pathname);

  return (
    <AppShell
      header={{ height: 56 }}
      // Phones get the drawer instead, so the links exist once in the page.
      navbar={isMobile ? undefined : { width: collapsed ? '3rem' : '16rem', breakpoint: 'sm' }}
      padding={{ base: 'sm', sm: 'lg' }}
    >
      {/* The socket only admits people with a workspace. */}
      {live ? <RealtimeBridge /> : null}
      <SignInNotices />
      <AppShell.Header>
        <Group h="100%" px="sm" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            {isMobile ? (
              <Burger opened={drawerOpened} onClick={toggleDrawer} size="sm" aria-label="Toggle navigation" />
            ) : (
              <Tooltip label={collapsed ? 'Expand sidebar (Ctrl+B)' : 'Collapse sidebar (Ctrl+B)'} withinPortal={false}>
                <ActionIcon variant="subtle" color="gray" size="lg" onClick={toggleSidebar} aria-label="Toggle sidebar" aria-expanded={expanded}>
                  {collapsed ? <IconLayoutSidebarLeftExpand size={20} /> : <IconLayoutSidebarLeftCollapse size={20} />}
                </ActionIcon>
              </Tooltip>
            )}
            <Logo />
          </Group>
          <Group gap="sm" wrap="nowrap">
            {live ? <ConnectionIndicator status={connection} /> : null}
            <ThemeToggle />
          </Group>
        </Group>
      </AppShell.Header>

      {isMobile ? (
        <Drawer.Root opened={drawerOpened} onClose={closeDrawer} size="18rem">
          <Drawer.Overlay />
          <Drawer.Content aria-label="Navigation">
            <Drawer.Body p={0} h="100dvh">
              <Sidebar collapsed={false} onNavigate={closeDrawer} />
            </Drawer.Body>
          </Drawer.Content>
        </Drawer.Root>
      ) : (
        <AppShell.Navbar aria-label="Sidebar">
          <Sidebar collapsed={collapsed} />
        </AppShell.Navbar>
      )}

      <AppShell.Main>
        <Box maw={1600} mx="auto" style={{ minWidth: 0 }}>
          {live ? <ConnectionBanner status={connection} downSince={downSince} /> : null}
          {withoutWorkspace ? (
            <Alert variant="light" color="blue" icon={<IconInfoCircle />} title="No workspace yet" role="status">
              {messages.noWorkspace}
            </Alert>
          ) : (
            <Suspense fallback={<LoadingState label="Loading..." />}>
              <Outlet />
            </Suspense>
          )}
        </Box>
      </AppShell.Main>
    </AppShell>
  );
}
