/**
 * Request limits, counted by @fastify/rate-limit: in this process, or in Redis (REDIS_URL) so that every API
 * instance counts against one budget. Each limit is a setting (config.rateLimits) that tests and benches raise.
 *
 * Redis trouble never stops the product: a limit whose count cannot be read in 250 ms lets the request through
 * (an API that refuses everyone because Redis is slow would be its own denial of service).
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { messages } from '@farm/contracts';
import type { Config, LimitName, RateLimit } from '../config.ts';
import { AppError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    limits: Limits;
  }
}

/** What a person is told when a limit is spent; Retry-After says for how long. */
export const limitMessages: Record<LimitName, string> = {
  signup: messages.tooManySignups,
  login: messages.tooManyAttempts,
  loginFailures: messages.tooManyAttempts,
  loginFailuresAddress: messages.tooManyAttempts,
  secondFactorFailures: messages.twoFactorCodesPaused,
  agentEnroll: messages.tooManyEnrollments,
  uploads: messages.tooManyUploads,
  appUploads: messages.tooManyAppUploads,
  writes: messages.tooManyWrites,
};

/** The setting phone enrollment (`POST /api/agent/enroll`) is limited by, per client address: see enrollLimit(). */
export const AGENT_ENROLL_LIMIT: LimitName = 'agentEnroll';

export interface Limits {
  /** Counts one against `name` for `key`; when that spends it, refuses with 429 and Retry-After. */
  take(name: LimitName, key: string, reply: FastifyReply): Promise<void>;
  /** Counts one against `name` for `key` without refusing (a failure that was already answered). */
  count(name: LimitName, key: string): Promise<void>;
  /** Seconds until `name` has room again for `key`; 0 when it has room now. Counts nothing. */
  waitFor(name: LimitName, key: string): Promise<number>;
  /** Refuses with 429 and Retry-After when `name` has no room for `key`. Counts nothing. */
  refuseIfSpent(name: LimitName, key: string, reply: FastifyReply): Promise<void>;
}

type Check = (key: string, increment: boolean) => Promise<{ exceeded: boolean; remaining: number; ttlInSeconds: number } | undefined>;

/** Writes that are never limited: leaving must always work. */
const UNLIMITED_WRITES = new Set(['/api/auth/logout']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export async function installLimits(app: FastifyInstance, config: Pick<Config, 'rateLimits' | 'redisUrl'>): Promise<void> {
  let redis: import('ioredis').Redis | undefined;
  if (config.redisUrl) {
    const { Redis } = await import('ioredis');
    redis = new Redis(config.redisUrl, {
      // Fail fast: a limit that cannot be counted lets the request through rather than hold it.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 250,
      connectTimeout: 2000,
    });
    let warned = false;
    redis.on('error', (error: Error) => {
      if (!warned) app.log.warn({ err: error }, 'redis (request limits) unavailable: limits are not counted until it is back');
      warned = true;
    });
    redis.on('ready', () => {
      warned = false;
    });
    const client = redis;
    app.addHook('onClose', async () => {
      client.disconnect();
    });
  }
  await app.register(rateLimit, {
    global: false,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: 'farm:limits:' } : {}),
  });

  const checks = new Map<LimitName, Check>();
  for (const [name, limit] of Object.entries(config.rateLimits) as [LimitName, RateLimit | null][]) {
    // Wrong second-factor codes are counted in the database (checkLoginSecondFactor), whatever Redis does.
    if (!limit || name === 'secondFactorFailures') continue;
    const limiter = app.createRateLimit({
      max: limit.max,
      timeWindow: limit.windowMs,
      // Keys are given by the caller: the store is shared by every limit, so each key carries its limit's name.
      keyGenerator: (request) => (request as unknown as { limitKey: string }).limitKey,
    });
    checks.set(name, async (key, increment) => {
      // The limiter reads only the key and the route's config from the request it is given.
      const probe = { limitKey: `${name}:${key}`, routeOptions: { config: {} } } as unknown as FastifyRequest;
      const result = await limiter(probe, { increment });
      if (result.isAllowed) return undefined;
      return { exceeded: result.isExceeded, remaining: result.remaining, ttlInSeconds: result.ttlInSeconds };
    });
  }

  const refuse = (name: LimitName, seconds: number, reply: FastifyReply): never => {
    void reply.header('retry-after', String(Math.max(1, seconds)));
    throw new AppError(429, limitMessages[name]);
  };

  const limits: Limits = {
    async take(name, key, reply) {
      const state = await checks.get(name)?.(key, true);
      if (state?.exceeded) refuse(name, state.ttlInSeconds, reply);
    },
    async count(name, key) {
      await checks.get(name)?.(key, true);
    },
    async waitFor(name, key) {
      const state = await checks.get(name)?.(key, false);
      return state && state.remaining <= 0 ? Math.max(1, state.ttlInSeconds) : 0;
    },
    async refuseIfSpent(name, key, reply) {
      const seconds = await limits.waitFor(name, key);
      if (seconds > 0) refuse(name, seconds, reply);
    },
  };
  app.decorate('limits', limits);

  // Every write, per session (per address when signed out): after the session is read, before anything else.
  app.addHook('onRequest', async (request, reply) => {
    if (SAFE_METHODS.has(request.method) || !request.url.startsWith('/api/')) return;
    if (UNLIMITED_WRITES.has(request.url.split('?')[0] ?? '')) return;
    await limits.take('writes', request.session ? `session:${request.session.sessionId}` : `address:${request.ip}`, reply);
  });
}

/** A route hook that counts one request against `name` per client address. */
export function perAddress(name: LimitName) {
  return async function limitPerAddress(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    await request.server.limits.take(name, request.ip, reply);
  };
}

/** A route hook that counts one request against `name` per signed-in person (after the access rule ran). */
export function perPerson(name: LimitName) {
  return async function limitPerPerson(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.session) await request.server.limits.take(name, request.session.id, reply);
  };
}

/** A route hook that counts one request against `name` per workspace (after the access rule ran): a budget all its people share. */
export function perWorkspace(name: LimitName) {
  return async function limitPerWorkspace(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const workspaceId = request.session?.workspaceId;
    if (workspaceId) await request.server.limits.take(name, `workspace:${workspaceId}`, reply);
  };
}

/**
 * The hook phone enrollment takes, per client address, when its route is added:
 * `app.post('/agent/enroll', { onRequest: enrollLimit(), ... })`.
 */
export function enrollLimit() {
  return perAddress(AGENT_ENROLL_LIMIT);
}
