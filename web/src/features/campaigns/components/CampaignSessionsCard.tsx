import { Badge, Group, Stack, Text } from '@mantine/core';
import { routineTypeLabels, type Account, type CampaignSession } from '@farm/contracts';
import { formatDateTime } from '../../../shared/format';
import { useCampaignSessions, useRoutines } from '../campaigns.api';
import { CampaignPanel, PanelList } from './CampaignPanel';

export const sessionStatusLabels: Record<CampaignSession['status'], string> = {
  pending: 'Pending',
  'in-progress': 'In Progress',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const sessionStatusColors: Record<CampaignSession['status'], string> = {
  pending: 'gray',
  'in-progress': 'blue',
  completed: 'green',
  failed: 'red',
  cancelled: 'gray',
};

export interface CampaignSessionsCardProps {
  campaignId: string;
  accounts: readonly Account[];
}

/** Runs of the campaign's routines, as the scheduler planned them. */
export function CampaignSessionsCard({ campaignId, accounts }: CampaignSessionsCardProps) {
  const sessions = useCampaignSessions(campaignId);
  const routines = useRoutines(campaignId);
  const usernames = new Map(accounts.map((account) => [account.id, account.username]));
  const routineLabels = new Map((routines.data ?? []).map((routine) => [routine.id, routineTypeLabels[routine.type]]));

  return (
    <CampaignPanel title="Campaign Sessions">
      <PanelList
        query={sessions}
        texts={{ loading: 'Loading sessions...', failed: 'Failed to fetch campaign sessions', empty: 'No sessions scheduled yet.', list: 'Campaign sessions' }}
      >
        {(session) => (
          <Group key={session.id} component="li" justify="space-between" wrap="nowrap" gap="sm">
            <Stack gap={0} miw={0}>
              <Text size="sm" fw={500} truncate>
                {(session.routineId && routineLabels.get(session.routineId)) || 'Session'}
                {session.accountId ? ` · @${usernames.get(session.accountId) ?? 'unknown'}` : ''}
              </Text>
              <Text size="xs" c="dimmed">
                {session.scheduledAt ? `Scheduled: ${formatDateTime(session.scheduledAt)}` : 'Not scheduled'}
                {session.engagementActions > 0 ? ` · ${session.engagementActions} actions` : ''}
              </Text>
              {session.note ? (
                <Text size="xs" c={session.status === 'failed' ? 'red' : 'dimmed'}>
                  {session.note}
                </Text>
              ) : null}
            </Stack>
            <Badge color={sessionStatusColors[session.status]} variant="light" style={{ flexShrink: 0 }}>
              {sessionStatusLabels[session.status]}
            </Badge>
          </Group>
        )}
      </PanelList>
    </CampaignPanel>
  );
}
