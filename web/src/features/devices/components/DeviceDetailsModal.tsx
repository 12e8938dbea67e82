import { Alert, Badge, Button, Divider, Group, SimpleGrid, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import { refusalMessage } from '../../../shared/refusal';
import { updateDeviceBody, type Device } from '@farm/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { batteryColor, formatClock, formatDateTime, formatDeadline, formatDuration, formatRelative } from '../../../shared/format';
import { useSessions, useTasks } from '../../../shared/resources';
import { errorToast, toast } from '../../../shared/toast';
import { Detail } from '../../../shared/ui/Detail';
import { FormModal } from '../../../shared/ui/FormModal';
import { InUseBadge } from '../../../shared/ui/InUseBadge';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { taskStatusColors, taskStatusLabels } from '../../tasks/task.labels';
import { useDeleteDevice, useUpdateDevice } from '../devices.api';
import { DeviceHistory } from './DeviceHistory';
import { DeviceDetailsStatus } from './DeviceStatus';
import { DeviceTimeline } from './DeviceTimeline';
import { DeviceSoftwareDetails } from './DeviceSoftwareDetails';
import { PhoneHealthPanel } from '../../fleet/health/PhoneHealth';
import { HandsOnUse } from './HandsOnUse';
import { LiveScreen } from './LiveScreen';

export interface DeviceDetailsModalProps {
  device: Device | null;
  vaName?: string;
  canManage: boolean;
  onClose: () => void;
  /** The tab it opens on (a link may open the Live tab). */
  initialTab?: DetailsTab;
  /** Opened to re-record a failed run: the Live tab says how to start Record. */
  offerRecord?: boolean;
}

export type DetailsTab = 'details' | 'live';
const isDetailsTab = (value: string | null): value is DetailsTab => value === 'details' || value === 'live';

/**
 * A device's details, what its phone reported, its sessions, tasks, work history and hands-on use, and its screen
 * live (watched only while that tab is open); operators may rename or delete it.
 */
export function DeviceDetailsModal({ device, vaName, canManage, onClose, initialTab = 'details', offerRecord = false }: DeviceDetailsModalProps) {
  const opened = device !== null;
  const deviceId = device?.id ?? '';
  const sessions = useSessions({ deviceId, limit: 10 }, { enabled: opened });
  const tasks = useTasks({ deviceId, limit: 10 }, { enabled: opened });
  const update = useUpdateDevice();
  const remove = useDeleteDevice();
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [tab, setTab] = useState<DetailsTab>('details');

  useEffect(() => {
    if (!device) return;
    setName(device.name);
    setNameError(undefined);
    setConfirmDelete(false);
  }, [device]);

  // Each phone opens on its details: its screen is watched only when someone asks for it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: another device opens on its Details tab (or the tab its link names)
  useEffect(() => setTab(initialTab), [deviceId, initialTab]);

  const changed = device !== null && name.trim() !== device.name;

  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!device) return;
    const parsed = updateDeviceBody.safeParse({ name });
    if (!parsed.success) {
      setNameError(parsed.error.issues[0]?.message);
      return;
    }
    update.mutate(
      { id: device.id, body: parsed.data },
      {
        onSuccess: () => {
          toast('Device Updated', 'The device has been saved.');
          onClose();
        },
        onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to update device')),
      },
    );
  };

  const destroy = () => {
    if (!device) return;
    remove.mutate(device.id, {
      onSuccess: () => {
        toast('Device Deleted', `${device.name} has been removed.`);
        onClose();
      },
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to delete device')),
    });
  };

  return (
    <FormModal opened={opened} onClose={onClose} title={device ? `Device: ${device.name}` : 'Device'} size={tab === 'live' ? 'xl' : 'lg'}>
      {device ? (
        <Stack gap="md">
          <InUseBadge name={device.controlledByName} size="lg" style={{ alignSelf: 'flex-start' }} />
          <Tabs value={tab} onChange={(value) => setTab(isDetailsTab(value) ? value : 'details')} keepMounted={false}>
            <Tabs.List>
              <Tabs.Tab value="details">Details</Tabs.Tab>
              <Tabs.Tab value="live">Live</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="details" pt="md">
              <Stack gap="lg">
                <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="md">
                  <Detail label="Status">
                    <DeviceDetailsStatus device={device} enabled={opened} />
                  </Detail>
                  <Detail label="Battery">
                    <Text span c={batteryColor(device.battery)} fw={600}>
                      {device.battery}%
                    </Text>
                  </Detail>
                  <Detail label="Last active">{device.lastSeenAt === null ? 'Never connected' : formatRelative(device.lastActive)}</Detail>
                  <Detail label="Assigned VA">{vaName ?? 'None'}</Detail>
                  <Detail label="Session time">{formatDuration(device.sessionTime)}</Detail>
                  <Detail label="Added">{formatDateTime(device.createdAt)}</Detail>
                  <Detail label="Phone">
                    {[device.model, device.androidVersion ? `Android ${device.androidVersion}` : null].filter(Boolean).join(', ') || 'Not reported yet'}
                  </Detail>
                  <Detail label="Serial">{device.serial ?? '—'}</Detail>
                  <Detail label="Agent">
                    {device.agentProtocol ? `Protocol ${device.agentProtocol}${device.hostId ? ', through a phone host' : ''}` : 'None yet'}
                  </Detail>
                  <Detail label="Last heard">{device.lastSeenAt ? formatRelative(device.lastSeenAt) : 'Never'}</Detail>
                  <DeviceSoftwareDetails deviceId={deviceId} enabled={opened} />
                </SimpleGrid>

                <div>
                  <Title order={3} fz="md" mb="xs">
                    Sessions
                  </Title>
                  {sessions.isPending ? (
                    <LoadingState label="Loading sessions..." />
                  ) : (sessions.data ?? []).length === 0 ? (
                    <EmptyText>No sessions yet</EmptyText>
                  ) : (
                    <Stack gap={6}>
                      {(sessions.data ?? []).map((session) => (
                        <Group key={session.id} justify="space-between" gap="xs" wrap="wrap">
                          <Text size="sm">{session.currentTask ?? 'No current task'}</Text>
                          <Group gap="xs">
                            <Badge variant="light" color={session.endedAt ? 'gray' : session.isActive ? 'red' : 'gray'}>
                              {session.endedAt ? 'Ended' : session.isActive ? 'Busy' : 'Offline'}
                            </Badge>
                            <Text size="sm" ff="monospace">
                              {formatClock(session.duration)}
                            </Text>
                          </Group>
                        </Group>
                      ))}
                    </Stack>
                  )}
                </div>

                <div>
                  <Title order={3} fz="md" mb="xs">
                    Tasks
                  </Title>
                  {tasks.isPending ? (
                    <LoadingState label="Loading tasks..." />
                  ) : (tasks.data ?? []).length === 0 ? (
                    <EmptyText>No tasks for this device</EmptyText>
                  ) : (
                    <Stack gap={6}>
                      {(tasks.data ?? []).map((task) => (
                        <Group key={task.id} justify="space-between" gap="xs" wrap="wrap">
                          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                            {task.title}
                          </Text>
                          <Group gap="xs">
                            <Text size="xs" c="dimmed">
                              {formatDeadline(task.deadline)}
                            </Text>
                            <Badge variant="light" color={taskStatusColors[task.status]}>
                              {taskStatusLabels[task.status]}
                            </Badge>
                          </Group>
                        </Group>
                      ))}
                    </Stack>
                  )}
                </div>

                <PhoneHealthPanel deviceId={deviceId} enabled={opened} />

                {device.hostId ? <DeviceTimeline deviceId={deviceId} enabled={opened} /> : null}

                <div>
                  <Title order={3} fz="md" mb="xs">
                    Work history
                  </Title>
                  <DeviceHistory deviceId={deviceId} enabled={opened} />
                </div>

                <HandsOnUse deviceId={deviceId} enabled={opened} />

                {canManage ? (
                  <>
                    <Divider />
                    <form onSubmit={save}>
                      <Stack gap="md">
                        <Title order={3} fz="md">
                          Edit device
                        </Title>
                        <TextInput label="Name" required value={name} error={nameError} onChange={(event) => setName(event.currentTarget.value)} />
                        <Text size="xs" c="dimmed">
                          Status and battery are the phone&apos;s own, as its agent reports them.
                        </Text>
                        <Group justify="space-between" gap="sm">
                          <Button color="red" variant="light" onClick={() => setConfirmDelete(true)} disabled={confirmDelete}>
                            Delete Device
                          </Button>
                          <Button type="submit" loading={update.isPending} disabled={!changed}>
                            Save Changes
                          </Button>
                        </Group>
                        {confirmDelete ? (
                          <Alert color="red" variant="light" title={`Delete ${device.name}?`} role="alert">
                            <Text size="sm" mb="sm">
                              The device and its history leave the fleet. This cannot be undone.
                            </Text>
                            <Group gap="sm">
                              <Button color="red" onClick={destroy} loading={remove.isPending}>
                                Confirm Delete
                              </Button>
                              <Button variant="default" onClick={() => setConfirmDelete(false)}>
                                Keep Device
                              </Button>
                            </Group>
                          </Alert>
                        ) : null}
                      </Stack>
                    </form>
                  </>
                ) : null}
              </Stack>
            </Tabs.Panel>
            <Tabs.Panel value="live" pt="md">
              <LiveScreen device={device} offerRecord={offerRecord} />
            </Tabs.Panel>
          </Tabs>
        </Stack>
      ) : null}
    </FormModal>
  );
}
