/**
 * The closed set of jobs: each name has exactly one processor, a function of (data, deps) that runs the same
 * under BullMQ (distributed) or the in-process adapter (embedded). Every job finds its work in the database, so a
 * trigger is all it needs: a lost or repeated trigger loses or doubles nothing.
 */
import { processAccountsWarmup } from './accounts/warmup.ts';
import { processCampaignsDue, processCampaignsPlan } from './campaigns/runs.ts';
import { processDatabaseVacuum } from './maintenance/vacuum.ts';
import type { JobDeps } from './jobs.types.ts';
import { processPostsDue } from './posts/posts.due.ts';
import { processPostsMedia } from './posts/posts.media.ts';
import { processRetentionPrune } from './retention/prune.ts';
import { processTaskTally } from './tasks/tally.ts';
import { processDevicesWatchdog } from './watchdogs/devices.ts';
import { processTaskLeases } from './watchdogs/leases.ts';
import { processStuckPosts } from './watchdogs/posts.ts';
import { processWebhooksDeliver } from './webhooks.deliver.ts';

export type { JobDeps };

export const jobs = {
  'posts.due': processPostsDue,
  'campaigns.plan': processCampaignsPlan,
  'campaigns.due': processCampaignsDue,
  'accounts.warmup': processAccountsWarmup,
  'tasks.leases': processTaskLeases,
  'devices.watchdog': processDevicesWatchdog,
  'posts.stuck': processStuckPosts,
  'webhooks.deliver': processWebhooksDeliver,
  'retention.prune': processRetentionPrune,
  'tasks.tally': processTaskTally,
  'database.vacuum': processDatabaseVacuum,
  'posts.media': processPostsMedia,
} as const satisfies Record<string, (data: unknown, deps: JobDeps) => Promise<unknown>>;

export type JobName = keyof typeof jobs;

/** How often each job runs; `atStart`: also once as the process starts (BullMQ's schedulers run a first job at once). */
export const schedules: Record<JobName, { everyMs: number; atStart?: boolean }> = {
  'posts.due': { everyMs: 2_000 },
  'campaigns.plan': { everyMs: 60_000 },
  'campaigns.due': { everyMs: 5_000 },
  'accounts.warmup': { everyMs: 60_000 },
  'tasks.leases': { everyMs: 2_000 },
  'devices.watchdog': { everyMs: 5_000 },
  'posts.stuck': { everyMs: 30_000 },
  'webhooks.deliver': { everyMs: 15_000 },
  'retention.prune': { everyMs: 3_600_000 },
  'tasks.tally': { everyMs: 30_000 },
  'database.vacuum': { everyMs: 600_000 },
  // Posts holding outside media from before the rule: taken in once, at start and after (restored backups).
  'posts.media': { everyMs: 600_000, atStart: true },
};

/** Refuses to start with a job that has no processor or no schedule. */
export function checkJobs(): void {
  for (const name of Object.keys(schedules)) if (!(name in jobs)) throw new Error(`job ${name} has no processor`);
  for (const name of Object.keys(jobs)) if (!(name in schedules)) throw new Error(`job ${name} has no schedule`);
}
