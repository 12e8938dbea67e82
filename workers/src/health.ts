/**
 * Liveness and readiness, the same for an API process and a workers process: ready when the database answers,
 * every migration on disk is applied, and Redis answers where it is configured. An unready answer names the part.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { sql } from 'kysely';
import { readMigrations, type Database } from '@farm/sql';

export type Part = 'database' | 'migrations' | 'redis';

export interface Readiness {
  ready: boolean;
  /** Each part checked: "ok", or what is wrong with it in a sentence. */
  checks: Partial<Record<Part, string>>;
  /** The first failing part's sentence, for the 503 body. */
  error?: string;
}

export interface Pingable {
  ping(): Promise<unknown>;
}

export interface ReadinessProbe {
  database: Database;
  /** A Redis client of this process, where Redis is configured. */
  redis?: Pingable | undefined;
  /** How long one part may take before it counts as failing. */
  timeoutMs?: number;
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** A Redis client for readiness only: without an offline queue, a ping while Redis is away fails at once. */
export async function redisPinger(url: string): Promise<Pingable & { disconnect(): void }> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  client.connect().catch(() => undefined);
  return client;
}

let migrationNames: Promise<string[]> | undefined;

/** Checks each part; never throws. */
export async function readiness(probe: ReadinessProbe): Promise<Readiness> {
  const timeoutMs = probe.timeoutMs ?? 2000;
  const checks: Readiness['checks'] = {};
  let error: string | undefined;
  try {
    await within(sql`SELECT 1`.execute(probe.database.db), timeoutMs, 'The database');
    checks.database = 'ok';
    migrationNames ??= readMigrations().then((all) => all.map((migration) => migration.name));
    const expected = await migrationNames;
    const { rows } = await within(sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(probe.database.db), timeoutMs, 'The database');
    const applied = new Set(rows.map((row) => row.name));
    const missing = expected.filter((name) => !applied.has(name));
    checks.migrations = missing.length === 0 ? 'ok' : `${missing.length} migration(s) not applied, first ${missing[0]}`;
    if (missing.length > 0) error ??= `Not ready: ${checks.migrations}`;
  } catch (failure) {
    checks.database = `unreachable: ${reason(failure)}`;
    error ??= `Not ready: the database is unreachable (${reason(failure)})`;
  }
  if (probe.redis) {
    try {
      await within(probe.redis.ping(), timeoutMs, 'Redis');
      checks.redis = 'ok';
    } catch (failure) {
      checks.redis = `unreachable: ${reason(failure)}`;
      error ??= `Not ready: Redis is unreachable (${reason(failure)})`;
    }
  }
  return { ready: error === undefined, checks, ...(error ? { error } : {}) };
}

export interface HealthServerOptions extends ReadinessProbe {
  port: number;
  host?: string;
  /** Prometheus text for GET /metrics, when this server also serves them. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** When set, GET /metrics asks for `Authorization: Bearer <token>`. */
  metricsToken?: string | undefined;
}

/** Compares `Bearer <token>` with the expected token in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The workers' small health port: GET /healthz, GET /readyz (and /metrics when given). */
export async function startHealthServer(options: HealthServerOptions): Promise<Server> {
  const server = createServer((request, response) => {
    const send = (status: number, body: unknown, type = 'application/json') => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET') return send(405, { error: 'Only GET is served here' });
    if (path === '/healthz') return send(200, { status: 'alive' });
    if (path === '/readyz') {
      void readiness(options).then((result) => send(result.ready ? 200 : 503, result));
      return;
    }
    if (path === '/metrics' && options.metrics) {
      if (options.metricsToken && !bearerMatches(request.headers.authorization, options.metricsToken)) {
        return send(401, { error: 'Metrics need the metrics token' });
      }
      void options.metrics().then(
        ({ contentType, body }) => send(200, body, contentType),
        (error: unknown) => send(500, { error: reason(error) }),
      );
      return;
    }
    send(404, { error: `Route GET ${path} not found` });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  return server;
}
