import type { Session } from '@farm/contracts';
import { formatClock } from '../format';
import { useLiveDuration } from '../live-duration';

/** A session's running time as h:mm:ss or m:ss, counting every second while the session runs. */
export function LiveDuration({ session }: { session: Pick<Session, 'duration' | 'isActive' | 'endedAt'> }) {
  return <>{formatClock(useLiveDuration(session))}</>;
}
