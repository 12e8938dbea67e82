/**
 * Devices → Group control (operators): one person's input on the leader goes to every phone of the group, each
 * finding its own element, for setup and navigation. The phones come in the address (`?ids=a,b&leader=a` or
 * `?group=<id>`), so a reload opens the same session again.
 */
import { Alert, Anchor, Badge, Button, Group, Paper, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArrowLeft, IconCornerDownLeft, IconHome, IconPlayerStop, IconRefresh, IconSquare } from '@tabler/icons-react';
import { GROUP_TEXT_MAX, type GroupAction, type GroupKey } from '@farm/agent-protocol/group';
import { GROUP_MAX_PHONES } from '@farm/contracts';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { EmptyText, LoadingState } from '../../../shared/ui/LoadingState';
import { PageHeader } from '../../../shared/ui/PageHeader';
import { useCurrentUser } from '../../auth/auth.api';
import { useGroups } from '../../groups/groups.api';
import { DevicesTabs } from '../components/DevicesTabs';
import { useGroupSession } from './group.hooks';
import type { GroupSessionView } from './group.session';
import { groupControlPath, readGroupLink, retryTargets, sameScreen, type GroupState } from './group.state';
import { GroupControlApps } from './GroupControlApps';
import { GroupOpenMenu } from './GroupOpenMenu';
import { drawingLoad } from './GroupPicture';
import { GroupTile, ResultBadge } from './GroupTile';
import { LeaderScreen } from './LeaderScreen';

export const GROUP_CONTROL_INTRO =
  'Drive phones together for setup and navigation: Settings, the launcher, system dialogs and the Play Store’s settings. Apps with accounts are refused.';

const keyButtons: { key: GroupKey; label: string; icon: typeof IconHome }[] = [
  { key: 'back', label: 'Back', icon: IconArrowLeft },
  { key: 'home', label: 'Home', icon: IconHome },
  { key: 'recents', label: 'Recents', icon: IconSquare },
  { key: 'enter', label: 'Enter', icon: IconCornerDownLeft },
];

/** The phones the address names, once known (a group's are read first). */
function useLinkedPhones(): { deviceIds: string[] | null; leaderId: string | null; capped: boolean; missing: string | null } {
  const [params] = useSearchParams();
  const link = readGroupLink(params);
  const groups = useGroups();
  if (!link.groupId) return { deviceIds: link.deviceIds, leaderId: link.leaderId, capped: link.capped, missing: null };
  if (groups.isPending) return { deviceIds: null, leaderId: null, capped: false, missing: null };
  const group = groups.data?.find((entry) => entry.id === link.groupId);
  if (!group) return { deviceIds: [], leaderId: null, capped: false, missing: 'This group no longer exists.' };
  const deviceIds = group.deviceIds.slice(0, GROUP_MAX_PHONES);
  return { deviceIds, leaderId: deviceIds[0] ?? null, capped: group.deviceIds.length > GROUP_MAX_PHONES, missing: null };
}

/** The page's decoding load, measured (for whoever checks that thirty tiles stay within a browser's budget). */
function DrawingLoad() {
  const [load, setLoad] = useState(() => drawingLoad());
  useEffect(() => {
    const timer = setInterval(() => setLoad(drawingLoad()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <Text size="xs" c="dimmed" title="Pictures drawn on this page over the last two seconds, and the pictures on screen (those off screen are not decoded)">
      {`${load.perSecond} pictures a second over ${load.tiles} on screen`}
    </Text>
  );
}

function IdlePrompt({ count, releaseAt, onKeep }: { count: number; releaseAt: number; onKeep: () => void }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.max(0, Math.ceil((releaseAt - now) / 1000));
  return (
    <Alert color="yellow" variant="light" title="Still using these phones?">
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm">{`${count === 1 ? 'A phone is' : `${count} phones are`} handed back in ${seconds} s so their tasks can run again.`}</Text>
        <Button size="xs" onClick={onKeep}>
          Keep control
        </Button>
      </Group>
    </Alert>
  );
}

function ResultsPanel({
  group,
  enabled,
  sending,
  onRetry,
  onPoint,
}: {
  group: GroupState;
  enabled: boolean;
  sending: boolean;
  onRetry: () => void;
  onPoint: () => void;
}) {
  const missed = retryTargets(group);
  return (
    <Paper withBorder radius="md" p="sm" component="section" aria-labelledby="group-results-title" style={{ flex: '1 1 280px', minWidth: 0 }}>
      <Stack gap="xs">
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Title order={2} fz="md" id="group-results-title">
            Results
          </Title>
          <Text size="xs" c="dimmed" aria-live="polite" style={{ flex: 1 }}>
            {sending ? 'Sending...' : ''}
          </Text>
          <Button size="compact-sm" variant="light" leftSection={<IconRefresh size={14} />} onClick={onRetry} disabled={!enabled || missed.length === 0}>
            {missed.length > 0 ? `Retry on the ones that missed (${missed.length})` : 'Retry on the ones that missed'}
          </Button>
        </Group>
        {group.offerPoint ? (
          <Alert color="blue" variant="light">
            <Group justify="space-between" gap="xs" wrap="wrap">
              <Text size="sm">Nothing under the finger names itself: tap by point instead?</Text>
              <Button size="compact-sm" onClick={onPoint} disabled={!enabled}>
                Tap by point
              </Button>
            </Group>
          </Alert>
        ) : null}
        {group.lines.length === 0 ? (
          <Text size="sm" c="dimmed">
            Each action’s results show here, newest first.
          </Text>
        ) : (
          <Stack component="ol" gap={4} aria-label="Actions, newest first" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
            {group.lines.map((line) => (
              <Text component="li" key={line.actionId} size="sm">
                {line.summary}
                {line.only ? <Text span size="xs" c="dimmed">{` (retry on ${line.only.length})`}</Text> : null}
                {line.action.kind === 'point' ? (
                  <Text span size="xs" c="dimmed">
                    {' '}
                    · by point
                  </Text>
                ) : null}
                <Refusals group={group} results={line.results} />
              </Text>
            ))}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

/** Each refusal of one action, naming its phone and why ("Pixel 7: Group control is for setup: Instagram is in front"). */
function Refusals({ group, results }: { group: GroupState; results: GroupState['lines'][number]['results'] }) {
  const refused = group.phones.flatMap((phone) => {
    const result = results[phone.deviceId];
    return result?.kind === 'refused' && result.reason ? [{ deviceId: phone.deviceId, line: `${phone.name}: ${result.reason}` }] : [];
  });
  if (refused.length === 0) return null;
  const shown = refused.slice(0, REFUSALS_SHOWN);
  return (
    <Stack component="ul" gap={0} pl="md" style={{ margin: 0 }}>
      {shown.map((item) => (
        <Text component="li" key={item.deviceId} size="xs" c="dimmed">
          {item.line}
        </Text>
      ))}
      {refused.length > shown.length ? <Text component="li" size="xs" c="dimmed">{`and ${refused.length - shown.length} more refused`}</Text> : null}
    </Stack>
  );
}

/** A line lists at most this many refusals by name; each tile shows its own. */
const REFUSALS_SHOWN = 5;

function leaderNotice(view: GroupSessionView, connected: boolean, leaderId: string): string | null {
  if (!connected) return 'Connection lost. Reconnecting...';
  const watch = view.watch[leaderId];
  if (!watch || watch.kind === 'waiting') return 'Connecting to the phone...';
  if (watch.kind === 'refused') return watch.reason;
  if (!watch.streaming) return watch.reason ?? 'The phone is not streaming';
  return null;
}

export function GroupControlPage() {
  const me = useCurrentUser();
  const isOperator = me?.role === 'operator';
  const linked = useLinkedPhones();
  const [params, setParams] = useSearchParams();
  // The session opens with the phones the address named when the page opened; its own answers change them after.
  const [opened, setOpened] = useState<{ deviceIds: string[]; leaderId: string | null } | null>(null);
  useEffect(() => {
    if (opened === null && linked.deviceIds !== null) setOpened({ deviceIds: linked.deviceIds, leaderId: linked.leaderId });
  }, [opened, linked.deviceIds, linked.leaderId]);
  const [run, setRun] = useState(0);
  const [byPoint, setByPoint] = useState(false);
  const [typed, setTyped] = useState('');
  const compact = useMediaQuery('(max-width: 36em)') ?? false;
  const { session, view, connection, h264 } = useGroupSession(isOperator ? (opened?.deviceIds ?? null) : null, opened?.leaderId ?? null, run);

  const group = view?.group ?? null;
  const running = group?.status === 'running';
  const connected = connection === 'live';
  const enabled = running && connected && session !== null;

  // The address follows the session (its phones and leader), so a reload opens the same one.
  const sessionPath =
    group && running && group.phones.length > 0
      ? groupControlPath(
          group.phones.map((phone) => phone.deviceId),
          group.leaderId,
        )
      : null;
  useEffect(() => {
    const query = sessionPath?.split('?')[1];
    // Written only when it differs: writing the same address again would be a navigation of its own, and again.
    if (query && new URLSearchParams(query).toString() !== params.toString()) setParams(new URLSearchParams(query), { replace: true });
  }, [sessionPath, params, setParams]);

  const act = useMemo(
    () => (action: GroupAction) => {
      if (!session) return;
      const tap = action.kind === 'finger' || action.kind === 'point';
      session.act(action);
      // "Tap by point" is for the next tap only.
      if (tap) setByPoint(false);
    },
    [session],
  );

  if (me && !isOperator) {
    return (
      <>
        <PageHeader title="Group control" subtitle={GROUP_CONTROL_INTRO} />
        <EmptyText>Group control is for operators: ask an operator to drive phones together.</EmptyText>
      </>
    );
  }
  if (linked.missing) {
    return (
      <>
        <PageHeader title="Group control" subtitle={GROUP_CONTROL_INTRO} />
        <EmptyText>{linked.missing}</EmptyText>
      </>
    );
  }
  if (opened && opened.deviceIds.length === 0) {
    return (
      <>
        <PageHeader title="Group control" subtitle={GROUP_CONTROL_INTRO} />
        <EmptyText>No phones chosen. Select up to 30 phones on Devices, then choose Group control in the bulk bar.</EmptyText>
      </>
    );
  }
  if (!group || !view) return <LoadingState label="Opening group control..." />;

  const leader = group.phones.find((phone) => phone.deviceId === group.leaderId);
  const followers = group.phones.filter((phone) => phone.deviceId !== group.leaderId);
  const leaderName = leader?.name || 'The leader';
  const notice = leaderNotice(view, connected, group.leaderId);
  const held = group.phones.filter((phone) => phone.held).length;

  const sendTyped = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!typed) return;
    // One input event, one action: the field holds no more than one action types.
    act({ kind: 'text', text: typed.slice(0, GROUP_TEXT_MAX) });
    setTyped('');
  };

  return (
    <>
      <DevicesTabs />
      <PageHeader
        title="Group control"
        subtitle={GROUP_CONTROL_INTRO}
        actions={
          group.status === 'stopped' ? null : (
            <Button color="red" leftSection={<IconPlayerStop size={16} />} onClick={() => session?.stop()} disabled={!session}>
              Stop all
            </Button>
          )
        }
      />
      <Stack gap="md">
        {linked.capped ? (
          <Alert color="yellow" variant="light">
            {`Group control drives at most ${GROUP_MAX_PHONES} phones: the first ${GROUP_MAX_PHONES} are here.`}
          </Alert>
        ) : null}
        {group.status === 'stopped' ? (
          <Alert color="gray" variant="light" title="Group control stopped">
            <Group justify="space-between" gap="sm" wrap="wrap">
              <Text size="sm">Every phone was handed back; their tasks run again.</Text>
              <Group gap="xs">
                <Button size="xs" variant="default" onClick={() => setRun((value) => value + 1)}>
                  Start again
                </Button>
                <Anchor component={Link} to="/devices" size="sm">
                  Back to Devices
                </Anchor>
              </Group>
            </Group>
          </Alert>
        ) : null}
        {group.status === 'refused' ? (
          <Alert color="red" variant="light" title="Group control could not start">
            {group.notice ?? 'The phones could not be held.'}
          </Alert>
        ) : null}
        {group.status === 'running' && group.notice ? (
          <Alert color="yellow" variant="light">
            {group.notice}
          </Alert>
        ) : null}
        {view.idle && group.status === 'running' ? (
          <IdlePrompt count={view.idle.deviceIds.length} releaseAt={view.idle.releaseAt} onKeep={() => session?.keep()} />
        ) : null}

        {group.status === 'stopped' ? null : (
          <>
            <Group justify="space-between" gap="xs" wrap="wrap">
              <Text size="sm" c="dimmed" aria-live="polite">
                {group.status === 'running' ? `${held} of ${group.phones.length} phones held` : 'Holding the phones...'}
              </Text>
              <DrawingLoad />
            </Group>
            <Group align="flex-start" gap="md" wrap="wrap">
              <Paper withBorder radius="md" p="sm" component="section" aria-labelledby="group-leader-title" style={{ flex: '2 1 320px', minWidth: 0 }}>
                <Stack gap="xs">
                  <Group justify="space-between" gap="xs" wrap="wrap">
                    <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
                      <Badge variant="filled" style={{ flexShrink: 0 }}>
                        Leader
                      </Badge>
                      <Title order={2} fz="md" id="group-leader-title" style={{ overflowWrap: 'anywhere' }}>
                        {leaderName}
                      </Title>
                    </Group>
                    <ResultBadge result={group.last[group.leaderId]?.result} />
                  </Group>
                  <LeaderScreen
                    session={session}
                    deviceId={group.leaderId}
                    name={leaderName}
                    h264={h264}
                    enabled={enabled && notice === null}
                    notice={notice}
                    byPoint={byPoint}
                    act={act}
                  />
                  <Text size="xs" c="dimmed" ta="center">
                    Click to tap, drag to swipe, use the wheel to scroll, and type while the screen has focus.
                  </Text>
                  <Group gap={6} wrap="wrap" role="group" aria-label="Phone buttons">
                    {keyButtons.map(({ key, label, icon: Icon }) => (
                      <Button
                        key={key}
                        size="compact-sm"
                        variant="default"
                        leftSection={<Icon size={14} />}
                        onClick={() => act({ kind: 'key', key })}
                        disabled={!enabled}
                      >
                        {label}
                      </Button>
                    ))}
                    <GroupOpenMenu disabled={!enabled} act={act} />
                  </Group>
                  <Switch
                    label="Tap by point (next tap only)"
                    description="The next tap goes to the same point of every screen, not to the element under the finger."
                    checked={byPoint}
                    onChange={(event) => setByPoint(event.currentTarget.checked)}
                    disabled={!enabled}
                  />
                  <form onSubmit={sendTyped}>
                    <Group gap={6} wrap="nowrap" align="flex-end">
                      <TextInput
                        size="xs"
                        aria-label="Text for every phone"
                        placeholder="Text for every phone"
                        value={typed}
                        onChange={(event) => setTyped(event.currentTarget.value)}
                        maxLength={GROUP_TEXT_MAX}
                        style={{ flex: 1, minWidth: 0 }}
                      />
                      <Button type="submit" size="xs" variant="light" disabled={!enabled || !typed}>
                        Send text
                      </Button>
                    </Group>
                  </form>
                </Stack>
              </Paper>
              <ResultsPanel group={group} enabled={enabled} sending={view.sending} onRetry={() => session?.retry()} onPoint={() => session?.tapByPoint()} />
            </Group>

            <section aria-labelledby="group-followers-title">
              <Title order={2} fz="md" mb="xs" id="group-followers-title">
                {`Followers (${followers.length})`}
              </Title>
              {followers.length === 0 ? (
                <Text size="sm" c="dimmed">
                  No other phones in the group.
                </Text>
              ) : (
                <SimpleGrid cols={compact ? 1 : { base: 2, sm: 3, md: 4, lg: 5 }} spacing="sm">
                  {followers.map((phone) => (
                    <GroupTile
                      key={phone.deviceId}
                      session={session}
                      phone={phone}
                      watch={view.watch[phone.deviceId]}
                      same={sameScreen(group, phone.deviceId)}
                      result={group.last[phone.deviceId]?.result}
                      h264={h264}
                      compact={compact}
                      enabled={enabled}
                      onLeader={() => session?.makeLeader(phone.deviceId)}
                      onDrop={() => session?.drop(phone.deviceId)}
                    />
                  ))}
                </SimpleGrid>
              )}
            </section>

            {group.dropped.length > 0 ? (
              <section aria-labelledby="group-dropped-title">
                <Title order={2} fz="md" mb="xs" id="group-dropped-title">
                  Dropped
                </Title>
                <Stack gap={4}>
                  {group.dropped.map((phone) => (
                    <Group key={phone.deviceId} gap="xs" wrap="nowrap">
                      <Text size="sm" style={{ flex: 1, minWidth: 0 }} truncate>
                        {phone.name || 'Phone'}
                      </Text>
                      <Button
                        size="compact-xs"
                        variant="light"
                        onClick={() => session?.add(phone.deviceId)}
                        disabled={!enabled || group.phones.length >= GROUP_MAX_PHONES}
                        aria-label={`Add back: ${phone.name || 'Phone'}`}
                      >
                        Add back
                      </Button>
                    </Group>
                  ))}
                </Stack>
              </section>
            ) : null}

            <GroupControlApps />
          </>
        )}
      </Stack>
    </>
  );
}
