import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, Client, signUp, type TestApp } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('a new password', () => {
  it('ends the person\u2019s other sessions and keeps the one that changed it', async () => {
    const email = `pw.${Date.now()}@example.test`;
    const here = await signUp(t.app, { email, password: 'first password!' });
    const elsewhere = new Client(t.app);
    expectStatus(await elsewhere.post('/api/auth/login', { email, password: 'first password!' }), 200);
    expectStatus(await here.patch('/api/users/me', { currentPassword: 'first password!', password: 'second password!' }), 200);
    expectStatus(await here.get('/api/auth/me'), 200);
    expectError(await elsewhere.get('/api/auth/me'), 401, 'Not signed in');
  });
});

describe('list filters', () => {
  it('name a malformed id filter instead of failing in the database', async () => {
    const operator = await signUp(t.app);
    for (const [path, label] of [
      ['/api/tasks?deviceId=abc', 'Device'],
      ['/api/devices?assignedToId=abc', 'Assignee'],
      ['/api/posts?accountId=abc', 'Account'],
      ['/api/routines?campaignId=abc', 'Campaign'],
      ['/api/sessions?vaId=abc', 'VA'],
    ] as const) {
      const answer = await operator.get(path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error, path).toBe(`${label} must be an id`);
    }
    expectStatus(await operator.get('/api/tasks?assignedToId=me'), 200);
    expectStatus(await operator.get('/api/posts?campaignId=none'), 200);
  });
});
