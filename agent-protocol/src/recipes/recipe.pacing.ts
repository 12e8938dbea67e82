/**
 * Counts (`5..12`) and durations (`2..6s`, `800ms`, `1..3m`) as recipes write them, drawn with an injectable
 * random source so runs look human on a phone and are exact in tests. The clock is injectable for the same reason.
 */

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A clock for tests and demos: sleeping moves time forward at once. */
export function manualClock(start = 0): Clock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
      await Promise.resolve();
    },
  };
}

/** A seeded random source (mulberry32), for runs that must repeat exactly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const COUNT_PATTERN = /^\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?$/;
export const DURATION_PATTERN = /^\s*(\d+(?:\.\d+)?)\s*(?:\.\.\s*(\d+(?:\.\d+)?)\s*)?(ms|s|m)\s*$/;

/** A whole number from `n` or `a..b` (inclusive). */
export function drawCount(value: number | string, random: () => number): number {
  if (typeof value === 'number') return value;
  const match = COUNT_PATTERN.exec(value);
  if (!match) throw new Error(`"${value}" is not a count (write 5 or 5..12).`);
  const low = Number(match[1]);
  const high = match[2] === undefined ? low : Number(match[2]);
  const [min, max] = low <= high ? [low, high] : [high, low];
  return min + Math.floor(random() * (max - min + 1));
}

/** Milliseconds from a number (ms) or `800ms`, `2s`, `2..6s`, `1..3m`. */
export function drawDuration(value: number | string, random: () => number): number {
  if (typeof value === 'number') return value;
  const match = DURATION_PATTERN.exec(value);
  if (!match) throw new Error(`"${value}" is not a duration (write 800ms, 2s, 2..6s or 1..3m).`);
  const unit = match[3] === 'ms' ? 1 : match[3] === 's' ? 1000 : 60_000;
  const low = Number(match[1]) * unit;
  const high = match[2] === undefined ? low : Number(match[2]) * unit;
  const [min, max] = low <= high ? [low, high] : [high, low];
  return Math.round(min + random() * (max - min));
}
