/**
 * A follower of the group: its picture (small, from the `watch` stream), its name, whether it showed the leader's
 * screen at the last action, and its last result (why, on hover or focus; the screen it missed on, where the phone
 * sent one). On a phone-width page a row without the picture.
 */
import { Badge, Button, Group, Image, Modal, Paper, Stack, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import type { GroupActResult } from '@farm/agent-protocol/group';
import type { LiveGroupPhone } from '@farm/contracts';
import { useEffect, useState } from 'react';
import type { GroupSession, WatchState } from './group.session';
import { sameScreenLabel, type SameScreen } from './group.state';
import { GroupPicture } from './GroupPicture';

/** The widest a tile's picture is drawn. */
export const TILE_MAX_WIDTH = 480;

const resultColour: Record<GroupActResult['kind'], string> = {
  done: 'green',
  not_found: 'orange',
  matches: 'orange',
  different_screen: 'yellow',
  refused: 'red',
  busy: 'gray',
  offline: 'gray',
  not_supported: 'gray',
};

/** The last result's label, and its reason on hover or focus (read out with it). */
export function ResultBadge({ result }: { result: GroupActResult | undefined }) {
  if (!result) {
    return (
      <Text size="xs" c="dimmed">
        No result yet
      </Text>
    );
  }
  const label = `${result.label}${result.byPoint ? ' (by point)' : ''}`;
  const badge = (
    <Badge
      variant="light"
      color={resultColour[result.kind]}
      tabIndex={result.reason ? 0 : undefined}
      style={{ textTransform: 'none', cursor: result.reason ? 'help' : undefined }}
    >
      {label}
      {result.reason ? <VisuallyHidden>{`: ${result.reason}`}</VisuallyHidden> : null}
    </Badge>
  );
  return result.reason ? (
    <Tooltip label={result.reason} multiline maw={280} withArrow events={{ hover: true, focus: true, touch: true }}>
      {badge}
    </Tooltip>
  ) : (
    badge
  );
}

/** The screen a phone showed when it missed, as a picture the person can open. */
function MissFrame({ name, frame }: { name: string; frame: NonNullable<GroupActResult['frame']> }) {
  const [opened, setOpened] = useState(false);
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!opened) return;
    const data: unknown = frame.data;
    const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(frame.data);
    const made = URL.createObjectURL(new Blob([bytes], { type: frame.mime }));
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [opened, frame]);
  return (
    <>
      <Button size="compact-xs" variant="subtle" onClick={() => setOpened(true)}>
        Screen it missed on
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={`${name}: the screen it missed on`} size="sm">
        {url ? <Image src={url} alt={`${name}'s screen when it missed`} radius="sm" /> : null}
      </Modal>
    </>
  );
}

export interface GroupTileProps {
  session: GroupSession | null;
  phone: LiveGroupPhone;
  watch: WatchState | undefined;
  same: SameScreen;
  result: GroupActResult | undefined;
  h264: boolean;
  /** A row of the list without the picture (phone-width pages). */
  compact: boolean;
  /** The session runs and the connection is up: Make leader and Drop can be sent. */
  enabled: boolean;
  onLeader: () => void;
  onDrop: () => void;
}

function tileNotice(phone: LiveGroupPhone, watch: WatchState | undefined): string | null {
  if (watch?.kind === 'refused') return watch.reason;
  if (!phone.held && phone.reason) return phone.reason;
  if (watch?.kind === 'watching' && !watch.streaming) return watch.reason ?? 'The phone is not streaming';
  return null;
}

export function GroupTile({ session, phone, watch, same, result, h264, compact, enabled, onLeader, onDrop }: GroupTileProps) {
  const name = phone.name || 'Phone';
  const notice = tileNotice(phone, watch);
  const [size, setSize] = useState({ width: 9, height: 19.5 });
  return (
    <Paper withBorder radius="md" p="xs" component="article" aria-label={name}>
      <Stack gap={6}>
        {compact ? null : (
          <div
            style={{
              position: 'relative',
              width: '100%',
              maxWidth: TILE_MAX_WIDTH,
              aspectRatio: `${size.width} / ${size.height}`,
              maxHeight: 320,
              margin: '0 auto',
              borderRadius: 'var(--mantine-radius-sm)',
              overflow: 'hidden',
              background: 'var(--mantine-color-dark-8)',
            }}
            role="img"
            aria-label={`Live screen of ${name}`}
          >
            <GroupPicture session={session} deviceId={phone.deviceId} h264={h264} onSize={setSize} />
          </div>
        )}
        <Text size="sm" fw={600} truncate title={name}>
          {name}
        </Text>
        <Group justify="space-between" gap={4} wrap="wrap">
          <Text size="xs" c={same === 'different' ? undefined : 'dimmed'} fw={same === 'different' ? 600 : undefined}>
            {sameScreenLabel(same)}
          </Text>
          <ResultBadge result={result} />
        </Group>
        {notice ? (
          <Text size="xs" c="dimmed" lineClamp={2} title={notice}>
            {notice}
          </Text>
        ) : null}
        {result?.frame ? <MissFrame name={name} frame={result.frame} /> : null}
        <Group gap={4} wrap="wrap">
          <Button size="compact-xs" variant="light" onClick={onLeader} disabled={!enabled || !phone.held} aria-label={`Make leader: ${name}`}>
            Make leader
          </Button>
          <Button size="compact-xs" variant="default" onClick={onDrop} disabled={!enabled} aria-label={`Drop ${name}`}>
            Drop
          </Button>
          {!phone.held && phone.controlledBy ? (
            <Button
              size="compact-xs"
              variant="subtle"
              onClick={() => session?.askFor(phone.deviceId)}
              disabled={!enabled}
              aria-label={`Ask to take over ${name}`}
            >
              Ask to take over
            </Button>
          ) : null}
        </Group>
      </Stack>
    </Paper>
  );
}
