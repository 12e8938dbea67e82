import { Badge, Divider, SimpleGrid, Stack, Tabs, Title } from '@mantine/core';
import type { Device, Session } from '@farm/contracts';
import { formatDateTime, statusColors } from '../../../shared/format';
import { ActivityList } from '../../../shared/ui/ActivityList';
import { Detail } from '../../../shared/ui/Detail';
import { FormModal } from '../../../shared/ui/FormModal';
import { LiveDuration } from '../../../shared/ui/LiveDuration';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { useEffect, useState } from 'react';
import { LiveScreen } from '../../devices/components/LiveScreen';
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

type FeedTab = 'screenshots' | 'live';
const isFeedTab = (value: string | null): value is FeedTab => value === 'screenshots' || value === 'live';

/**
 * A session's details, its phone's latest screenshots (pushed as they arrive) and the latest activity of its device;
 * or the phone's screen live, watched only while that tab is open.
 */
export function SessionFeedModal({ session, deviceName, vaName, devices, canControl, onClose }: SessionFeedModalProps) {
  const activities = useActivities({ deviceId: session?.deviceId, limit: 20 }, { enabled: session !== null });
  const status = session?.isActive ? 'busy' : 'offline';
  const [tab, setTab] = useState<FeedTab>('screenshots');
  const sessionId = session?.id;
  // biome-ignore lint/correctness/useExhaustiveDependencies: another session opens on its Screenshots tab
  useEffect(() => setTab('screenshots'), [sessionId]);
  return (
    <FormModal opened={session !== null} onClose={onClose} title={`Session feed: ${deviceName}`} size={tab === 'live' ? 'xl' : 'lg'}>
      {session ? (
        <Tabs value={tab} onChange={(value) => setTab(isFeedTab(value) ? value : 'screenshots')} keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="screenshots">Screenshots</Tabs.Tab>
            <Tabs.Tab value="live">Live</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="screenshots" pt="md">
            <Stack gap="lg">
              <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="md">
                <Detail label="Status">
                  <Badge variant="light" color={statusColors[status]}>
                    {status === 'busy' ? 'Busy' : 'Offline'}
                  </Badge>
                </Detail>
                <Detail label="Current task">{session.currentTask ?? 'No current task'}</Detail>
                <Detail label="VA">{vaName}</Detail>
                <Detail label="Started">{formatDateTime(session.startedAt)}</Detail>
                <Detail label="Duration">
                  <LiveDuration session={session} />
                </Detail>
                <Detail label="Screenshots">{session.screenshots}</Detail>
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
          </Tabs.Panel>
          <Tabs.Panel value="live" pt="md">
            <LiveScreen device={devices.get(session.deviceId) ?? { id: session.deviceId, name: deviceName, controlledById: null, controlledByName: null }} />
          </Tabs.Panel>
        </Tabs>
      ) : null}
    </FormModal>
  );
}
