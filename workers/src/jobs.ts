/**
 * The closed set of jobs: each name has exactly one processor, a function of (data, deps) that runs the same
 * under BullMQ (distributed) or the in-process adapter (embedded).
 */
import { processCampaignsDue } from './campaigns.due.ts';
import { processPostsDue, type PostsDueDeps } from './posts.due.ts';

export const jobs = {
  'posts.due': processPostsDue,
  'campaigns.due': processCampaignsDue,
} as const satisfies Record<string, (data: unknown, deps: PostsDueDeps) => Promise<unknown>>;

export type JobName = keyof typeof jobs;
export type JobDeps = PostsDueDeps;

/** How often each job runs: due work is found in the database, so a trigger is all a job needs. */
export const schedules: Record<JobName, { everyMs: number }> = {
  'posts.due': { everyMs: 5000 },
  'campaigns.due': { everyMs: 5000 },
};

/** Refuses to start with a job that has no processor or no schedule. */
export function checkJobs(): void {
  for (const name of Object.keys(schedules)) if (!(name in jobs)) throw new Error(`job ${name} has no processor`);
  for (const name of Object.keys(jobs)) if (!(name in schedules)) throw new Error(`job ${name} has no schedule`);
}
