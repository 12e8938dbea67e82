/** The embedded mode's queue: the same processors, each run on its schedule inside the API process, never overlapping itself. */
import { checkJobs, jobs, schedules, type JobDeps, type JobName } from './jobs.ts';
import { timeJob } from './metrics.ts';

/** Jobs run at start wait this long, so a starting process answers its first requests first. */
const START_DELAY_MS = 2_000;

export interface Runner {
  /** Runs a job now (and waits for it), as its schedule would; a run already under way is joined, not doubled. */
  runNow(name: JobName): Promise<unknown>;
  close(): Promise<void>;
}

export function startInProcess(deps: JobDeps, onError: (name: JobName, error: unknown) => void): Runner {
  checkJobs();
  const running = new Map<JobName, Promise<unknown>>();
  let closed = false;
  const run = (name: JobName) => {
    const current = running.get(name);
    if (current) return current;
    const next = timeJob<unknown>(name, () => jobs[name](undefined, deps))
      .catch((error: unknown) => {
        if (!closed) onError(name, error);
      })
      .finally(() => running.delete(name));
    running.set(name, next);
    return next;
  };
  const timers = (Object.keys(schedules) as JobName[]).map((name) => setInterval(() => void run(name), schedules[name].everyMs));
  const first = setTimeout(() => {
    for (const name of Object.keys(schedules) as JobName[]) if (schedules[name].atStart && !closed) void run(name);
  }, START_DELAY_MS);
  return {
    runNow: run,
    async close() {
      closed = true;
      clearTimeout(first);
      for (const timer of timers) clearInterval(timer);
      await Promise.all(running.values());
    },
  };
}
