/** Demo mode: the login form's sample credentials are given out only then, and they sign in to the demo farm. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Me } from '@farm/contracts';
import { DEMO_CREDENTIALS } from '../../src/demo/credentials.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { buildTestApp, Client, type TestApp } from '../helpers/app.ts';
import { expectStatus } from '../helpers/assertions.ts';
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
