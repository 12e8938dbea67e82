/** The embedded mode's queue: the same processors, each run on its schedule inside the API process, never overlapping itself. */
import { checkJobs, jobs, schedules, type JobDeps, type JobName } from './jobs.ts';

export interface Runner {
  /** Runs a job now (and waits for it), as its schedule would. */
  runNow(name: JobName): Promise<unknown>;
  close(): Promise<void>;
}

export function startInProcess(deps: JobDeps, onError: (name: JobName, error: unknown) => void): Runner {
  checkJobs();
  const running = new Map<JobName, Promise<unknown>>();
  const run = (name: JobName) => {
    const current = running.get(name);
    if (current) return current;
    const next = jobs[name](undefined, deps)
      .catch((error: unknown) => onError(name, error))
      .finally(() => running.delete(name));
    running.set(name, next);
    return next;
  };
  const timers = (Object.keys(schedules) as JobName[]).map((name) => setInterval(() => void run(name), schedules[name].everyMs));
  return {
    runNow: run,
    async close() {
      for (const timer of timers) clearInterval(timer);
      await Promise.all(running.values());
    },
  };
}
