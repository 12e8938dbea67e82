/**
 * The workers process of the distributed mode: `pnpm start:workers` with DATABASE_URL and REDIS_URL. It serves
 * /healthz, /readyz and /metrics on HEALTH_PORT, and on SIGTERM lets its running jobs finish before it leaves.
 */
import { z } from 'zod';
import { openDatabase } from '@farm/sql';
import { startBullmq } from './bullmq.ts';
import { storedFiles } from './files.ts';
import { redisPinger, startHealthServer } from './health.ts';
import { metricsText, watchForMetrics } from './metrics.ts';
import { automationEnv, configureAutomation, settingsFromEnv } from './settings.ts';

/** How long a SIGTERM waits for running jobs before the process leaves anyway. */
const SHUTDOWN_MS = 10_000;

const env = automationEnv
  .extend({
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
    REDIS_URL: z.url({ protocol: /^rediss?$/ }),
    /** Named (prepared) statements; off behind a PgBouncer in transaction mode before 1.21. */
    DATABASE_PREPARED_STATEMENTS: z.enum(['0', '1', 'true', 'false', 'yes', 'no']).default('1'),
    HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
    METRICS_TOKEN: z.string().min(16, { message: 'must be at least 16 characters' }).optional(),
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    /** The API's DATA_DIR, shared (a volume): retention removes screenshots' files there. Without it they are kept. */
    DATA_DIR: z.string().min(1).optional(),
  })
  .safeParse(Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== '')));
if (!env.success) {
  const issue = env.error.issues[0];
  console.error(`Invalid configuration: ${String(issue?.path[0] ?? 'environment')} ${issue?.message ?? 'is invalid'}`);
  process.exit(1);
}
const log = (level: 'info' | 'warn' | 'error', msg: string, extra: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ level, time: Date.now(), process: 'workers', pid: process.pid, msg, ...extra }));

configureAutomation(settingsFromEnv(env.data));
const database = await openDatabase({
  kind: 'postgres',
  url: env.data.DATABASE_URL,
  prepare: ['1', 'true', 'yes'].includes(env.data.DATABASE_PREPARED_STATEMENTS),
});
const running = await startBullmq(
  env.data.REDIS_URL,
  { db: database.db, files: env.data.DATA_DIR ? storedFiles(env.data.DATA_DIR) : undefined },
  {
    concurrency: env.data.WORKER_CONCURRENCY,
    onError: (what, error) => log('warn', `workers: ${what}`, { err: error instanceof Error ? error.message : String(error) }),
  },
);
watchForMetrics({ database, queueCounts: () => running.queue.getJobCounts('waiting', 'delayed', 'active', 'failed') });
const health = await startHealthServer({
  port: env.data.HEALTH_PORT,
  database,
  redis: await redisPinger(env.data.REDIS_URL),
  metrics: metricsText,
  metricsToken: env.data.METRICS_TOKEN,
}).catch((error: NodeJS.ErrnoException) => {
  // Two workers processes on one machine need a port each (HEALTH_PORT=0 picks a free one).
  console.error(error.code === 'EADDRINUSE' ? `Invalid configuration: HEALTH_PORT ${env.data.HEALTH_PORT} is taken by another process` : error.message);
  process.exit(1);
});
const address = health.address();
log('info', `Workers running; health on port ${typeof address === 'object' && address ? address.port : env.data.HEALTH_PORT}`);

let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    log('info', `${signal}: letting running jobs finish`);
    const force = setTimeout(() => {
      log('warn', `jobs still running after ${SHUTDOWN_MS} ms; leaving (their work is found again in the database)`);
      process.exit(1);
    }, SHUTDOWN_MS);
    force.unref();
    void running
      .close()
      .then(() => new Promise<void>((resolve) => health.close(() => resolve())))
      .then(() => database.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  });
}
