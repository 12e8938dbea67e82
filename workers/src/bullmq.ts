/**
 * The distributed mode's queue: a BullMQ job scheduler triggers each job on its schedule and workers run the
 * same processors. Announcements go to the API instances over Redis, which relay them to browsers.
 */
import { Queue, Worker, UnrecoverableError } from 'bullmq';
import { Redis } from 'ioredis';
import { CHANGES_CHANNEL } from './changes.ts';
import { checkJobs, jobs, schedules, type JobName } from './jobs.ts';
import type { PostsDueDeps } from './posts.due.ts';

export const QUEUE = 'farm-jobs';

export async function startBullmq(redisUrl: string, deps: Omit<PostsDueDeps, 'announce'>, options: { concurrency?: number; queue?: string } = {}) {
  checkJobs();
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const publisher = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  const name = options.queue ?? QUEUE;
  const queue = new Queue(name, { connection });
  for (const job of Object.keys(schedules) as JobName[]) {
    await queue.upsertJobScheduler(job, { every: schedules[job].everyMs }, { name: job, opts: { removeOnComplete: 100, removeOnFail: 500 } });
  }
  const worker = new Worker(
    name,
    async (job) => {
      const processor = jobs[job.name as JobName] as (data: unknown, deps: PostsDueDeps) => Promise<unknown> | undefined;
      if (!processor) throw new UnrecoverableError(`no processor for ${job.name}`);
      return processor(job.data, { ...deps, announce: (change) => void publisher.publish(CHANGES_CHANNEL, JSON.stringify(change)) });
    },
    { connection, concurrency: options.concurrency ?? 1 },
  );
  return {
    queue,
    worker,
    async close() {
      await worker.close();
      await queue.close();
      publisher.disconnect();
      connection.disconnect();
    },
  };
}
