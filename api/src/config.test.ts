import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const base = { SESSION_SECRET: 'x'.repeat(40), DATA_DIR: '/tmp/farm-config-test' };

describe('request limits and proxy trust from the environment', () => {
  it('default to the production limits', () => {
    const config = loadConfig(base);
    expect(config.rateLimits).toEqual({
      signup: { max: 20, windowMs: 3_600_000 },
      login: { max: 60, windowMs: 60_000 },
      loginFailures: { max: 10, windowMs: 900_000 },
      loginFailuresAddress: { max: 100, windowMs: 900_000 },
      secondFactorFailures: { max: 10, windowMs: 900_000 },
      agentEnroll: { max: 120, windowMs: 3_600_000 },
      uploads: { max: 60, windowMs: 60_000 },
      appUploads: { max: 20, windowMs: 3_600_000 },
      writes: { max: 600, windowMs: 60_000 },
    });
    expect(config.uploadsPendingMax).toBe(50);
    expect(config.trustProxy).toBe(0);
  });

  it('read a count per window, or off', () => {
    const config = loadConfig({ ...base, RATE_LIMIT_SIGNUP: '5/10s', RATE_LIMIT_WRITES: 'off', RATE_LIMIT_LOGIN: '100 / m', RATE_LIMIT_UPLOADS: '3/2d' });
    expect(config.rateLimits.signup).toEqual({ max: 5, windowMs: 10_000 });
    expect(config.rateLimits.writes).toBeNull();
    expect(config.rateLimits.login).toEqual({ max: 100, windowMs: 60_000 });
    expect(config.rateLimits.uploads).toEqual({ max: 3, windowMs: 172_800_000 });
  });

  it('refuse a limit that is not a count per window, naming the variable', () => {
    for (const value of ['lots', '10', '10/0m', '-1/1m', '1/1y']) {
      expect(() => loadConfig({ ...base, RATE_LIMIT_SIGNUP: value }), value).toThrow(
        new ConfigError('Invalid configuration: RATE_LIMIT_SIGNUP must be a count per window, like 20/1h or 60/1m, or off'),
      );
    }
  });

  it('believe proxies by hop count or by address, never every hop', () => {
    expect(loadConfig({ ...base, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ ...base, TRUST_PROXY: 'true' }).trustProxy).toBe(1);
    expect(loadConfig({ ...base, TRUST_PROXY: 'false' }).trustProxy).toBe(0);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 192.168.1.5,::1' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.5', '::1']);
    for (const value of ['everyone', '10.0.0.0/33', '300.1.1.1', '1.2.3.4/8/1']) {
      expect(() => loadConfig({ ...base, TRUST_PROXY: value }), value).toThrow(
        new ConfigError('Invalid configuration: TRUST_PROXY must be a number of proxy hops, or a comma-separated list of proxy addresses or subnets'),
      );
    }
  });
});

describe('other variables', () => {
  it('are named, then their problem', () => {
    expect(() => loadConfig({ ...base, PORT: '70000' })).toThrow(new ConfigError('Invalid configuration: PORT must be at most 65535'));
    expect(() => loadConfig({ ...base, LOG_LEVEL: 'loud' })).toThrow(
      new ConfigError('Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace or silent'),
    );
    expect(() => loadConfig({ ...base, SESSION_SECRET: 'short' })).toThrow(
      new ConfigError('Invalid configuration: SESSION_SECRET must be at least 32 characters'),
    );
  });
});

describe('production defaults', () => {
  it('leave the demo farm off and the API map behind sign-in in production, even on the embedded database', () => {
    const production = loadConfig({ ...base, NODE_ENV: 'production' });
    expect(production).toMatchObject({ demo: false, publicApiDocs: false });
    expect(loadConfig({ ...base, NODE_ENV: 'production', PUBLIC_API_DOCS: '1' }).publicApiDocs).toBe(true);
    expect(loadConfig({ ...base })).toMatchObject({ demo: true, publicApiDocs: true });
  });

  it('make the session cookie Secure from the public URL’s scheme, else from NODE_ENV', () => {
    expect(loadConfig({ ...base, PUBLIC_URL: 'https://farm.example' }).secureCookies).toBe(true);
    expect(loadConfig({ ...base, NODE_ENV: 'production', PUBLIC_URL: 'http://farm.lan:3000' }).secureCookies).toBe(false);
    expect(loadConfig({ ...base, NODE_ENV: 'production' }).secureCookies).toBe(true);
    expect(loadConfig({ ...base }).secureCookies).toBe(false);
  });

  it('stop a demo farm in production without a password of its own, naming the variable', () => {
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', DEMO: '1' })).toThrow(
      new ConfigError(
        'Invalid configuration: DEMO_PASSWORD is required when DEMO=1 and NODE_ENV=production (at least 12 characters; the published demo passwords are never used there)',
      ),
    );
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', DEMO: '1', DEMO_PASSWORD: 'short one' })).toThrow(
      new ConfigError('Invalid configuration: DEMO_PASSWORD must be at least 12 characters'),
    );
    for (const published of ['demo-operator', 'demo-assistant']) {
      expect(() => loadConfig({ ...base, NODE_ENV: 'production', DEMO: '1', DEMO_PASSWORD: published })).toThrow(
        new ConfigError('Invalid configuration: DEMO_PASSWORD must not be a demo password published with the product'),
      );
    }
    expect(loadConfig({ ...base, NODE_ENV: 'production', DEMO: '1', DEMO_PASSWORD: 'our own demo secret' })).toMatchObject({
      demo: true,
      demoPassword: 'our own demo secret',
    });
    expect(loadConfig({ ...base, NODE_ENV: 'production' })).toMatchObject({ demo: false, demoPassword: undefined });
  });
});
