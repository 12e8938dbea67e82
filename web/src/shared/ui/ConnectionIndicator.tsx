import { Badge, Tooltip } from '@mantine/core';
import type { ConnectionStatus } from '../realtime/connection';

const looks: Record<ConnectionStatus, { label: string; color: string; hint: string }> = {
  live: { label: 'Live', color: 'green', hint: 'Live updates are on' },
  connecting: { label: 'Connecting', color: 'yellow', hint: 'Connecting to live updates…' },
  reconnecting: { label: 'Reconnecting', color: 'yellow', hint: 'The connection dropped; reconnecting…' },
  offline: { label: 'Offline', color: 'red', hint: 'No connection: what you see may be out of date' },
};

export function connectionLabel(status: ConnectionStatus): string {
  return looks[status].label;
}

/** A small badge for the state of the live connection; its accessible name reads e.g. 'Connection: Live'. */
export function ConnectionIndicator({ status, withinPortal = true }: { status: ConnectionStatus; withinPortal?: boolean }) {
  const look = looks[status];
  return (
    <Tooltip label={look.hint} withinPortal={withinPortal}>
      <Badge variant="dot" color={look.color} size="md" role="status" aria-label={`Connection: ${look.label}`} styles={{ label: { textTransform: 'none' } }}>
        {look.label}
      </Badge>
    </Tooltip>
  );
}
