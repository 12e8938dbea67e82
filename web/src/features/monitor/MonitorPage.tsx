import { Badge, Button, Card, CloseButton, Grid, Group, Stack, Text, Title } from '@mantine/core';
import { refusalMessage } from '../../shared/refusal';
import { IconLayoutGrid } from '@tabler/icons-react';
import type { Session } from '@farm/contracts';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { byId, useDevices, useUsers } from '../../shared/resources';
import { errorToast, toast } from '../../shared/toast';
import { ActivityList } from '../../shared/ui/ActivityList';
import { ConfirmModal } from '../../shared/ui/ConfirmModal';
import { EmptyText, LoadingState } from '../../shared/ui/LoadingState';
import { ExportButton } from '../../shared/ui/ExportButton';
import { PageHeader } from '../../shared/ui/PageHeader';
import { useCurrentUser } from '../auth/auth.api';
import { SessionFeedModal } from './components/SessionFeedModal';
import { SessionRow } from './components/SessionRow';
import { useActivities, useSessions, useSetSessionActive, useStopSession } from './monitor.api';

function FilterChip({ label, onClear }: { label: string; onClear: () => void }) {
  return (
    <Badge
      size="lg"
      variant="light"
      rightSection={<CloseButton size="xs" onClick={onClear} aria-label={`Clear filter ${label}`} />}
      styles={{ label: { textTransform: 'none' } }}
    >
      {label}
    </Badge>
  );
}

export function MonitorPage() {
  const me = useCurrentUser();
  const isOperator = me?.role === 'operator';
  const [searchParams, setSearchParams] = useSearchParams();
  const deviceFilter = searchParams.get('device') ?? undefined;
  const vaFilter = searchParams.get('va') ?? undefined;
  const sessions = useSessions({ active: 'true', deviceId: deviceFilter, vaId: vaFilter });
  const activities = useActivities({ deviceId: deviceFilter, limit: 10 });
  const devices = useDevices();
  const users = useUsers();
  const deviceMap = byId(devices.data);
  const userMap = byId(users.data);
  const setActive = useSetSessionActive();
  const stop = useStopSession();
  const [feed, setFeed] = useState<Session | null>(null);
  const [stopping, setStopping] = useState<Session | null>(null);

  // Paused sessions are still open (Resume brings them back); only stopped ones have ended.
  const open = (sessions.data ?? []).filter((session) => session.endedAt === null);
  const deviceName = (id: string) => deviceMap.get(id)?.name ?? 'Unknown Device';
  const vaName = (id: string | null) => (id ? (userMap.get(id)?.name ?? 'Unknown') : 'Unknown');
  const canControl = (session: Session) =>
    isOperator || (me !== undefined && (session.vaId === me.id || deviceMap.get(session.deviceId)?.assignedToId === me.id));

  const clearFilter = (key: 'device' | 'va') => {
    const next = new URLSearchParams(searchParams);
    next.delete(key);
    setSearchParams(next, { replace: true });
  };

  const failed = (fallback: string) => (error: Error) => errorToast('Error', refusalMessage(error, fallback));

  const toggle = (session: Session) => {
    const isActive = !session.isActive;
    setActive.mutate(
      { id: session.id, isActive },
      {
        onSuccess: () => toast(isActive ? 'Session Resumed' : 'Session Paused', `${deviceName(session.deviceId)} is ${isActive ? 'running again' : 'paused'}.`),
        onError: failed(isActive ? 'Failed to resume session' : 'Failed to pause session'),
      },
    );
  };

  const confirmStop = () => {
    if (!stopping) return;
    const target = stopping;
    stop.mutate(target.id, {
      onSuccess: () => {
        toast('Session Stopped', `The session on ${deviceName(target.deviceId)} has ended.`);
        setStopping(null);
        if (feed?.id === target.id) setFeed(null);
      },
      onError: failed('Failed to stop session'),
    });
  };

  const busyId = setActive.isPending ? setActive.variables.id : stop.isPending ? stop.variables : undefined;
  const feedSession = feed ? (open.find((session) => session.id === feed.id) ?? feed) : null;

  return (
    <>
      <PageHeader
        title="Live Monitor"
        subtitle="Real-time session monitoring"
        actions={
          <Group gap="xs">
            <ExportButton entity="sessions" label="Export sessions" filters={{ deviceId: deviceFilter, vaId: vaFilter }} />
            <ExportButton entity="activities" label="Export activity" filters={{ deviceId: deviceFilter }} />
            <Button component={Link} to="/monitor/wall" variant="light" leftSection={<IconLayoutGrid size={16} />}>
              Open Wall Screen
            </Button>
          </Group>
        }
      />

      {deviceFilter || vaFilter ? (
        <Group gap="xs" mb="md" aria-label="Active filters">
          {deviceFilter ? <FilterChip label={`Device: ${deviceName(deviceFilter)}`} onClear={() => clearFilter('device')} /> : null}
          {vaFilter ? <FilterChip label={`VA: ${vaName(vaFilter)}`} onClear={() => clearFilter('va')} /> : null}
        </Group>
      ) : null}

      <Grid gap="md">
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="active-sessions-title">
            <Group justify="space-between" mb="md">
              <Title order={2} fz="lg" id="active-sessions-title">
                Active Sessions
              </Title>
              <Badge variant="light">{open.length}</Badge>
            </Group>
            {sessions.isPending ? (
              <LoadingState label="Loading sessions..." />
            ) : open.length === 0 ? (
              <EmptyText>No active sessions</EmptyText>
            ) : (
              <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
                {open.map((session) => (
                  <SessionRow
                    key={session.id}
                    session={session}
                    deviceName={deviceName(session.deviceId)}
                    vaName={vaName(session.vaId)}
                    controlledByName={deviceMap.get(session.deviceId)?.controlledByName ?? null}
                    canControl={canControl(session)}
                    busy={busyId === session.id}
                    onViewFeed={() => setFeed(session)}
                    onToggle={() => toggle(session)}
                    onStop={() => setStopping(session)}
                  />
                ))}
              </Stack>
            )}
          </Card>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="activity-feed-title">
            <Title order={2} fz="lg" mb="md" id="activity-feed-title">
              Activity Feed
            </Title>
            {activities.isPending ? (
              <LoadingState label="Loading activity..." />
            ) : (activities.data ?? []).length === 0 ? (
              <Text c="dimmed" size="sm">
                No activity yet
              </Text>
            ) : (
              <ActivityList activities={(activities.data ?? []).slice(0, 10)} devices={deviceMap} />
            )}
          </Card>
        </Grid.Col>
      </Grid>

      <SessionFeedModal
        session={feedSession}
        deviceName={feedSession ? deviceName(feedSession.deviceId) : ''}
        vaName={feedSession ? vaName(feedSession.vaId) : ''}
        devices={deviceMap}
        canControl={feedSession ? canControl(feedSession) : false}
        onClose={() => setFeed(null)}
      />
      <ConfirmModal
        opened={stopping !== null}
        title="Stop session?"
        message={stopping ? `The session on ${deviceName(stopping.deviceId)} ends for good; start a new one to continue.` : ''}
        confirmLabel="Stop Session"
        loading={stop.isPending}
        onConfirm={confirmStop}
        onClose={() => setStopping(null)}
      />
    </>
  );
}
