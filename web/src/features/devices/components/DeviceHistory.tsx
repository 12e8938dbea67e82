import { Badge, Group, Stack, Text } from '@mantine/core';
import { failureLabels, type DeviceHistoryEntry } from '@farm/contracts';
import { formatDateTime } from '../../../shared/format';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { useDeviceHistory } from '../devices.api';
import { FailureEvidenceButton } from '../../tasks/evidence/FailureEvidence';

type Outcome = NonNullable<DeviceHistoryEntry['outcome']>;
const outcomeLabels: Record<Outcome, string> = {
  completed: 'Completed',
  failed: 'Failed',
  expired: 'Timed out',
  withdrawn: 'Taken back',
  cancelled: 'Cancelled',
};
const outcomeColors: Record<Outcome, string> = { completed: 'green', failed: 'red', expired: 'orange', withdrawn: 'gray', cancelled: 'gray' };

/** What the phone was given to do, attempt by attempt, and how each ended. */
export function DeviceHistory({ deviceId, enabled }: { deviceId: string; enabled: boolean }) {
  const history = useDeviceHistory(deviceId, enabled);
  if (history.isPending) return <LoadingState label="Loading history..." />;
  const rows = history.data ?? [];
  if (rows.length === 0) return <EmptyText>No work has been sent to this phone yet</EmptyText>;
  return (
    <Stack gap={8} component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Work history">
      {rows.map((row) => (
        <Stack key={`${row.taskId}:${row.attempt}`} gap={2} component="li">
          <Group justify="space-between" gap="xs" wrap="wrap">
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {row.title} <Text span size="xs" c="dimmed">{`attempt ${row.attempt}`}</Text>
            </Text>
            <Badge variant="light" color={row.outcome ? outcomeColors[row.outcome] : 'blue'}>
              {row.outcome ? outcomeLabels[row.outcome] : 'On the phone'}
            </Badge>
          </Group>
          <Text size="xs" c="dimmed">
            {formatDateTime(row.dispatchedAt)}
            {row.failureCode && row.outcome !== 'completed' ? ` · ${row.failureMessage ?? failureLabels[row.failureCode]}` : ''}
          </Text>
          {row.evidence ? (
            <Group>
              <FailureEvidenceButton
                source={{ kind: 'task', id: row.taskId }}
                label="Evidence"
                ariaLabel={`Evidence of ${row.title}, attempt ${row.attempt}`}
              />
            </Group>
          ) : null}
        </Stack>
      ))}
    </Stack>
  );
}
