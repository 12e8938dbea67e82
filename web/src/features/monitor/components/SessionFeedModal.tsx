import { Badge, Divider, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { Device, Session } from '@farm/api/contracts';
import { formatDateTime, statusColors } from '../../../shared/format';
import { ActivityList } from '../../../shared/ui/ActivityList';
import { FormModal } from '../../../shared/ui/FormModal';
import { LiveDuration } from '../../../shared/ui/LiveDuration';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { useActivities } from '../monitor.api';
import { ScreenshotFeed } from './ScreenshotFeed';

export interface SessionFeedModalProps {
  session: Session | null;
  deviceName: string;
  vaName: string;
  devices: ReadonlyMap<string, Device>;
  /** The person may command the phone (operators, or the VA working it): shows Take Screenshot. */
  canControl: boolean;
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

/** A session's details, its phone's latest screenshots (live) and the latest activity of its device. */
export function SessionFeedModal({ session, deviceName, vaName, devices, canControl, onClose }: SessionFeedModalProps) {
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
            <Field label="Duration">
              <LiveDuration session={session} />
            </Field>
            <Field label="Screenshots">{session.screenshots}</Field>
          </SimpleGrid>
          <Divider />
          <ScreenshotFeed deviceId={session.deviceId} deviceName={deviceName} canControl={canControl} />
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
