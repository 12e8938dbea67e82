/**
 * Settings (/settings/<part>): its own navigation beside the part that is open (a column on a desktop, a row of
 * links on a phone). /settings, and the one-page Settings' old `#…-title` links, lead to their part's address.
 */
import { Alert, Box, Group, Stack } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { messages, type Me } from '@farm/contracts';
import { Suspense } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { LoadingState } from '../../shared/ui/LoadingState';
import { NotFoundInShell } from '../../shared/ui/NotFound';
import { PageHeader } from '../../shared/ui/PageHeader';
import { SubNav } from '../../shared/ui/SubNav';
import { useIsMobile } from '../../shared/ui/useIsMobile';
import { useCurrentUser } from '../auth/auth.api';
import { partPath, partsFor, roleMayOpen, settingsParts, settingsTarget, type SettingsPart } from './settings.parts';

export function SettingsPage() {
  const me = useCurrentUser();
  if (!me) return null;
  return (
    <Routes>
      <Route index element={<SettingsIndex />} />
      {settingsParts.map((part) => (
        <Route key={part.slug} path={part.slug} element={roleMayOpen(part, me) ? <SettingsPartPage part={part} me={me} /> : <NotFoundInShell />} />
      ))}
      <Route path="*" element={<NotFoundInShell />} />
    </Routes>
  );
}

function SettingsIndex() {
  const { hash } = useLocation();
  return <Navigate to={settingsTarget(hash)} replace />;
}

const noWorkspace = (
  <Alert variant="light" color="blue" icon={<IconInfoCircle />} title="No workspace yet">
    {messages.noWorkspace}
  </Alert>
);

function SettingsPartPage({ part, me }: { part: SettingsPart; me: Me }) {
  const isMobile = useIsMobile();
  const inWorkspace = me.workspaceId !== null;
  const nav = <SubNav label="Settings" items={partsFor(me).map((item) => ({ label: item.label, to: partPath(item), icon: item.icon }))} vertical={!isMobile} />;
  const content = (
    <Stack gap="lg" maw={960} style={{ flex: 1, minWidth: 0 }}>
      {part.access === 'everyone' || inWorkspace ? <Suspense fallback={<LoadingState label="Loading..." />}>{part.render(me)}</Suspense> : null}
      {inWorkspace ? null : noWorkspace}
    </Stack>
  );

  return (
    <>
      <PageHeader title="Settings" subtitle="Manage your profile and workspace" />
      {isMobile ? (
        <>
          {nav}
          {content}
        </>
      ) : (
        <Group align="flex-start" gap="lg" wrap="nowrap">
          <Box w={220} style={{ flex: 'none', position: 'sticky', top: 'calc(var(--app-shell-header-height, 56px) + var(--mantine-spacing-md))' }}>
            {nav}
          </Box>
          {content}
        </Group>
      )}
    </>
  );
}
