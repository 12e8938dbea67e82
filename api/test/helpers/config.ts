/** The one configuration every test app starts from: the test's own data directory, nothing listening yet. */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { defaultRateLimits, type Config } from '../../src/config.ts';

/**
 * A test app's configuration in `dataDir`, with `overrides` over it. Every test comes from one address: request
 * limits are off unless a test sets them; login failures count as in production.
 */
export function testConfig(dataDir: string, overrides: Partial<Config> = {}): Config {
  return {
    env: 'test',
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: undefined,
    databasePrepare: true,
    redisUrl: undefined,
    sessionSecret: randomBytes(32).toString('hex'),
    demo: false,
    demoPassword: undefined,
    publicApiDocs: true,
    secureCookies: false,
    demoPhones: 0,
    logLevel: 'silent',
    publicUrl: undefined,
    webDist: join(dataDir, 'no-web'),
    readCacheMs: 1000,
    runWorkers: !overrides.redisUrl,
    trustProxy: 0,
    rateLimits: { ...defaultRateLimits(), signup: null, login: null, agentEnroll: null, uploads: null, appUploads: null, writes: null },
    uploadsPendingMax: 50,
    appUploadMaxBytes: 500 * 1024 ** 2,
    metricsToken: undefined,
    metricsPort: undefined,
    shutdownMs: 10_000,
    overloadEventLoopDelayMs: 0,
    liveControlIdleMs: 15 * 60_000,
    // Test receivers (webhooks) listen on 127.0.0.1, as a farm's own LAN receivers do with ALERTS_ALLOW_PRIVATE=1;
    // the tests of the refusal turn it off.
    automation: { outboundAllowPrivate: true },
    ...overrides,
  };
}
