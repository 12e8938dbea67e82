/**
 * Demo mode: the login form's sample credentials are given out only then, and they sign in to the demo farm. With a
 * password of the farm's own (DEMO_PASSWORD, required in production) the published ones sign nobody in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type Me } from '@farm/contracts';
import { DEMO_CREDENTIALS, DEMO_VA_PASSWORD } from '../../src/shared/demo-credentials.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { buildTestApp, Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';
import { readRoutes } from '../helpers/route-table.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ demo: true });
  await seedDemo(t.db, t.app.ctx.storage);
});
afterAll(async () => {
  await t?.close();
});

describe('GET /api/config in demo mode', () => {
  it('gives the demo credentials, and they sign in as the demo operator', async () => {
    const answer = await new Client(t.app).get('/api/config');
    expectStatus(answer, 200);
    expect(answer.body).toEqual({ demo: true, demoCredentials: { email: 'operator@demo.farm', password: 'demo-operator' } });
    const client = new Client(t.app);
    const login = await client.post<{ user: Me }>('/api/auth/login', DEMO_CREDENTIALS);
    expectStatus(login, 200);
    expect(login.body.user).toMatchObject({ email: DEMO_CREDENTIALS.email, role: 'operator', workspaceName: 'Demo Farm' });
  });

  it('seeds a farm every list answers without error', async () => {
    const client = new Client(t.app);
    await client.post('/api/auth/login', DEMO_CREDENTIALS);
    // Every list of the workspace; a list with a query of its own (the analytics series) is asked with it.
    for (const route of readRoutes.filter((candidate) => candidate.access === 'workspace' && !candidate.path.includes('{'))) {
      const answer = await client.get(await route.setup({ operator: client, va: client }));
      expect({ path: route.path, status: answer.status }).toEqual({ path: route.path, status: 200 });
    }
    expect((await client.get<unknown[]>('/api/devices')).body.length).toBeGreaterThan(0);
    expect((await client.get<unknown[]>('/api/users?role=va')).body.length).toBeGreaterThan(0);
  });

  it('seeds only once', async () => {
    expect(await seedDemo(t.db, t.app.ctx.storage)).toBe(false);
  });
});

describe('a demo farm with DEMO_PASSWORD', () => {
  const OWN = 'our own demo secret';
  const VA_EMAIL = 'maria@demo.farm';
  const login = (app: TestApp['app'], email: string, password: string) => new Client(app).post('/api/auth/login', { email, password });

  it('gives its operator and VAs that password in production, and never serves it', async () => {
    const production = await buildTestApp({ env: 'production', demo: true, demoPassword: OWN });
    try {
      expect(await seedDemo(production.db, production.app.ctx.storage, { password: OWN })).toBe(true);
      // The attack: the passwords published with the product.
      expectError(await login(production.app, DEMO_CREDENTIALS.email, DEMO_CREDENTIALS.password), 401, messages.invalidCredentials);
      expectError(await login(production.app, VA_EMAIL, DEMO_VA_PASSWORD), 401, messages.invalidCredentials);
      expectStatus(await login(production.app, DEMO_CREDENTIALS.email, OWN), 200);
      expectStatus(await login(production.app, VA_EMAIL, OWN), 200);
      expect((await new Client(production.app).get('/api/config')).body).toEqual({ demo: true, demoCredentials: null });
    } finally {
      await production.close();
    }
  });

  it('moves a farm seeded with the published passwords to it, and keeps a password someone chose', async () => {
    const farm = await buildTestApp({ demo: true, demoPassword: OWN });
    try {
      await seedDemo(farm.db, farm.app.ctx.storage);
      const va = new Client(farm.app);
      expectStatus(await va.post('/api/auth/login', { email: VA_EMAIL, password: DEMO_VA_PASSWORD }), 200);
      expectStatus(await va.patch('/api/users/me', { currentPassword: DEMO_VA_PASSWORD, password: 'maria chose this one' }), 200);
      expect(await seedDemo(farm.db, farm.app.ctx.storage, { password: OWN })).toBe(false);
      expectError(await login(farm.app, DEMO_CREDENTIALS.email, DEMO_CREDENTIALS.password), 401, messages.invalidCredentials);
      expectStatus(await login(farm.app, DEMO_CREDENTIALS.email, OWN), 200);
      expectStatus(await login(farm.app, VA_EMAIL, 'maria chose this one'), 200);
      expectStatus(await login(farm.app, 'james@demo.farm', OWN), 200);
    } finally {
      await farm.close();
    }
  });
});
