/**
 * A phone's timeline in its details (issue #50): its blips (away and back, on which transport, after how long), its
 * farm host's recovery rungs and how each went, and its reboots with the time they took, newest first, 20 at a time.
 * Read again when the phone goes away or comes back, with its software (a phone that comes back says its UI reader
 * and app versions again).
 */
import { Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import type { TimelineEntry, TimelineKind } from '@farm/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { formatDateTime } from '../../../shared/format';
import { usePagedList } from '../../../shared/paged';
import { useDeviceHealth } from '../../fleet/health/health.api';

export const TIMELINE_PAGE = 20;

const kindLabels: Record<TimelineKind, string> = { blip: 'Blip', rung: 'Recovery', reboot: 'Reboot' };
const kindColors: Record<TimelineKind, string> = { blip: 'orange', rung: 'blue', reboot: 'grape' };

/** A rung that failed or was skipped stands out from one that was done. */
const entryColor = (entry: TimelineEntry) => (entry.kind === 'rung' && entry.outcome !== 'done' ? 'red' : kindColors[entry.kind]);

export function DeviceTimeline({ deviceId, enabled }: { deviceId: string; enabled: boolean }) {
  const reconnectingSince = useDeviceHealth(deviceId, enabled).data?.reconnectingSince;
  const timeline = usePagedList<TimelineEntry>(`/api/devices/${deviceId}/timeline`, {}, { enabled, pageSize: TIMELINE_PAGE });
  const { refetch } = timeline;
  const queryClient = useQueryClient();
  // The phone went away or came back: its newest entry (and what it runs now) is written by then.
  const seen = useRef(reconnectingSince);
  useEffect(() => {
    if (seen.current === reconnectingSince) return;
    seen.current = reconnectingSince;
    void refetch();
    void queryClient.invalidateQueries({ queryKey: ['/api/devices', deviceId, 'software'] });
  }, [reconnectingSince, refetch, queryClient, deviceId]);

  return (
    <section aria-label="Timeline">
      <Title order={3} fz="md" mb="xs">
        Timeline
      </Title>
      {timeline.isPending && enabled ? (
        <Text size="sm" c="dimmed">
          Loading...
        </Text>
      ) : timeline.isError ? (
        <Text size="sm" c="red">
          The timeline could not be read.
        </Text>
      ) : timeline.rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          No blips, recovery rungs or reboots yet.
        </Text>
      ) : (
        <Stack gap={6}>
          {timeline.rows.map((entry) => (
            <Group key={entry.id} gap="sm" wrap="nowrap" align="flex-start">
              <Text size="xs" c="dimmed" w={140} style={{ flexShrink: 0 }}>
                {formatDateTime(entry.at)}
              </Text>
              <Badge size="sm" variant="light" color={entryColor(entry)} style={{ flexShrink: 0 }}>
                {kindLabels[entry.kind]}
              </Badge>
              <Text size="sm">{entry.text}</Text>
            </Group>
          ))}
          {timeline.hasNextPage ? (
            <Button
              variant="subtle"
              size="xs"
              style={{ alignSelf: 'flex-start' }}
              loading={timeline.isFetchingNextPage}
              onClick={() => void timeline.fetchNextPage()}
            >
              Show older
            </Button>
          ) : null}
        </Stack>
      )}
    </section>
  );
}
