/**
 * Prometheus metrics of a process (prom-client): one registry per process with the Node defaults (event-loop lag,
 * heap, CPU), the jobs' durations and failures, and what is read from the database at scrape time: tasks by state
 * and failure reason, the queue's depth and the database pool. The API adds its HTTP and socket metrics to the same registry.
 */
import { sql } from 'kysely';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '@farm/sql';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

export const jobDuration = new Histogram({
  name: 'farm_job_duration_seconds',
  help: 'How long each job run took, by job and outcome',
  labelNames: ['job', 'outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const jobFailures = new Counter({
  name: 'farm_job_failures_total',
  help: 'Job runs that ended in an error, by job',
  labelNames: ['job'] as const,
  registers: [registry],
});

/** Times one run of a job into the metrics; the run's result or error passes through unchanged. */
export async function timeJob<T>(job: string, run: () => Promise<T>): Promise<T> {
  const end = jobDuration.startTimer({ job });
  try {
    const result = await run();
    end({ outcome: 'ok' });
    return result;
  } catch (error) {
    end({ outcome: 'failed' });
    jobFailures.inc({ job });
    throw error;
  }
}

export interface ScrapeSources {
  database: Database;
  /** Waiting, delayed, active and failed jobs of the BullMQ queue, where this process has one. */
  queueCounts?: () => Promise<Record<string, number>>;
}

let sources: ScrapeSources | undefined;

/** Names what the scrape-time gauges read; the last call wins (one process, one database). */
export function watchForMetrics(next: ScrapeSources): void {
  sources = next;
}

new Gauge({
  name: 'farm_tasks',
  help: 'Tasks by lifecycle state and failure reason, read at scrape time',
  labelNames: ['status', 'failure'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    if (!sources) return;
    const { rows } = await sql<{ status: string; failureCode: string | null; count: string }>`
      SELECT status, failure_code, count(*) AS count FROM tasks GROUP BY status, failure_code`.execute(sources.database.db);
    for (const row of rows) this.set({ status: row.status, failure: row.failureCode ?? 'none' }, Number(row.count));
  },
});

new Gauge({
  name: 'farm_queue_jobs',
  help: 'Jobs in the BullMQ queue by state',
  labelNames: ['state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    const counts = await sources?.queueCounts?.().catch(() => undefined);
    for (const [state, count] of Object.entries(counts ?? {})) this.set({ state }, count);
  },
});

new Gauge({
  name: 'farm_db_pool_connections',
  help: 'PostgreSQL pool connections: total, idle, and requests waiting for one',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    this.reset();
    const pool = sources?.database.poolStats?.();
    if (!pool) return;
    this.set({ state: 'total' }, pool.total);
    this.set({ state: 'idle' }, pool.idle);
    this.set({ state: 'waiting' }, pool.waiting);
  },
});

/** The registry as Prometheus text. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
