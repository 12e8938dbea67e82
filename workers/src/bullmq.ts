/**
 * The distributed mode's queue: BullMQ job schedulers trigger each job on its schedule and workers run the same
 * processors. Redis holds only triggers; a reconciler puts the schedulers back whenever Redis comes back (the
 * connection's `ready`), every minute, and within seconds of finding them gone (a flush), so nothing due waits for
 * a worker restart. Announcements go to the API instances over Redis, which relay them to browsers and phones.
 */
import { Queue, Worker, UnrecoverableError } from 'bullmq';
import { Redis } from 'ioredis';
import { redisAnnouncer } from './announcer.ts';
import { checkJobs, jobs, schedules, type JobDeps, type JobName } from './jobs.ts';
import { timeJob } from './metrics.ts';

export const QUEUE = 'farm-jobs';
const RECONCILE_MS = 60_000;
const CHECK_MS = 5_000;

export interface BullmqOptions {
  concurrency?: number;
  queue?: string;
  onError?: (what: string, error: unknown) => void;
}

export async function startBullmq(redisUrl: string, deps: Omit<JobDeps, 'announce'>, options: BullmqOptions = {}) {
  checkJobs();
  const onError = options.onError ?? ((what: string, error: unknown) => console.error(`workers: ${what}:`, error));
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const publisher = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  for (const client of [connection, publisher]) client.on('error', (error: Error) => onError('redis', error));
  const name = options.queue ?? QUEUE;
  const queue = new Queue(name, { connection });
  const names = Object.keys(schedules) as JobName[];

  let reconciling: Promise<void> | undefined;
  const reconcile = () =>
    (reconciling ??= (async () => {
      for (const job of names) {
        await queue.upsertJobScheduler(job, { every: schedules[job].everyMs }, { name: job, opts: { removeOnComplete: 100, removeOnFail: 500, attempts: 1 } });
      }
    })().finally(() => (reconciling = undefined)));
  await reconcile();
  connection.on('ready', () => void reconcile().catch((error: unknown) => onError('reconcile', error)));
  const every = setInterval(() => void reconcile().catch((error: unknown) => onError('reconcile', error)), RECONCILE_MS);
  const check = setInterval(() => {
    queue
      .getJobSchedulersCount()
      .then((count) => (count < names.length ? reconcile() : undefined))
      .catch(() => undefined);
  }, CHECK_MS);

  // Numbered in the order they are made, and published in that order: the API instance that relays them to browsers
  // knows, on taking over from another, which it has yet to send.
  const { announce, flushed } = redisAnnouncer(publisher, (error) => onError('announce', error));
  const worker = new Worker(
    name,
    async (job) => {
      const processor = jobs[job.name as JobName] as ((data: unknown, deps: JobDeps) => Promise<unknown>) | undefined;
      if (!processor) throw new UnrecoverableError(`no processor for ${job.name}`);
      return timeJob(job.name, () => processor(job.data, { ...deps, announce }));
    },
    { connection, concurrency: options.concurrency ?? 2 },
  );
  worker.on('failed', (job, error) => onError(`job ${job?.name ?? '?'}`, error));
  worker.on('error', (error) => onError('worker', error));
  return {
    queue,
    worker,
    reconcile,
    async close() {
      clearInterval(every);
      clearInterval(check);
      await worker.close();
      await queue.close();
      // What the last jobs announced goes out before the connection closes.
      await flushed();
      publisher.disconnect();
      connection.disconnect();
    },
  };
}
