import { Badge, Divider, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { Device, Session } from '@farm/api/contracts';
import { formatClock, formatDateTime, statusColors } from '../../../shared/format';
import { ActivityList } from '../../../shared/ui/ActivityList';
import { FormModal } from '../../../shared/ui/FormModal';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { useActivities } from '../monitor.api';

export interface SessionFeedModalProps {
  session: Session | null;
  deviceName: string;
  vaName: string;
  devices: ReadonlyMap<string, Device>;
  onClose: () => void;
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" component="div">
        {children}
      </Text>
    </div>
  );
}

/** A session's details and the latest activity of its device. */
export function SessionFeedModal({ session, deviceName, vaName, devices, onClose }: SessionFeedModalProps) {
  const activities = useActivities({ deviceId: session?.deviceId, limit: 20 }, { enabled: session !== null });
  const status = session?.isActive ? 'busy' : 'offline';
  return (
    <FormModal opened={session !== null} onClose={onClose} title={`Session feed: ${deviceName}`} size="lg">
      {session ? (
        <Stack gap="lg">
          <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="md">
            <Field label="Status">
              <Badge variant="light" color={statusColors[status]}>
                {status === 'busy' ? 'Busy' : 'Offline'}
              </Badge>
            </Field>
            <Field label="Current task">{session.currentTask ?? 'No current task'}</Field>
            <Field label="VA">{vaName}</Field>
            <Field label="Started">{formatDateTime(session.startedAt)}</Field>
            <Field label="Duration">{formatClock(session.duration)}</Field>
            <Field label="Screenshots">{session.screenshots}</Field>
          </SimpleGrid>
          <Divider />
          <div>
            <Title order={3} fz="md" mb="sm">
              Device activity
            </Title>
            {activities.isPending ? (
              <LoadingState label="Loading activity..." />
            ) : (activities.data ?? []).length === 0 ? (
              <EmptyText>No activity for this device yet</EmptyText>
            ) : (
              <ActivityList activities={activities.data ?? []} devices={devices} />
            )}
          </div>
        </Stack>
      ) : null}
    </FormModal>
  );
}
