/** One shared one-second tick for everything on screen that counts time (running sessions), instead of a timer per row. */
import { useEffect, useState } from 'react';

const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribeTick(listener: () => void): () => void {
  listeners.add(listener);
  timer ??= setInterval(() => {
    for (const notify of listeners) notify();
  }, 1000);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** The current time in ms, re-rendering every second while `enabled`. */
export function useNow(enabled = true): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!enabled) return;
    setNow(Date.now());
    return subscribeTick(() => setNow(Date.now()));
  }, [enabled]);
  return now;
}
