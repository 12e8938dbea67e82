import { Badge, Button, Group, Paper, Stack, Text, VisuallyHidden } from '@mantine/core';
import { IconCamera, IconEye, IconPlayerPause, IconPlayerPlay, IconPlayerStop } from '@tabler/icons-react';
import type { Session } from '@farm/contracts';
import { statusColors } from '../../../shared/format';
import { InUseBadge } from '../../../shared/ui/InUseBadge';
import { LiveDuration } from '../../../shared/ui/LiveDuration';

export interface SessionRowProps {
  session: Session;
  deviceName: string;
  vaName: string;
  /** Who controls the phone from the console right now, if anyone. */
  controlledByName?: string | null;
  canControl: boolean;
  busy: boolean;
  onViewFeed: () => void;
  onToggle: () => void;
  onStop: () => void;
}

/** One live session: device, state, task, VA, running time and screenshots, with its controls. */
export function SessionRow({ session, deviceName, vaName, controlledByName, canControl, busy, onViewFeed, onToggle, onStop }: SessionRowProps) {
  const status = session.isActive ? 'busy' : 'offline';
  return (
    <Paper withBorder p="md" radius="md" component="li" aria-label={`Session on ${deviceName}`}>
      <Group justify="space-between" wrap="wrap" gap="sm" align="center">
        <Stack gap={4} style={{ minWidth: 0, flex: '1 1 220px' }}>
          <Group gap="xs" wrap="wrap">
            <Text fw={700} truncate="end">
              {deviceName}
            </Text>
            <Badge variant="light" color={statusColors[status]}>
              {status === 'busy' ? 'Busy' : 'Offline'}
            </Badge>
            <InUseBadge name={controlledByName} />
          </Group>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {session.currentTask ?? 'No current task'}
          </Text>
          <Text size="xs" c="dimmed">
            VA: {vaName}
          </Text>
        </Stack>
        <Group gap="md" wrap="nowrap">
          <Text ff="monospace" fw={600}>
            <VisuallyHidden>Duration </VisuallyHidden>
            <LiveDuration session={session} />
          </Text>
          <Group gap={4} wrap="nowrap">
            <IconCamera size={16} aria-hidden />
            <Text size="sm">
              {session.screenshots}
              <VisuallyHidden> screenshots</VisuallyHidden>
            </Text>
          </Group>
        </Group>
        <Group gap="xs" wrap="wrap">
          <Button size="xs" variant="light" leftSection={<IconEye size={14} />} onClick={onViewFeed}>
            View Feed
          </Button>
          {canControl ? (
            <>
              <Button
                size="xs"
                variant="default"
                leftSection={session.isActive ? <IconPlayerPause size={14} /> : <IconPlayerPlay size={14} />}
                onClick={onToggle}
                disabled={busy}
              >
                {session.isActive ? 'Pause' : 'Resume'}
              </Button>
              <Button size="xs" variant="light" color="red" leftSection={<IconPlayerStop size={14} />} onClick={onStop} disabled={busy}>
                Stop
              </Button>
            </>
          ) : null}
        </Group>
      </Group>
    </Paper>
  );
}
