/**
 * Security headers on every answer: pages of the console, its files, API answers, refusals and errors. A CSP
 * (own scripts only), no framing except the wall screen, no MIME sniffing, no referrer to other sites.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let web: string;

beforeAll(async () => {
  web = await mkdtemp(join(tmpdir(), 'farm-web-'));
  await mkdir(join(web, 'assets'));
  await writeFile(
    join(web, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/assets/app.js"></script></head><body><div id="root"></div></body></html>',
  );
  await writeFile(join(web, 'assets', 'app.js'), 'console.log("console")');
  t = await buildTestApp({ webDist: web });
});
afterAll(async () => {
  await t?.close();
  await rm(web, { recursive: true, force: true });
});

function policy(answer: LightMyRequestResponse): Map<string, string> {
  const text = String(answer.headers['content-security-policy'] ?? '');
  return new Map(
    text
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [name, ...values] = part.split(/\s+/);
        return [name!, values.join(' ')] as const;
      }),
  );
}

function expectHardened(answer: LightMyRequestResponse, framing: 'none' | 'any'): void {
  const csp = policy(answer);
  expect(csp.get('default-src')).toBe("'self'");
  expect(csp.get('script-src')).toBe("'self'");
  expect(csp.get('object-src')).toBe("'none'");
  expect(csp.get('base-uri')).toBe("'self'");
  expect(csp.get('frame-ancestors')).toBe(framing === 'none' ? "'none'" : '*');
  expect(answer.headers['x-frame-options']).toBe(framing === 'none' ? 'DENY' : undefined);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['referrer-policy']).toBe('same-origin');
}

describe('security headers', () => {
  it('are on the console pages, and its files', async () => {
    for (const url of ['/', '/login', '/dashboard', '/settings', '/reset-password?token=abc', '/no-such-page']) {
      const answer = await t.app.inject({ method: 'GET', url });
      expect(answer.statusCode, url).toBe(200);
      expectHardened(answer, 'none');
    }
    expectHardened(await t.app.inject({ method: 'GET', url: '/assets/app.js' }), 'none');
    expectHardened(await t.app.inject({ method: 'GET', url: '/assets/missing.js' }), 'none');
  });

  it('let only the wall screen page be framed', async () => {
    for (const url of ['/monitor/wall', '/monitor/wall?token=abc']) {
      const answer = await t.app.inject({ method: 'GET', url });
      expect(answer.statusCode, url).toBe(200);
      expectHardened(answer, 'any');
    }
    expectHardened(await t.app.inject({ method: 'GET', url: '/monitor' }), 'none');
  });

  it('are on API answers, refusals and errors', async () => {
    const operator = await signUp(t.app);
    const answers = [
      await t.app.inject({ method: 'GET', url: '/api/config' }),
      await t.app.inject({ method: 'GET', url: '/api/devices' }),
      await t.app.inject({ method: 'GET', url: '/api/devices', headers: { cookie: `sid=${operator.cookie}` } }),
      await t.app.inject({
        method: 'POST',
        url: '/api/devices',
        headers: { cookie: `sid=${operator.cookie}`, 'content-type': 'application/json' },
        payload: '{"name":',
      }),
      await t.app.inject({ method: 'GET', url: '/api/nothing-here' }),
      await t.app.inject({ method: 'GET', url: '/api/wall?token=nope' }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 401, 200, 400, 404, 401]);
    for (const answer of answers) expectHardened(answer, 'none');
  });
});
