import { Alert } from '@mantine/core';
import { IconPlugConnectedX } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import type { ConnectionStatus } from '../realtime/connection';

/** A short drop (a deploy, a network blip) is not worth a banner; one longer than this is. */
export const BANNER_DELAY_MS = 5000;

export interface ConnectionBannerProps {
  status: ConnectionStatus;
  /** When the connection was lost; null while live. */
  downSince: number | null;
  delayMs?: number;
}

/** Says so when the live connection has been down for more than a few seconds. */
export function ConnectionBanner({ status, downSince, delayMs = BANNER_DELAY_MS }: ConnectionBannerProps) {
  const down = status !== 'live' && downSince !== null;
  // The moment the banner is due, kept as state so the render itself never reads the clock.
  const [dueAt, setDueAt] = useState<number | null>(null);
  const [now, setNow] = useState(0);

  useEffect(() => {
    if (!down) {
      setDueAt(null);
      return;
    }
    const due = downSince + delayMs;
    setDueAt(due);
    setNow(Date.now());
    const wait = due - Date.now();
    if (wait <= 0) return;
    const timer = setTimeout(() => setNow(Date.now()), wait);
    return () => clearTimeout(timer);
  }, [down, downSince, delayMs]);

  if (!down || dueAt === null || now < dueAt) return null;
  const offline = status === 'offline';
  return (
    <Alert
      role="alert"
      variant="light"
      color={offline ? 'red' : 'yellow'}
      icon={<IconPlugConnectedX size={18} />}
      title={offline ? 'You are offline' : 'Connection lost'}
      mb="md"
    >
      {offline
        ? 'Live updates are paused and what you see may be out of date. They resume when the connection is back.'
        : 'Live updates are paused while the console reconnects. What you see may be out of date.'}
    </Alert>
  );
}
