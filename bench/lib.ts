/** Small helpers every bench uses: waiting, percentiles, a free port. */
import { createServer } from 'node:net';

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The p-th percentile of the finite values (NaN when there are none). */
export function percentile(values: number[], p: number): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** A port nobody listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
