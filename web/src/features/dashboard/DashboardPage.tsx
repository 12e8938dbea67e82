import { Anchor, Badge, Button, Card, Grid, Group, ScrollArea, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconActivity, IconCircleCheck, IconDeviceMobile, IconPlus, IconWifi } from '@tabler/icons-react';
import type { Stats } from '@farm/contracts';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { batteryColor, formatRelative } from '../../shared/format';
import { byId, useActivities, useDevices, useSessions, useUsers } from '../../shared/resources';
import { ActivityList } from '../../shared/ui/ActivityList';
import { DeviceStatusBadge } from '../../shared/ui/DeviceStatusBadge';
import { LiveDuration } from '../../shared/ui/LiveDuration';
import { EmptyText, LoadingState } from '../../shared/ui/LoadingState';
import { PageHeader } from '../../shared/ui/PageHeader';
import { StatGrid } from '../../shared/ui/StatCard';
import { useCurrentUser } from '../auth/auth.api';
import { TaskFormModal } from '../tasks/components/TaskFormModal';
import { OnboardingChecklist } from './components/OnboardingChecklist';

function Panel({ title, action, children }: { title: string; action: ReactNode; children: ReactNode }) {
  return (
    <Card withBorder padding="lg" radius="md" h="100%" component="section" aria-label={title}>
      <Group justify="space-between" mb="md" wrap="nowrap">
        <Title order={2} fz="lg">
          {title}
        </Title>
        {action}
      </Group>
      {children}
    </Card>
  );
}

function ViewAll({ to }: { to: string }) {
  return (
    <Anchor component={Link} to={to} size="sm">
      View All
    </Anchor>
  );
}

export function DashboardPage() {
  const me = useCurrentUser();
  const [taskOpened, taskDialog] = useDisclosure(false);
  const stats = useQuery<Stats>({ queryKey: ['/api/analytics/stats'] });
  const devices = useDevices();
  const activities = useActivities({ limit: 5 });
  const sessions = useSessions({ active: 'true', limit: 3 });
  const users = useUsers();
  const deviceMap = byId(devices.data);
  const userMap = byId(users.data);

  const activeDevices = (devices.data ?? []).slice(0, 4);
  const recent = (activities.data ?? []).slice(0, 5);
  const live = (sessions.data ?? []).slice(0, 3);

  return (
    <>
      <PageHeader
        title="Dashboard"
        subtitle="Monitor your device fleet and operations"
        actions={
          me?.role === 'operator' ? (
            <Button leftSection={<IconPlus size={16} />} onClick={taskDialog.open}>
              New Task
            </Button>
          ) : null
        }
      />

      {me?.role === 'operator' ? <OnboardingChecklist /> : null}

      <StatGrid
        loading={stats.isPending}
        cards={[
          { title: 'Active Sessions', value: stats.data?.activeSessions ?? 0, icon: <IconActivity size={22} />, description: 'Sessions running now' },
          { title: 'Total Devices', value: stats.data?.totalDevices ?? 0, icon: <IconDeviceMobile size={22} />, description: 'Phones in the fleet' },
          { title: 'Online Devices', value: stats.data?.onlineDevices ?? 0, icon: <IconWifi size={22} />, description: 'Reachable right now' },
          {
            title: 'Tasks Completed',
            value: stats.data?.completedTasks ?? 0,
            icon: <IconCircleCheck size={22} />,
            description: stats.data ? `of ${stats.data.totalTasks} tasks` : undefined,
          },
        ]}
      />

      <Grid gap="md">
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Panel title="Active Devices" action={<ViewAll to="/devices" />}>
            {devices.isPending ? (
              <LoadingState label="Loading devices..." />
            ) : activeDevices.length === 0 ? (
              <EmptyText>No devices yet</EmptyText>
            ) : (
              <SimpleGrid cols={{ base: 1, sm: 2, lg: 1, xl: 2 }} spacing="sm">
                {activeDevices.map((device) => (
                  <Card key={device.id} withBorder padding="sm" radius="md">
                    <Group justify="space-between" wrap="nowrap" gap="xs">
                      <Text fw={600} truncate="end">
                        {device.name}
                      </Text>
                      <DeviceStatusBadge status={device.status} />
                    </Group>
                    <Group justify="space-between" mt="xs" gap="xs">
                      <Text size="sm" c={batteryColor(device.battery)}>
                        Battery {device.battery}%
                      </Text>
                      <Text size="xs" c="dimmed">
                        {formatRelative(device.lastActive)}
                      </Text>
                    </Group>
                  </Card>
                ))}
              </SimpleGrid>
            )}
          </Panel>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <Panel title="Recent Activity" action={<ViewAll to="/monitor" />}>
            <ScrollArea h={400} type="auto" offsetScrollbars viewportProps={{ tabIndex: 0, 'aria-label': 'Recent activity list' }}>
              {activities.isPending ? (
                <LoadingState label="Loading activity..." />
              ) : recent.length === 0 ? (
                <EmptyText>No activity yet</EmptyText>
              ) : (
                <ActivityList activities={recent} devices={deviceMap} />
              )}
            </ScrollArea>
          </Panel>
        </Grid.Col>
        <Grid.Col span={12}>
          <Panel
            title="Live Sessions"
            action={
              <Button component={Link} to="/monitor" variant="light" size="xs">
                View Monitor
              </Button>
            }
          >
            {sessions.isPending ? (
              <LoadingState label="Loading sessions..." />
            ) : live.length === 0 ? (
              <EmptyText>No active sessions</EmptyText>
            ) : (
              <Stack gap="sm">
                {live.map((session) => (
                  <Group key={session.id} justify="space-between" wrap="wrap" gap="xs">
                    <div style={{ minWidth: 0 }}>
                      <Text fw={600}>{deviceMap.get(session.deviceId)?.name ?? 'Unknown Device'}</Text>
                      <Text size="sm" c="dimmed">
                        {session.currentTask ?? 'No current task'} · {session.vaId ? (userMap.get(session.vaId)?.name ?? 'Unknown') : 'Unknown'}
                      </Text>
                    </div>
                    <Group gap="xs">
                      <Badge variant="light" color="red">
                        Busy
                      </Badge>
                      <Text ff="monospace" size="sm">
                        <LiveDuration session={session} />
                      </Text>
                    </Group>
                  </Group>
                ))}
              </Stack>
            )}
          </Panel>
        </Grid.Col>
      </Grid>

      {me?.role === 'operator' ? <TaskFormModal opened={taskOpened} onClose={taskDialog.close} /> : null}
    </>
  );
}
