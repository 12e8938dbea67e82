export interface Beating {
  stop(): void;
}

export interface BeatClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** A number in [0, 1). */
  random(): number;
}

const systemClock: BeatClock = { now: () => performance.now(), random: Math.random };

/**
 * Calls `beat` (a heartbeat, a screenshot) every `periodMs` on this agent's own clock, from a random point of the
 * first period: the n-th call is due at that point + n periods, however late the one before ran; a stall of over a
 * period skips what it missed rather than sending it all at once. Phones that reconnect together (after a server's
 * restart) so spread their heartbeats over the period and keep them spread. With a plain interval, re-armed from when
 * it last ran, every stall of a process holding many phones (a farm host) would gather the ones it delayed into a
 * burst for good, and the server would take a whole farm's heartbeats in a fraction of each period.
 */
export function beating(beat: () => void, periodMs: number, clock: BeatClock = systemClock): Beating {
  const first = clock.now() + clock.random() * periodMs;
  let n = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = () => {
    const now = clock.now();
    if (first + n * periodMs < now - periodMs) n = Math.ceil((now - first) / periodMs);
    timer = setTimeout(
      () => {
        n += 1;
        beat();
        if (!stopped) arm();
      },
      Math.max(0, first + n * periodMs - now),
    );
  };
  arm();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
