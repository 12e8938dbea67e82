import { Badge, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import type { ReactNode } from 'react';
import type { UsageSession } from '@farm/contracts';
import { formatDateTime, formatSpan } from '../../../shared/format';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { useDeviceUsage } from '../devices.api';

/** How many of the latest sessions the block lists. */
const SESSIONS_SHOWN = 10;

const modeLabels: Record<UsageSession['mode'], string> = { watch: 'Watched', control: 'Controlled' };

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" fw={600}>
        {value}
      </Text>
    </div>
  );
}

export type HandsOnUseProps = ({ deviceId: string; userId?: undefined } | { userId: string; deviceId?: undefined }) & { enabled?: boolean };

/**
 * The last 30 days of hands-on use from the console, of one phone (who watched or controlled it) or of one person
 * (which phones they watched or controlled): totals, then the latest sessions.
 */
export function HandsOnUse({ deviceId, userId, enabled = true }: HandsOnUseProps) {
  const usage = useDeviceUsage(deviceId ? { range: '30d', deviceId } : { range: '30d', userId }, enabled);
  const byPhone = deviceId === undefined;
  let body: ReactNode;
  if (usage.isPending) body = <LoadingState label="Loading hands-on use..." />;
  else if (usage.isError) body = <EmptyText>{refusalMessage(usage.error, 'Failed to load hands-on use')}</EmptyText>;
  else {
    const { totals, sessions } = usage.data;
    body = (
      <Stack gap="sm">
        <SimpleGrid cols={3} spacing="md">
          <Figure label="Watched" value={formatSpan(totals.watchedSeconds)} />
          <Figure label="Controlled" value={formatSpan(totals.controlledSeconds)} />
          <Figure label="Sessions" value={String(totals.sessions)} />
        </SimpleGrid>
        {sessions.length === 0 ? (
          <Text size="sm" c="dimmed">
            {byPhone ? 'No phone watched or controlled in the last 30 days' : 'Nobody watched or controlled this phone in the last 30 days'}
          </Text>
        ) : (
          <Stack gap={6} component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Latest hands-on sessions">
            {sessions.slice(0, SESSIONS_SHOWN).map((session) => (
              <Group key={session.id} component="li" justify="space-between" gap="xs" wrap="wrap">
                <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
                  <Text size="sm" truncate="end">
                    {byPhone ? session.deviceName : session.userName}
                  </Text>
                  <Badge variant="light" color={session.mode === 'control' ? 'grape' : 'blue'}>
                    {modeLabels[session.mode]}
                  </Badge>
                </Group>
                <Group gap="xs" wrap="nowrap">
                  <Text size="xs" c="dimmed">
                    {formatDateTime(session.startedAt)}
                  </Text>
                  <Text size="sm" ff="monospace">
                    {session.endedAt === null ? `${formatSpan(session.seconds)}, now` : formatSpan(session.seconds)}
                  </Text>
                </Group>
              </Group>
            ))}
          </Stack>
        )}
      </Stack>
    );
  }
  return (
    <section aria-label="Hands-on use">
      <Group justify="space-between" mb="xs" gap="xs">
        <Title order={3} fz="md">
          Hands-on use
        </Title>
        <Text size="xs" c="dimmed">
          Last 30 days
        </Text>
      </Group>
      {body}
    </section>
  );
}
