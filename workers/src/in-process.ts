/** The embedded mode's queue: the same processors, each run on its schedule inside the API process, never overlapping itself. */
import { checkJobs, jobs, schedules, type JobDeps, type JobName } from './jobs.ts';
import { timeJob } from './metrics.ts';

/** Jobs run at start wait this long, so a starting process answers its first requests first. */
const START_DELAY_MS = 2_000;

export interface Runner {
  /**
   * Runs a job now and waits for a run that began after the call, so it sees what the caller wrote before calling.
   * A run already under way may have read before that: it finishes, then one more run goes, shared by every caller
   * meanwhile. A job never overlaps itself.
   */
  runNow(name: JobName): Promise<unknown>;
  close(): Promise<void>;
}

/** The processors and their schedules (the workers' own; a test gives its own). */
export interface JobTable {
  jobs: Record<JobName, (data: undefined, deps: JobDeps) => Promise<unknown>>;
  schedules: typeof schedules;
}

export function startInProcess(deps: JobDeps, onError: (name: JobName, error: unknown) => void, table: JobTable = { jobs, schedules }): Runner {
  checkJobs();
  const running = new Map<JobName, Promise<unknown>>();
  /** The run each job has queued after the one under way, for the callers of runNow meanwhile. */
  const queued = new Map<JobName, Promise<unknown>>();
  let closed = false;
  /** The job's run under way, or a new one: what its schedule asks for (a tick during a run adds nothing). */
  const run = (name: JobName): Promise<unknown> => {
    const current = running.get(name);
    if (current) return current;
    const next = timeJob<unknown>(name, () => table.jobs[name](undefined, deps))
      .catch((error: unknown) => {
        if (!closed) onError(name, error);
      })
      .finally(() => running.delete(name));
    running.set(name, next);
    return next;
  };
  const runAfterNow = (name: JobName): Promise<unknown> => {
    const current = running.get(name);
    if (!current) return run(name);
    let after = queued.get(name);
    if (!after) {
      after = current.then(() => {
        queued.delete(name);
        return closed ? undefined : run(name);
      });
      queued.set(name, after);
    }
    return after;
  };
  const names = Object.keys(table.schedules) as JobName[];
  const timers = names.map((name) => setInterval(() => void run(name), table.schedules[name].everyMs));
  const first = setTimeout(() => {
    for (const name of names) if (table.schedules[name].atStart && !closed) void run(name);
  }, START_DELAY_MS);
  return {
    runNow: runAfterNow,
    async close() {
      closed = true;
      clearTimeout(first);
      for (const timer of timers) clearInterval(timer);
      await Promise.all([...running.values(), ...queued.values()]);
    },
  };
}
