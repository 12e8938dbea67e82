/**
 * Request limits: sign-ups and logins per address, phone enrollment per address, upload URLs per person, writes
 * per session; each refusal a 429 with Retry-After and a sentence. With REDIS_URL every API instance counts
 * against one budget. The limits here are set low; production's defaults are in config.ts.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '@farm/contracts';
import { defaultRateLimits, type Config, type LimitName, type RateLimit } from '../../src/config.ts';
import { enrollLimit, installLimits } from '../../src/auth/limits.ts';
import { installErrorHandler } from '../../src/errors.ts';
import { buildInstance, buildTestApp, Client, signUp, uniqueEmail, type Answer, type TestApp } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';
import { redisPort, startRedis, type OwnRedis } from '../helpers/redis-server.ts';

const PASSWORD = 'correct horse battery';
const HOUR = 3_600_000;

/** Only the given limits on: the others would count the same requests and blur what each test shows. */
function only(limits: Partial<Record<LimitName, RateLimit>>): Config['rateLimits'] {
  const off = Object.fromEntries(Object.keys(defaultRateLimits()).map((name) => [name, null])) as Config['rateLimits'];
  return { ...off, ...limits };
}

let address = 0;
/** A client address of its own, as the one trusted proxy hop reports it. */
function from(): Record<string, string> {
  address += 1;
  return { 'x-forwarded-for': `203.0.${Math.floor(address / 250)}.${(address % 250) + 1}` };
}

const signupBody = () => ({ email: uniqueEmail('limited'), password: PASSWORD, name: 'Lim Ited', role: 'operator' });

function expectLimited(answer: Answer, message: string): void {
  expectError(answer, 429, message);
  expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
}

describe('per address and per person, in one instance', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      trustProxy: 1,
      rateLimits: only({ signup: { max: 3, windowMs: HOUR }, login: { max: 4, windowMs: 60_000 }, uploads: { max: 3, windowMs: 60_000 } }),
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lets one address sign up 3 times, then answers 429 with Retry-After; another address is not held back', async () => {
    const here = from();
    for (let attempt = 1; attempt <= 3; attempt += 1) expectStatus(await new Client(t.app).post('/api/auth/signup', signupBody(), here), 201);
    expectLimited(await new Client(t.app).post('/api/auth/signup', signupBody(), here), messages.tooManySignups);
    expectStatus(await new Client(t.app).post('/api/auth/signup', signupBody(), from()), 201);
  });

  it('counts every login attempt of an address, right or wrong', async () => {
    const email = uniqueEmail('login');
    await signUp(t.app, { email, password: PASSWORD });
    const here = from();
    for (let attempt = 1; attempt <= 4; attempt += 1) expectStatus(await new Client(t.app).post('/api/auth/login', { email, password: PASSWORD }, here), 200);
    expectLimited(await new Client(t.app).post('/api/auth/login', { email, password: PASSWORD }, here), messages.tooManyAttempts);
    expectStatus(await new Client(t.app).post('/api/auth/login', { email, password: PASSWORD }, from()), 200);
  });

  it('lets a person reserve 3 upload URLs a minute, whichever route they use; another person has their own', async () => {
    const person = await signUp(t.app);
    expectStatus(await person.post('/api/objects/upload', {}), 200);
    expectStatus(await person.post('/api/object-storage/presigned-url', { filename: 'a.png' }), 200);
    expectStatus(await person.post('/api/objects/upload', {}), 200);
    expectLimited(await person.post('/api/object-storage/presigned-url', { filename: 'b.png' }), messages.tooManyUploads);
    expectStatus(await (await signUp(t.app)).post('/api/objects/upload', {}), 200);
  });
});

describe('writes per session', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ rateLimits: only({ writes: { max: 5, windowMs: 60_000 } }) });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lets a session make 5 writes a minute, then 429; reads go on, another session writes, and logging out always works', async () => {
    const email = uniqueEmail('writer');
    // The sign-up is the address's first write; the session's budget starts with the session.
    const person = await signUp(t.app, { email, password: PASSWORD });
    for (let write = 1; write <= 5; write += 1) expectStatus(await person.patch('/api/users/me', { name: `Writer ${write}` }), 200);
    expectLimited(await person.patch('/api/users/me', { name: 'Writer 6' }), messages.tooManyWrites);
    expectLimited(await person.post('/api/devices', { name: 'Pixel' }), messages.tooManyWrites);
    expectStatus(await person.get('/api/devices'), 200);
    const other = new Client(t.app);
    expectStatus(await other.post('/api/auth/login', { email, password: PASSWORD }), 200);
    expectStatus(await other.patch('/api/users/me', { name: 'Other session' }), 200);
    expectStatus(await person.post('/api/auth/logout'), 204);
  });
});

describe('phone enrollment per address', () => {
  it('is limited by the enrollment setting through the hook its route takes', async () => {
    const app = Fastify({ trustProxy: true });
    app.decorateRequest('session', null);
    installErrorHandler(app);
    await installLimits(app, { redisUrl: undefined, rateLimits: only({ agentEnroll: { max: 2, windowMs: HOUR } }) });
    app.post('/api/agent/enroll', { onRequest: enrollLimit() }, async () => ({ ok: true }));
    await app.ready();
    const enroll = (ip: string) => app.inject({ method: 'POST', url: '/api/agent/enroll', headers: { 'x-forwarded-for': ip } });
    expect((await enroll('198.18.0.1')).statusCode).toBe(200);
    expect((await enroll('198.18.0.1')).statusCode).toBe(200);
    const refused = await enroll('198.18.0.1');
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({ status: 429, body: { error: messages.tooManyEnrollments } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await enroll('198.18.0.2')).statusCode).toBe(200);
    await app.close();
  });
});

describe('shared by every instance through Redis', () => {
  let redis: OwnRedis;
  let a: TestApp;
  let b: Awaited<ReturnType<typeof buildInstance>>;
  beforeAll(async () => {
    redis = await startRedis(redisPort(1));
    a = await buildTestApp({
      redisUrl: redis.url,
      trustProxy: 1,
      rateLimits: { ...only({ signup: { max: 4, windowMs: HOUR } }), loginFailures: { max: 3, windowMs: HOUR } },
    });
    b = await buildInstance(a.database, a.config);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await redis?.stop();
  });

  it('counts sign-ups made on either instance against one budget', async () => {
    const here = from();
    expectStatus(await new Client(a.app).post('/api/auth/signup', signupBody(), here), 201);
    expectStatus(await new Client(b).post('/api/auth/signup', signupBody(), here), 201);
    expectStatus(await new Client(a.app).post('/api/auth/signup', signupBody(), here), 201);
    expectStatus(await new Client(b).post('/api/auth/signup', signupBody(), here), 201);
    expectLimited(await new Client(a.app).post('/api/auth/signup', signupBody(), here), messages.tooManySignups);
    expectLimited(await new Client(b).post('/api/auth/signup', signupBody(), here), messages.tooManySignups);
  });

  it('counts failed logins on either instance together', async () => {
    const email = uniqueEmail('shared');
    await signUp(a.app, { email, password: PASSWORD });
    const here = from();
    expectError(await new Client(a.app).post('/api/auth/login', { email, password: 'wrong 1' }, here), 401, messages.invalidCredentials);
    expectError(await new Client(b).post('/api/auth/login', { email, password: 'wrong 2' }, here), 401, messages.invalidCredentials);
    expectError(await new Client(a.app).post('/api/auth/login', { email, password: 'wrong 3' }, here), 401, messages.invalidCredentials);
    expectLimited(await new Client(b).post('/api/auth/login', { email, password: PASSWORD }, here), messages.tooManyAttempts);
  });

  it('lets requests through while Redis is down, rather than refuse everyone', async () => {
    await redis.stop();
    expectStatus(await new Client(a.app).post('/api/auth/signup', signupBody(), from()), 201);
    redis = await startRedis(redisPort(1));
  });
});
