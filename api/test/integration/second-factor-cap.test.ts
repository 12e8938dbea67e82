/**
 * Second-factor codes guessed for one account, from however many addresses: after the cap of wrong codes
 * (RATE_LIMIT_SECOND_FACTOR_FAILURES) the app's codes are refused until the window passes, a recovery code still
 * signs in, and the person is told: a notice at their next sign-in (shown once), an activity, and a `user.security`
 * alert to the workspace's webhooks. The count is the database's: Redis down, or two API instances, change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type Activity, type AuditEntry } from '@farm/contracts';
import { defaultRateLimits } from '../../src/config.ts';
import { currentCode } from '../../src/auth/two-factor.service.ts';
import { buildInstance, buildTestApp, Client, signUp, uniqueEmail, type TestApp } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';
import { buildWebhook } from '../helpers/factories.ts';
import { codeAt, fixedClock } from '../helpers/two-factor.ts';
import { redisPort, startRedis, type OwnRedis } from '../helpers/redis-server.ts';

const PASSWORD = 'correct horse battery';
// Codes and their checks read one instant: none turns stale during a request.
fixedClock();
const CAP = 3;
let t: TestApp;

const rateLimits = {
  ...defaultRateLimits(),
  signup: null,
  login: null,
  agentEnroll: null,
  uploads: null,
  writes: null,
  secondFactorFailures: { max: CAP, windowMs: 15 * 60_000 },
};

beforeAll(async () => {
  t = await buildTestApp({ rateLimits });
});
afterAll(async () => {
  await t?.close();
});

async function codeStep(email: string, app = t.app): Promise<{ client: Client; challenge: string }> {
  const client = new Client(app);
  const answer = await client.post<{ challenge: string }>('/api/auth/login', { email, password: PASSWORD });
  expectStatus(answer, 200);
  return { client, challenge: answer.body.challenge };
}

describe('the per-account cap on wrong second-factor codes', () => {
  it('refuses app codes once spent, lets a recovery code in, and tells the person once', async () => {
    const email = uniqueEmail('capped');
    const operator = await signUp(t.app, { email, password: PASSWORD, name: 'Cara Capped' });
    const id = operator.user!.id;
    await buildWebhook(operator, { events: ['user.security'] });
    const setup = await operator.post<{ secret: string }>('/api/auth/two-factor/setup');
    const enabled = await operator.post<{ recoveryCodes: string[] }>('/api/auth/two-factor/enable', {
      code: await codeAt(setup.body.secret, -1),
    });
    expectStatus(enabled, 200);

    // Wrong codes spread over several login steps (as from several addresses): the count is the account's.
    for (let i = 0; i < CAP; i += 1) {
      const { client, challenge } = await codeStep(email);
      expectError(await client.post('/api/auth/login/two-factor', { challenge, code: '000000' }), 401, messages.twoFactorCodeWrong);
    }
    const { client, challenge } = await codeStep(email);
    expectError(await client.post('/api/auth/login/two-factor', { challenge, code: currentCode(setup.body.secret) }), 429, messages.twoFactorCodesPaused);
    expectError(await client.get('/api/auth/me'), 401, messages.notSignedIn);
    const signedIn = await client.post('/api/auth/login/two-factor', { challenge, code: enabled.body.recoveryCodes[0] });
    expectStatus(signedIn, 200);

    const me = await client.get<{ notices: { id: string; kind: string; message: string }[] }>('/api/auth/me');
    expectStatus(me, 200);
    expect(me.body.notices).toHaveLength(1);
    expect(me.body.notices[0]).toMatchObject({ kind: 'second_factor.paused' });
    expect(me.body.notices[0]!.message).toBe(
      `Wrong sign-in codes for your account were entered ${CAP} times within 15 minutes, so codes from your app were refused for a while. If that was not you, your password is known to someone: change it in Settings and tell an operator.`,
    );
    expectStatus(await client.post('/api/auth/notices/seen', { ids: [me.body.notices[0]!.id] }), 204);
    expect((await client.get('/api/auth/me')).body.notices).toEqual([]);

    const activities = await operator.get<Activity[]>('/api/activities?limit=50');
    expect(activities.body.map((activity) => activity.action)).toContain(`Sign-in codes for Cara Capped refused after ${CAP} wrong codes in 15 minutes`);
    const deliveries = await t.db.selectFrom('webhookDeliveries').select(['event', 'payload']).where('workspaceId', '=', operator.user!.workspaceId!).execute();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      event: 'user.security',
      payload: {
        event: 'user.security',
        id,
        kind: 'second_factor.paused',
        text: `Sign-in codes for Cara Capped were refused after ${CAP} wrong codes in 15 minutes: someone may know their password`,
      },
    });
    const audit = await operator.get<AuditEntry[]>(`/api/audit-log?action=auth.second_factor_paused`);
    expect(audit.body).toHaveLength(1);
  });

  it('another person marking a notice seen changes nothing of it', async () => {
    const email = uniqueEmail('capped');
    const person = await signUp(t.app, { email, password: PASSWORD });
    const setup = await person.post<{ secret: string }>('/api/auth/two-factor/setup');
    expectStatus(await person.post('/api/auth/two-factor/enable', { code: await codeAt(setup.body.secret, -1) }), 200);
    for (let i = 0; i < CAP; i += 1) {
      const { client, challenge } = await codeStep(email);
      expectStatus(await client.post('/api/auth/login/two-factor', { challenge, code: '000000' }), 401);
    }
    const notices = (await person.get<{ notices: { id: string }[] }>('/api/auth/me')).body.notices;
    expect(notices).toHaveLength(1);
    const other = await signUp(t.app);
    expectStatus(await other.post('/api/auth/notices/seen', { ids: [notices[0]!.id] }), 204);
    expect((await person.get('/api/auth/me')).body.notices).toHaveLength(1);
    expectStatus(await new Client(t.app).post('/api/auth/notices/seen', { ids: [notices[0]!.id] }), 401);
  });
});

describe('the cap with Redis down and two API instances on one database', () => {
  let redis: OwnRedis;
  let a: TestApp;
  let b: Awaited<ReturnType<typeof buildInstance>>;
  beforeAll(async () => {
    redis = await startRedis(redisPort(6));
    a = await buildTestApp({ redisUrl: redis.url, rateLimits });
    b = await buildInstance(a.database, a.config);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await redis?.stop();
  });

  async function personWithCodes(app: TestApp['app']) {
    const email = uniqueEmail('capped');
    const person = await signUp(app, { email, password: PASSWORD });
    const setup = await person.post<{ secret: string }>('/api/auth/two-factor/setup');
    const enabled = await person.post<{ recoveryCodes: string[] }>('/api/auth/two-factor/enable', {
      code: await codeAt(setup.body.secret, -1),
    });
    expectStatus(enabled, 200);
    return { email, id: person.user!.id, secret: setup.body.secret, recoveryCodes: enabled.body.recoveryCodes };
  }

  it('holds while Redis errors, counting wrong codes sent to either instance together', async () => {
    const person = await personWithCodes(a.app);
    await redis.stop();
    // The attack: guesses spread over both instances while the request limits cannot be counted.
    for (let i = 0; i < CAP; i += 1) {
      const { client, challenge } = await codeStep(person.email, i % 2 === 0 ? a.app : b);
      expectError(await client.post('/api/auth/login/two-factor', { challenge, code: '000000' }), 401, messages.twoFactorCodeWrong);
    }
    for (const app of [a.app, b]) {
      const { client, challenge } = await codeStep(person.email, app);
      expectError(await client.post('/api/auth/login/two-factor', { challenge, code: currentCode(person.secret) }), 429, messages.twoFactorCodesPaused);
    }
    const { client, challenge } = await codeStep(person.email, b);
    expectStatus(await client.post('/api/auth/login/two-factor', { challenge, code: person.recoveryCodes[0] }), 200);
    redis = await startRedis(redisPort(6));
  });

  it('checks no more codes than the cap when guesses arrive at once on both instances, and tells the person once', async () => {
    const person = await personWithCodes(b);
    const steps = await Promise.all(Array.from({ length: CAP * 2 }, (_, i) => codeStep(person.email, i % 2 === 0 ? a.app : b)));
    const answers = await Promise.all(steps.map(({ client, challenge }) => client.post('/api/auth/login/two-factor', { challenge, code: '000000' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array<number>(CAP).fill(401), ...Array<number>(CAP).fill(429)]);
    const notices = await a.db.selectFrom('userNotices').select('kind').where('userId', '=', person.id).execute();
    expect(notices).toEqual([{ kind: 'second_factor.paused' }]);
    // Past the window, app codes are checked again.
    await a.db
      .updateTable('secondFactorFailures')
      .set({ windowStart: new Date(Date.now() - 16 * 60_000) })
      .where('userId', '=', person.id)
      .execute();
    const { client, challenge } = await codeStep(person.email, a.app);
    expectStatus(await client.post('/api/auth/login/two-factor', { challenge, code: currentCode(person.secret) }), 200);
  });
});
