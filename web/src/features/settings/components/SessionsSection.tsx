import { Badge, Button, Card, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { AuthSession } from '@farm/contracts';
import { formatDateTime, formatRelative } from '../../../shared/format';
import { refusalMessage } from '../../../shared/refusal';
import { errorToast, toast } from '../../../shared/toast';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { useAuthSessions, useEndSession } from '../settings.api';

/** "Chrome on Windows"-like: the browser and system a user agent names, or the raw string when neither is known. */
export function describeDevice(userAgent: string | null): string {
  if (!userAgent) return 'Unknown device';
  const browser = [
    ['Edg/', 'Edge'],
    ['OPR/', 'Opera'],
    ['Firefox/', 'Firefox'],
    ['Chrome/', 'Chrome'],
    ['Safari/', 'Safari'],
  ].find(([mark]) => userAgent.includes(mark!))?.[1];
  const system = [
    ['Android', 'Android'],
    ['iPhone', 'iOS'],
    ['iPad', 'iPadOS'],
    ['Windows', 'Windows'],
    ['Mac OS X', 'macOS'],
    ['CrOS', 'ChromeOS'],
    ['Linux', 'Linux'],
  ].find(([mark]) => userAgent.includes(mark!))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? userAgent.slice(0, 80);
}

/** Settings → Sessions: where the person is signed in, and ending any of those sessions. */
export function SessionsSection() {
  const sessions = useAuthSessions();
  const end = useEndSession();
  const list = sessions.data ?? [];

  const endOne = (session: AuthSession) => {
    end.mutate(session.id, {
      onSuccess: () => toast('Session Ended', `${describeDevice(session.userAgent)} is signed out.`),
      onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to end the session')),
    });
  };

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby="sessions-title">
      <Title order={2} fz="lg" mb="xs" id="sessions-title">
        Sessions
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Where you are signed in. End a session you do not recognise: that browser is signed out at once.
      </Text>
      {sessions.isPending ? (
        <LoadingState label="Loading sessions..." />
      ) : sessions.isError ? (
        <EmptyText>Sessions could not be loaded</EmptyText>
      ) : list.length === 0 ? (
        <EmptyText>No sessions</EmptyText>
      ) : (
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {list.map((session) => {
            const device = describeDevice(session.userAgent);
            return (
              <Paper key={session.id} withBorder p="sm" radius="md" component="li" aria-label={`Session: ${device}`}>
                <Group justify="space-between" wrap="wrap" gap="sm">
                  <div style={{ minWidth: 0 }}>
                    <Group gap="xs">
                      <Text fw={600}>{device}</Text>
                      {session.current ? (
                        <Badge variant="light" color="green">
                          This session
                        </Badge>
                      ) : null}
                    </Group>
                    <Text size="sm" c="dimmed">
                      {session.ip ?? 'Unknown address'} · last seen {formatRelative(session.lastSeenAt)} · signed in {formatDateTime(session.createdAt)}
                    </Text>
                  </div>
                  {session.current ? null : (
                    <Button size="xs" variant="light" color="red" loading={end.isPending && end.variables === session.id} onClick={() => endOne(session)}>
                      End Session
                    </Button>
                  )}
                </Group>
              </Paper>
            );
          })}
        </Stack>
      )}
    </Card>
  );
}
