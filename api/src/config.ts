/**
 * The environment, validated once. Invalid configuration stops the process with one line naming the variable.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

const flag = z
  .enum(['0', '1', 'true', 'false', 'yes', 'no', ''])
  .transform((value) => value === '1' || value === 'true' || value === 'yes');

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  SESSION_SECRET: z.string().min(32, { message: 'must be at least 32 characters' }).optional(),
  DEMO: flag.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_URL: z.url().optional(),
  WEB_DIST: z.string().optional(),
  READ_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  RUN_WORKERS: flag.optional(),
  TRUST_PROXY: flag.optional(),
});

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  sessionSecret: string;
  demo: boolean;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  publicUrl: string | undefined;
  webDist: string | undefined;
  /** How long a read answer may be reused when no change of its workspace was announced; 0 turns it off. */
  readCacheMs: number;
  /** Run the job processors in this process (in process, or as BullMQ workers when REDIS_URL is set). */
  runWorkers: boolean;
  /** Believe X-Forwarded-For (only behind a proxy that sets it): the client address login throttling counts by. */
  trustProxy: boolean;
}

export class ConfigError extends Error {}

/** Reads the environment into a Config; throws ConfigError whose message is one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')));
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
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    sessionSecret: e.SESSION_SECRET ?? persistedSecret(dataDir),
    demo: e.DEMO ?? embedded,
    logLevel: e.LOG_LEVEL,
    publicUrl: e.PUBLIC_URL,
    webDist: e.WEB_DIST,
    readCacheMs: e.READ_CACHE_MS,
    runWorkers: e.RUN_WORKERS ?? true,
    trustProxy: e.TRUST_PROXY ?? false,
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
