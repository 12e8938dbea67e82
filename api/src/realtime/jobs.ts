/**
 * Runs the workers' jobs for this API: in process on the embedded default; on BullMQ when REDIS_URL is set
 * (unless RUN_WORKERS=0 leaves that to separate workers processes). Announcements of jobs run elsewhere
 * arrive over Redis and are relayed by every instance to its own browsers.
 */
import type { FastifyInstance } from 'fastify';
import { CHANGES_CHANNEL, startInProcess, type Announcement, type Runner } from '@farm/workers';
import type { Change } from './changes.ts';

export async function startJobs(app: FastifyInstance, options: { redisUrl?: string | undefined; runWorkers: boolean }): Promise<Runner | undefined> {
  const { db, changes } = app.ctx;
  if (!options.redisUrl) {
    if (!options.runWorkers) return undefined;
    const runner = startInProcess({ db, announce: (change) => changes.publish(change as Change) }, (name, error) => app.log.error({ err: error, job: name }, 'job failed'));
    app.addHook('onClose', () => runner.close());
    return runner;
  }
  const { Redis } = await import('ioredis');
  const subscriber = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  subscriber.on('error', (error: Error) => app.log.warn({ err: error }, 'redis (changes) error'));
  await subscriber.subscribe(CHANGES_CHANNEL);
  subscriber.on('message', (_channel: string, text: string) => {
    try {
      const change = JSON.parse(text) as Announcement;
      if (typeof change.workspaceId === 'string' && typeof change.event === 'string') changes.publish({ ...(change as Change), local: true } as Change);
    } catch (error) {
      app.log.warn({ err: error }, 'unreadable change from a worker');
    }
  });
  let workers: { close(): Promise<void> } | undefined;
  if (options.runWorkers) {
    const { startBullmq } = await import('@farm/workers/bullmq');
    workers = await startBullmq(options.redisUrl, { db });
  }
  app.addHook('onClose', async () => {
    await workers?.close();
    subscriber.disconnect();
  });
  return undefined;
}
