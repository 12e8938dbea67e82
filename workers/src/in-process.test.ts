import { afterEach, describe, expect, it } from 'vitest';
import { jobs, schedules, type JobDeps } from './jobs.ts';
import { startInProcess, type JobTable, type Runner } from './in-process.ts';

/** A table whose jobs do nothing but `posts.due`, which reads `state` once it is let go; no schedule fires in a test. */
function table(due: () => Promise<unknown>): JobTable {
  const quiet = Object.fromEntries(Object.keys(jobs).map((name) => [name, async () => undefined])) as unknown as JobTable['jobs'];
  const never = Object.fromEntries(Object.keys(schedules).map((name) => [name, { everyMs: 3_600_000 }])) as typeof schedules;
  return { jobs: { ...quiet, 'posts.due': due }, schedules: never };
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('the embedded queue', () => {
  let runner: Runner | undefined;
  afterEach(async () => {
    await runner?.close();
    runner = undefined;
  });

  it('runs once more after a run under way, for every caller meanwhile, and that run sees what they wrote', async () => {
    let state = 'before';
    let inFlight = 0;
    let most = 0;
    const seen: string[] = [];
    const gates = [gate(), gate()];
    let runs = 0;
    runner = startInProcess(
      {} as JobDeps,
      () => undefined,
      table(async () => {
        const mine = gates[runs] ?? gate();
        runs += 1;
        inFlight += 1;
        most = Math.max(most, inFlight);
        // A run reads what is there as it begins, as posts.due's first batch does.
        const read = state;
        await mine.opened;
        inFlight -= 1;
        seen.push(read);
        return read;
      }),
    );
    const first = runner.runNow('posts.due');
    // Written after the first run read: a caller that waits for a run wants one that sees this.
    state = 'after';
    const second = runner.runNow('posts.due');
    const third = runner.runNow('posts.due');
    expect(third).toBe(second);
    gates[0]!.open();
    await expect(first).resolves.toBe('before');
    gates[1]!.open();
    await expect(second).resolves.toBe('after');
    expect(seen).toEqual(['before', 'after']);
    expect(runs).toBe(2);
    expect(most).toBe(1);
  });

  it('lets a run under way end on close, and starts no run queued behind it', async () => {
    const order: string[] = [];
    const hold = gate();
    let runs = 0;
    runner = startInProcess(
      {} as JobDeps,
      () => undefined,
      table(async () => {
        runs += 1;
        const n = runs;
        order.push(`start ${n}`);
        if (n === 1) await hold.opened;
        order.push(`end ${n}`);
      }),
    );
    void runner.runNow('posts.due');
    const after = runner.runNow('posts.due');
    const closing = runner.close();
    runner = undefined;
    hold.open();
    await closing;
    await after;
    // Closed before the first run ended: the queued run does not start.
    expect(order).toEqual(['start 1', 'end 1']);
  });
});
