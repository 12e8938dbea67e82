/**
 * The environment, validated once. Invalid configuration stops the process with one line naming the variable.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { automationEnv, settingsFromEnv, type AutomationSettings } from '@farm/workers';
import { fieldLabel, issueSentence } from '@farm/contracts';
import { PUBLISHED_DEMO_PASSWORDS } from './shared/demo-credentials.ts';

const flag = z.enum(['0', '1', 'true', 'false', 'yes', 'no', '']).transform((value) => value === '1' || value === 'true' || value === 'yes');

/** The request limits, each "N/window" (like 20/1h) or "off"; tests and benches raise them. */
export const limitDefaults = {
  /** Sign-ups per client address. */
  signup: '20/1h',
  /** Login attempts per client address, right or wrong. */
  login: '60/1m',
  /** Failed logins per client address and account together: never per account alone, so nobody can lock a person out. */
  loginFailures: '10/15m',
  /** Failed logins per client address, whatever the account. */
  loginFailuresAddress: '100/15m',
  /**
   * Wrong second-factor codes per account, from every address together: then the app's codes are refused for the
   * rest of the window and only a recovery code signs in (a password known elsewhere cannot be paired with guesses
   * spread over many addresses). The person is told. Counted in the database, not Redis: it holds when Redis errors,
   * and every API instance counts against one budget.
   */
  secondFactorFailures: '10/15m',
  /** Phone enrollments per client address. */
  agentEnroll: '120/1h',
  /** Upload URLs reserved per person. */
  uploads: '60/1m',
  /** APKs and split sets uploaded to the app library per workspace: each is read and inflated, up to APP_UPLOAD_MAX_BYTES. */
  appUploads: '20/1h',
  /** Writes (any POST, PUT, PATCH or DELETE under /api) per session, or per address when signed out. */
  writes: '600/1m',
} as const;
export type LimitName = keyof typeof limitDefaults;
export const limitVariables: Record<LimitName, string> = {
  signup: 'RATE_LIMIT_SIGNUP',
  login: 'RATE_LIMIT_LOGIN',
  loginFailures: 'RATE_LIMIT_LOGIN_FAILURES',
  loginFailuresAddress: 'RATE_LIMIT_LOGIN_FAILURES_ADDRESS',
  secondFactorFailures: 'RATE_LIMIT_SECOND_FACTOR_FAILURES',
  agentEnroll: 'RATE_LIMIT_AGENT_ENROLL',
  uploads: 'RATE_LIMIT_UPLOADS',
  appUploads: 'RATE_LIMIT_APP_UPLOADS',
  writes: 'RATE_LIMIT_WRITES',
};

/** A limit: at most `max` in any `windowMs`. */
export interface RateLimit {
  max: number;
  windowMs: number;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "20/1h" → 20 per hour; "off" → no limit. */
export function parseRateLimit(text: string): RateLimit | null | undefined {
  const value = text.trim().toLowerCase();
  if (value === 'off') return null;
  const match = /^(\d{1,9})\s*\/\s*(\d{0,6})\s*(s|m|h|d)$/.exec(value);
  if (!match) return undefined;
  const windowMs = Number(match[2] || '1') * UNIT_MS[match[3] as keyof typeof UNIT_MS];
  if (windowMs <= 0) return undefined;
  return { max: Number(match[1]), windowMs };
}

/** Every limit at its default. */
export function defaultRateLimits(): Record<LimitName, RateLimit | null> {
  return Object.fromEntries((Object.keys(limitDefaults) as LimitName[]).map((name) => [name, parseRateLimit(limitDefaults[name])!])) as Record<
    LimitName,
    RateLimit | null
  >;
}

const rateLimit = z.string().transform((text, ctx) => {
  const limit = parseRateLimit(text);
  if (limit === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be a count per window, like 20/1h or 60/1m, or off' });
    return z.NEVER;
  }
  return limit;
});

/**
 * Which proxies to believe about the client's address (X-Forwarded-For): a number of proxy hops in front of the
 * API, or a list of proxy addresses and subnets; "true" means one hop. Only those hops are trusted, so a client
 * cannot pick its own address by sending the header itself.
 */
const trustProxy = z.string().transform((text, ctx): number | string[] => {
  const value = text.trim().toLowerCase();
  if (['false', 'no', '0'].includes(value)) return 0;
  if (['true', 'yes'].includes(value)) return 1;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const valid = (entry: string) => {
    const [address, bits, extra] = entry.split('/');
    if (extra !== undefined || !address || !isIP(address)) return false;
    return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128));
  };
  if (entries.length === 0 || !entries.every(valid)) {
    ctx.addIssue({ code: 'custom', message: 'must be a number of proxy hops, or a comma-separated list of proxy addresses or subnets' });
    return z.NEVER;
  }
  return entries;
});

const envSchema = automationEnv.extend({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATABASE_PREPARED_STATEMENTS: flag.optional(),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  SESSION_SECRET: z.string().min(32, { message: 'must be at least 32 characters' }).optional(),
  DEMO: flag.optional(),
  /** The demo operator's and VAs' password instead of the published ones; required for DEMO=1 in production. */
  DEMO_PASSWORD: z
    .string()
    .min(12, { message: 'must be at least 12 characters' })
    .refine((value) => !PUBLISHED_DEMO_PASSWORDS.includes(value), { message: 'must not be a demo password published with the product' })
    .optional(),
  /** The OpenAPI document at /api/docs for anyone; in production it is behind sign-in unless this is set. */
  PUBLIC_API_DOCS: flag.optional(),
  DEMO_PHONES: z.coerce.number().int().min(0).max(24).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_URL: z.url().optional(),
  WEB_DIST: z.string().optional(),
  READ_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  RUN_WORKERS: flag.optional(),
  TRUST_PROXY: trustProxy.optional(),
  RATE_LIMIT_SIGNUP: rateLimit.optional(),
  RATE_LIMIT_LOGIN: rateLimit.optional(),
  RATE_LIMIT_LOGIN_FAILURES: rateLimit.optional(),
  RATE_LIMIT_LOGIN_FAILURES_ADDRESS: rateLimit.optional(),
  RATE_LIMIT_SECOND_FACTOR_FAILURES: rateLimit.optional(),
  RATE_LIMIT_AGENT_ENROLL: rateLimit.optional(),
  RATE_LIMIT_UPLOADS: rateLimit.optional(),
  RATE_LIMIT_APP_UPLOADS: rateLimit.optional(),
  RATE_LIMIT_WRITES: rateLimit.optional(),
  UPLOADS_PENDING_MAX: z.coerce.number().int().min(1).max(100_000).default(50),
  /** The largest APK or split set the app library takes (bytes; 500 MiB by default). */
  APP_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(2 * 1024 ** 3 - 1)
    .default(500 * 1024 ** 2),
  METRICS_TOKEN: z.string().min(16, { message: 'must be at least 16 characters' }).optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SHUTDOWN_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  OVERLOAD_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  LIVE_CONTROL_IDLE_MS: z.coerce
    .number()
    .int()
    .min(5_000)
    .max(24 * 3_600_000)
    .default(15 * 60_000),
});

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Named (prepared) statements on PostgreSQL; off behind a PgBouncer in transaction mode before 1.21. */
  databasePrepare: boolean;
  redisUrl: string | undefined;
  sessionSecret: string;
  /**
   * The session cookie is Secure and `__Host-`prefixed: from the public URL's scheme where PUBLIC_URL is set, else
   * from NODE_ENV=production (the server warns at start that it guessed).
   */
  secureCookies: boolean;
  /** The demo farm and its operator; never on by default in production, and its password is never served there. */
  demo: boolean;
  /** DEMO_PASSWORD: the demo people's password in place of the published ones (always set for a demo in production). */
  demoPassword: string | undefined;
  /** /api/docs open to anyone (outside production, or PUBLIC_API_DOCS=1); else only to the signed in. */
  publicApiDocs: boolean;
  /** Simulated agents started for the demo farm's phones (unset: all but three; 0: none). */
  demoPhones: number | undefined;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  publicUrl: string | undefined;
  webDist: string | undefined;
  /** How long a read answer may be reused when no change of its workspace was announced; 0 turns it off. */
  readCacheMs: number;
  /** Run the job processors in this process (in process, or as BullMQ workers when REDIS_URL is set). */
  runWorkers: boolean;
  /**
   * Proxy hops (a number; 0 believes no proxy) or proxy addresses whose X-Forwarded-For is believed: the client
   * address that sessions record and limits count by.
   */
  trustProxy: number | string[];
  /** Request limits (null: off); with REDIS_URL they are counted in Redis, shared by every API instance. */
  rateLimits: Record<LimitName, RateLimit | null>;
  /** Upload URLs a person may hold unused at once. */
  uploadsPendingMax: number;
  /** The largest APK or split set the app library takes, in bytes (APP_UPLOAD_MAX_BYTES). */
  appUploadMaxBytes: number;
  /** When set, GET /metrics on the main port asks for `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** Without a token, the internal port that serves /metrics (and /healthz, /readyz); unset: metrics are not served. */
  metricsPort: number | undefined;
  /** How long a SIGTERM waits for requests in flight before the process leaves anyway. */
  shutdownMs: number;
  /** An event-loop delay above this answers requests 503 with Retry-After until it falls (0: never). */
  overloadEventLoopDelayMs: number;
  /** A phone controlled but not used this long is released (its controller is asked a minute before, or a fifth of it). */
  liveControlIdleMs: number;
  /** Timings of the task lifecycle and the phones' heartbeats (what is not set keeps its default). */
  automation: Partial<AutomationSettings>;
}

export class ConfigError extends Error {}

/** A variable's problem as a predicate ("must be at most 65535"): the message that follows its name. */
function variableIssue(issue: Parameters<typeof issueSentence>[0]): string | undefined {
  const sentence = issueSentence(issue);
  const label = fieldLabel(issue.path ?? []);
  return sentence?.startsWith(`${label} `) ? sentence.slice(label.length + 1) : sentence;
}

/** Reads the environment into a Config; throws ConfigError whose message is one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')), { error: variableIssue });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(`Invalid configuration: ${name} ${issue?.message ?? 'is invalid'}`);
  }
  const e = parsed.data;
  const dataDir = resolve(e.DATA_DIR);
  const embedded = !e.DATABASE_URL;
  if (e.NODE_ENV === 'production' && !e.SESSION_SECRET) {
    throw new ConfigError('Invalid configuration: SESSION_SECRET is required when NODE_ENV=production');
  }
  // The published demo passwords sign anyone in as the demo operator: a demo farm reachable in production has its own.
  if (e.NODE_ENV === 'production' && e.DEMO === true && !e.DEMO_PASSWORD) {
    throw new ConfigError(
      'Invalid configuration: DEMO_PASSWORD is required when DEMO=1 and NODE_ENV=production (at least 12 characters; the published demo passwords are never used there)',
    );
  }
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    databasePrepare: e.DATABASE_PREPARED_STATEMENTS ?? true,
    redisUrl: e.REDIS_URL,
    sessionSecret: e.SESSION_SECRET ?? persistedSecret(dataDir),
    secureCookies: e.PUBLIC_URL ? new URL(e.PUBLIC_URL).protocol === 'https:' : e.NODE_ENV === 'production',
    demo: e.DEMO ?? (embedded && e.NODE_ENV !== 'production'),
    demoPassword: e.DEMO_PASSWORD,
    publicApiDocs: e.PUBLIC_API_DOCS ?? e.NODE_ENV !== 'production',
    demoPhones: e.DEMO_PHONES,
    logLevel: e.LOG_LEVEL,
    publicUrl: e.PUBLIC_URL,
    webDist: e.WEB_DIST,
    readCacheMs: e.READ_CACHE_MS,
    metricsToken: e.METRICS_TOKEN,
    metricsPort: e.METRICS_PORT,
    shutdownMs: e.SHUTDOWN_MS,
    overloadEventLoopDelayMs: e.OVERLOAD_EVENT_LOOP_DELAY_MS,
    liveControlIdleMs: e.LIVE_CONTROL_IDLE_MS,
    runWorkers: e.RUN_WORKERS ?? true,
    trustProxy: e.TRUST_PROXY ?? 0,
    rateLimits: Object.fromEntries(
      Object.entries(defaultRateLimits()).map(([name, limit]) => {
        const given = e[limitVariables[name as LimitName] as keyof typeof e] as RateLimit | null | undefined;
        return [name, given === undefined ? limit : given];
      }),
    ) as Record<LimitName, RateLimit | null>,
    uploadsPendingMax: e.UPLOADS_PENDING_MAX,
    appUploadMaxBytes: e.APP_UPLOAD_MAX_BYTES,
    automation: settingsFromEnv(e),
  };
}

/** Outside production a secret is generated once and kept under DATA_DIR, so sessions survive restarts. */
function persistedSecret(dataDir: string): string {
  const file = join(dataDir, 'session-secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32).toString('hex');
    writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}
