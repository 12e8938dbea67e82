import { Alert, Stack } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { messages } from '@farm/contracts';
import { PageHeader } from '../../shared/ui/PageHeader';
import { useCurrentUser } from '../auth/auth.api';
import { AppsSection } from '../apps/AppsSection';
import { AlertsSection } from './components/AlertsSection';
import { AuditLogSection } from './components/AuditLogSection';
import { InvitationsSection } from './components/InvitationsSection';
import { MembersSection } from './components/MembersSection';
import { NotificationsSection } from './components/NotificationsSection';
import { PhoneHostsSection } from './components/PhoneHostsSection';
import { ProfileSection } from './components/ProfileSection';
import { SessionsSection } from './components/SessionsSection';
import { RecipeHealthSection } from './components/RecipeHealthSection';
import { RecipesSection } from './components/RecipesSection';
import { StorageSection } from './components/StorageSection';
import { TwoFactorSection } from './components/TwoFactorSection';
import { WallLinksSection } from './components/WallLinksSection';
import { WorkspaceSection } from './components/WorkspaceSection';

export function SettingsPage() {
  const me = useCurrentUser();
  if (!me) return null;
  const isOperator = me.role === 'operator';
  const inWorkspace = me.workspaceId !== null;

  return (
    <>
      <PageHeader title="Settings" subtitle="Manage your profile and workspace" />
      <Stack gap="lg" maw={960}>
        <ProfileSection me={me} />
        <TwoFactorSection />
        <SessionsSection />
        {inWorkspace ? (
          <>
            <WorkspaceSection canManage={isOperator} />
            <MembersSection me={me} />
            {isOperator ? <InvitationsSection /> : null}
            {isOperator ? <PhoneHostsSection /> : null}
            {isOperator ? <AppsSection /> : null}
            {isOperator ? <RecipesSection /> : null}
            <RecipeHealthSection />
            {isOperator ? <WallLinksSection /> : null}
            {isOperator ? <StorageSection /> : null}
            <NotificationsSection />
            {isOperator ? <AlertsSection /> : null}
            {isOperator ? <AuditLogSection /> : null}
          </>
        ) : (
          <Alert variant="light" color="blue" icon={<IconInfoCircle />} title="No workspace yet">
            {messages.noWorkspace}
          </Alert>
        )}
      </Stack>
    </>
  );
}
