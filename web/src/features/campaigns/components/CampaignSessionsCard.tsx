import { Alert, Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import { routineTypeLabels, type Account, type CampaignSession } from '@farm/contracts';
import { formatDateTime } from '../../../shared/format';
import { LoadingState } from '../../../shared/ui/LoadingState';
import { useCampaignSessions, useRoutines } from '../campaigns.api';

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
    <Card withBorder radius="md" padding="lg">
      <Stack gap="md">
        <Title order={2} fz="lg">
          Campaign Sessions
        </Title>
        {sessions.isPending ? (
          <LoadingState label="Loading sessions..." />
        ) : sessions.isError ? (
          <Alert color="red" title="Failed to fetch campaign sessions" />
        ) : sessions.data.length === 0 ? (
          <Text size="sm" c="dimmed">
            No sessions scheduled yet.
          </Text>
        ) : (
          <Stack gap="xs" component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Campaign sessions">
            {sessions.data.map((session) => (
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
            ))}
          </Stack>
        )}
      </Stack>
    </Card>
  );
}
