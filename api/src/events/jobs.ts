/**
 * Runs the workers' jobs for this API: in process on the embedded default; on BullMQ when REDIS_URL is set
 * (unless RUN_WORKERS=0 leaves that to separate workers processes). With Redis, the processes share their
 * announcements on one channel: what workers announce reaches every API instance, and one of them (the relay,
 * relay.ts) sends it to every browser through the Socket.IO adapter; the dispatcher's facts made by one API instance
 * (a phone woken, an attempt withdrawn) reach the instance that holds the phone.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { SHARED_CHANGES, CHANGES_CHANNEL, startInProcess, type Runner } from '@farm/workers';
import { isInternalEvent, parseChange } from '@farm/contracts';
import { logDroppedFailures } from '../shared/redis.ts';
import { ChangeRelay } from './relay.ts';

export async function startJobs(app: FastifyInstance, options: { redisUrl?: string | undefined; runWorkers: boolean }): Promise<Runner | undefined> {
  const { db, changes } = app.ctx;
  const files = app.ctx.storage;
  if (!options.redisUrl) {
    if (!options.runWorkers) return undefined;
    const runner = startInProcess({ db, files, announce: (change) => changes.publish(change) }, (name, error) =>
      app.log.error({ err: error, job: name }, 'job failed'),
    );
    app.addHook('onClose', () => runner.close());
    return runner;
  }
  const { Redis } = await import('ioredis');
  const subscriber = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  // What one turn publishes (a settled batch's wakes, the relay's record) goes out in one write.
  const publisher = new Redis(options.redisUrl, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
  for (const client of [subscriber, publisher]) client.on('error', (error: Error) => app.log.warn({ err: error }, 'redis (changes) error'));
  // ioredis subscribes the channel again after a reconnect, without waiting for the answer.
  logDroppedFailures(subscriber, ['subscribe'], (error) => app.log.warn({ err: error }, 'redis (changes): the channel was not subscribed again'));
  // What this instance shared comes back to it too: it knows its own by their first characters and skips them
  // unread (a settled batch shares a wake for each of its phones).
  const origin = randomUUID();
  const ownPrefix = `{"origin":"${origin}"`;
  const relay = new ChangeRelay(
    publisher,
    origin,
    (change) => changes.publish(change),
    (error) => app.log.warn({ err: error }, 'change relay'),
  );
  await subscriber.subscribe(CHANGES_CHANNEL);
  subscriber.on('message', (_channel: string, text: string) => {
    if (text.startsWith(ownPrefix)) return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      app.log.warn('unreadable change on the changes channel');
      return;
    }
    if ((raw as { origin?: unknown } | null)?.origin === origin) return;
    const change = parseChange(raw);
    if (!change) {
      app.log.warn({ event: (raw as { event?: unknown })?.event }, 'refused a change that does not match its schema');
      return;
    }
    const seq = (raw as { seq?: unknown }).seq;
    // Another instance's dispatcher facts, and announcements of workers that do not number them: each instance
    // delivers to its own sockets.
    if (typeof seq !== 'number' || isInternalEvent(change.event)) {
      changes.publish({ ...change, local: true });
      return;
    }
    // A worker's announcement: every instance does its own bookkeeping; the relay alone sends it to browsers,
    // through the adapter's stream, so each browser gets it once and a recovering one finds it there.
    changes.publish({ ...change, local: true, quiet: true });
    relay.receive(seq, change);
  });
  // This instance's dispatcher facts go to the others (one of them may hold the phone); what came from elsewhere is not sent on.
  const unforward = changes.subscribe((change) => {
    if (change.local || !SHARED_CHANGES.has(change.event)) return;
    publisher
      .publish(CHANGES_CHANNEL, JSON.stringify({ origin, ...change }))
      .catch((error: unknown) => app.log.warn({ err: error }, 'could not share a change'));
  });
  let workers: { close(): Promise<void> } | undefined;
  if (options.runWorkers) {
    const { startBullmq } = await import('@farm/workers/bullmq');
    workers = await startBullmq(options.redisUrl, { db, files }, { onError: (what, error) => app.log.warn({ err: error }, `workers: ${what}`) });
  }
  // A stopping instance hands the relay over first, while its adapter still delivers what it already sent.
  app.addHook('preClose', async () => {
    await relay.close();
  });
  app.addHook('onClose', async () => {
    unforward();
    await relay.close();
    await workers?.close();
    subscriber.disconnect();
    publisher.disconnect();
  });
  return undefined;
}
