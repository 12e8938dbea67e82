import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readiness, redisPinger } from '@farm/workers';
import { buildTestApp, people, type TestApp } from '../helpers/app.ts';
import { buildTask } from '../helpers/factories.ts';

const TOKEN = 'metrics-token-for-the-test';
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ metricsToken: TOKEN });
});
afterAll(async () => {
  await t?.close();
});

describe('health', () => {
  it('answers /healthz while the process is alive', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'alive' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers /readyz with every part checked', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ready: true, checks: { database: 'ok', migrations: 'ok' } });
  });

  it('names a migration that is not applied', async () => {
    const [last] = (await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name DESC LIMIT 1`.execute(t.db)).rows;
    await sql`DELETE FROM schema_migrations WHERE name = ${last!.name}`.execute(t.db);
    try {
      const res = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json().checks.migrations).toBe(`1 migration(s) not applied, first ${last!.name}`);
      expect(res.json().error).toMatch(/^Not ready: 1 migration\(s\) not applied/);
    } finally {
      await sql`INSERT INTO schema_migrations (name, checksum) VALUES (${last!.name}, 'restored')`.execute(t.db);
    }
  });

  it('names Redis when it does not answer', async () => {
    const redis = await redisPinger('redis://127.0.0.1:1');
    try {
      const result = await readiness({ database: t.database, redis, timeoutMs: 500 });
      expect(result.ready).toBe(false);
      expect(result.checks.database).toBe('ok');
      expect(result.checks.redis).toMatch(/^unreachable: /);
      expect(result.error).toMatch(/^Not ready: Redis is unreachable/);
    } finally {
      redis.disconnect();
    }
  });

  it('names the database when it does not answer', async () => {
    const stuck = {
      ...t.database,
      db: {
        ...t.database.db,
        getExecutor: () => {
          throw new Error('connection refused');
        },
      },
    } as unknown as typeof t.database;
    const result = await readiness({ database: stuck, timeoutMs: 500 });
    expect(result.ready).toBe(false);
    expect(result.error).toBe('Not ready: the database is unreachable (connection refused)');
  });
});

describe('metrics', () => {
  it('refuses a scrape without the token', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${TOKEN}`]) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'Metrics need the metrics token' });
    }
  });

  it('serves Prometheus text with HTTP latency by route, tasks by state and the Node defaults', async () => {
    const { operator } = await people(t.app);
    await buildTask(operator);
    await operator.get('/api/tasks');
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.body;
    expect(text).toMatch(/farm_http_request_duration_seconds_count\{method="GET",route="\/api\/tasks",status="200"\} \d+/);
    expect(text).toMatch(/farm_tasks\{status="pending",failure="none"\} [1-9]/);
    expect(text).toMatch(/farm_events_pushed_total\{event="task\.created"\} [1-9]/);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).toContain('farm_job_duration_seconds');
  });
});

describe('overload', () => {
  it('answers 503 with Retry-After while the event loop lags, and keeps /healthz alive', async () => {
    const { installPressure } = await import('../../src/ops/pressure.ts');
    const Fastify = (await import('fastify')).default;
    const app = Fastify();
    await installPressure(app, { eventLoopDelayMs: 30, sampleIntervalMs: 5 });
    app.get('/healthz', async () => ({ status: 'alive' }));
    app.get('/work', async () => ({ done: true }));
    await app.ready();
    try {
      expect((await app.inject({ method: 'GET', url: '/work' })).statusCode).toBe(200);
      // The event loop is held again and again, as by a stream of CPU-heavy requests: every sample the plugin takes
      // meanwhile sees the lag, wherever the request falls between them (one block then a pause let a sample taken
      // after the block, and before the request, find the loop quiet again).
      const lag = setInterval(() => {
        const until = Date.now() + 60;
        while (Date.now() < until) {
          // held
        }
      }, 5);
      try {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const refused = await app.inject({ method: 'GET', url: '/work' });
        expect(refused.statusCode).toBe(503);
        expect(refused.headers['retry-after']).toBe('5');
        expect(refused.json()).toEqual({ error: 'The server is busy; try again in 5 seconds' });
        expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      } finally {
        clearInterval(lag);
      }
    } finally {
      await app.close();
    }
  });
});
