/**
 * Bad input never gives a 5xx: for every write route, malformed JSON, bodies of the wrong shape, every field
 * of the wrong type, 1 MB strings, oversize bodies, unknown fields and prototype keys; for every read route,
 * bad query values and ids. Each refusal is a 4xx with a JSON error text and leaves the target as it was:
 * the valid call still succeeds afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, defaultHostFleetSettings } from '@farm/contracts';
import { buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { expectClientError, expectError, expectStatus } from '../helpers/assertions.ts';
import { readRoutes, send, writeRoutes, type Crew } from '../helpers/route-table.ts';

let t: TestApp;
let crew: Crew;
let operator: Client;
beforeAll(async () => {
  t = await buildTestApp();
  const cast = await people(t.app);
  crew = cast;
  operator = cast.operator;
});
afterAll(async () => {
  await t?.close();
});

const JSON_TYPE = { 'content-type': 'application/json' };
const MEGABYTE = 'x'.repeat(1_000_000);

/** Values of another type than `sample`. */
function wrongTypes(sample: unknown): unknown[] {
  if (typeof sample === 'string') return [12345, true, { nested: 'object' }, ['a', 'b']];
  if (typeof sample === 'number') return ['12', true, { n: 1 }, [1]];
  if (typeof sample === 'boolean') return ['true', 1, { b: true }, [true]];
  if (Array.isArray(sample)) return ['a, b', 1, { 0: 'a' }, [{ item: 'object' }], [null]];
  return ['text', 1, [1, 2]];
}

/** The sample body's fields; empty for routes that take no body (deletes, stop, restart, reserve an upload). */
const fieldsOf = (body: unknown): Record<string, unknown> => (body && typeof body === 'object' ? (body as Record<string, unknown>) : {});

describe.each(writeRoutes)('$method $path', (route) => {
  it('refuses malformed JSON, prototype keys and bodies of the wrong kind, never with a 5xx', async () => {
    const call = await route.setup(crew);
    for (const text of ['{"name": ', "{'a': 1}", '{"a": 1} trailing']) {
      const answer = await operator.request(route.method, call.url, text, JSON_TYPE);
      expect({ text, status: answer.status, error: answer.body?.error }).toEqual({ text, status: 400, error: 'Request body is not valid JSON' });
    }
    const base = JSON.stringify(fieldsOf(call.body)).slice(1, -1);
    for (const key of ['__proto__', 'constructor']) {
      const text = `{${base}${base ? ',' : ''}"${key}": {"polluted": true, "prototype": {"polluted": true}}}`;
      expectError(await operator.request(route.method, call.url, text, JSON_TYPE), 400, 'Request body is not valid JSON');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expectError(await operator.request(route.method, call.url, '', JSON_TYPE), 400, 'Request body must not be empty when Content-Type is application/json');

    // A route that reads a body refuses one of another shape or type; one that reads none would just act on it.
    if (Object.keys(fieldsOf(call.body)).length > 0) {
      for (const text of ['[{"a": 1}]', '"text"', '42', 'null']) expectClientError(await operator.request(route.method, call.url, text, JSON_TYPE));
      for (const [type, payload] of [
        ['text/plain', 'hello'],
        ['application/x-www-form-urlencoded', 'name=x'],
      ] as const) {
        expectClientError(await operator.request(route.method, call.url, payload, { 'content-type': type }));
      }
      // An empty object is either refused (required fields) or taken as no change.
      const empty = await operator.request(route.method, call.url, {});
      expect(empty.status, JSON.stringify(empty.body)).toBeLessThan(500);
      if (empty.status >= 400) expectClientError(empty);
    }
    expectStatus(await send(operator, route.method, call), route.ok);
  });
});

describe.each(
  writeRoutes.filter(
    (route) => route.method !== 'DELETE' && route.path !== '/api/objects/upload' && !route.path.endsWith('/stop') && !route.path.endsWith('/restart-session'),
  ),
)('$method $path fields', (route) => {
  it('refuses every field of a wrong type, 1 MB strings and a body over 1 MB', async () => {
    const call = await route.setup(crew);
    const body = fieldsOf(call.body);
    for (const [field, sample] of Object.entries(body)) {
      for (const wrong of wrongTypes(sample)) {
        const answer = await operator.request(route.method, call.url, { ...body, [field]: wrong });
        expect({ field, wrong, status: answer.status }).toEqual({ field, wrong, status: 400 });
        expect(typeof answer.body?.error).toBe('string');
      }
      const huge = typeof sample === 'string' ? MEGABYTE : Array.isArray(sample) ? [MEGABYTE] : undefined;
      if (huge === undefined) continue;
      const answer = await operator.request(route.method, call.url, { ...body, [field]: huge });
      expect({ field, status: answer.status }).toEqual({ field, status: 400 });
      expect(answer.body.details?.[0]?.field ?? answer.body.error).toContain(field);
      // The refusal names the field; it does not echo the megabyte back.
      expect(JSON.stringify(answer.body).length).toBeLessThan(2000);
    }
    const oversize = await operator.request(route.method, call.url, { ...body, padding: 'x'.repeat(1_100_000) });
    // Account updates may carry a profile picture and Inspect captures a frame, so their limits are higher; the
    // padding is then an unknown field.
    if (route.path === '/api/accounts/{id}' || route.path === '/api/ui-captures') expectStatus(oversize, route.ok);
    else {
      expectError(oversize, 413, 'Request body is too large: the limit is 1 MB');
      expectStatus(await send(operator, route.method, call), route.ok);
    }
  });

  it('ignores unknown fields', async () => {
    const call = await route.setup(crew);
    const answer = await operator.request(route.method, call.url, {
      ...fieldsOf(call.body),
      unexpected: 'x',
      nested: { deep: [1, 2, 3] },
      workspaceId: crew.operator.user!.workspaceId,
    });
    expectStatus(answer, route.ok);
    if (answer.body && typeof answer.body === 'object') {
      expect(answer.body).not.toHaveProperty('unexpected');
      expect(answer.body).not.toHaveProperty('workspaceId');
    }
  });
});

describe.each(readRoutes.filter((route) => route.access === 'workspace'))('GET $path', (route) => {
  it('never answers 5xx to bad query values', async () => {
    const url = await route.setup(crew);
    const join = url.includes('?') ? '&' : '?';
    const queries = [
      'limit=abc',
      'limit=-1',
      'limit=1.5',
      'limit=1&limit=2',
      `cursor=${'z'.repeat(5000)}`,
      'status=bogus&type=bogus&priority=bogus&platform=bogus&range=bogus&active=maybe&role=admin',
      'from=yesterday',
      'to=2026-13-45',
      'deviceId=not-a-uuid',
      'campaignId=not-a-uuid&accountId=not-a-uuid&assignedToId=not-a-uuid&vaId=not-a-uuid',
      `search=${encodeURIComponent('%_\\\'";--')}`,
      `search=${'x'.repeat(100_000)}`,
      'status[]=a',
    ];
    for (const query of queries) {
      const answer = await operator.get(`${url}${join}${query}`);
      expect(answer.status, `${route.path}?${query.slice(0, 60)} → ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 200)}`).toBeLessThan(500);
      if (answer.status >= 400) expectClientError(answer);
    }
  });
});

describe('ids in paths', () => {
  const withId = [
    ...writeRoutes.map((route) => ({ method: route.method, path: route.path })),
    ...readRoutes.map((route) => ({ method: 'GET' as const, path: route.path })),
  ].filter((route) => route.path.includes('{id}'));

  it.each(withId)('$method $path answers 404 for a malformed or unknown id', async ({ method, path }) => {
    const call = (id: string) => {
      const url = path.replace('{id}', encodeURIComponent(id)).replace('{accountId}', '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b');
      // A valid body, so that only the id is wrong.
      const bodies: Record<string, unknown> = {
        '/api/campaigns/{id}/accounts': { accountId: '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' },
        '/api/devices/{id}/commands': { name: 'screenshot' },
        '/api/recipes/{id}': { enabled: false },
        '/api/tasks/{id}/answer': { answer: 'up' },
        '/api/groups/{id}/devices': { add: ['6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b'] },
        '/api/groups/{id}/assign': { assignedToId: null },
        '/api/hosts/{id}/fleet-settings': defaultHostFleetSettings,
        '/api/recipes/{id}/versions': { recipe: { id: 'instagram.post' } },
      };
      // A valid query, where a read needs one.
      const queries: Record<string, string> = { '/api/recipes/{id}/diff': '?against=shipped' };
      const body = bodies[path] ?? {};
      return operator.request(method, `${url}${queries[path] ?? ''}`, method === 'GET' || method === 'DELETE' ? undefined : body);
    };
    for (const id of [
      'not-a-uuid',
      '123',
      "1'; drop table devices; --",
      '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b',
      '00000000-0000-0000-0000-000000000000',
      'x'.repeat(90),
    ]) {
      const answer = await call(id);
      expect({ id: id.slice(0, 40), status: answer.status, error: answer.body?.error }).toEqual({ id: id.slice(0, 40), status: 404, error: messages.notFound });
    }
    // Past Fastify's parameter length the router itself refuses: still a 4xx.
    expectClientError(await call('x'.repeat(5000)));
  });

  it('answers a JSON 404 for routes that do not exist', async () => {
    expectError(await operator.get('/api/nothing-here'), 404, 'Route GET /api/nothing-here not found');
    expectError(await operator.request('PATCH', '/api/devices', {}), 404, 'Route PATCH /api/devices not found');
  });
});

describe('headers', () => {
  it('treats a garbage session cookie as signed out', async () => {
    for (const cookie of ['sid=', 'sid=%%%', `sid=${'a'.repeat(5000)}`, 'sid=a; sid=b', 'other=1']) {
      const answer = await t.app.inject({ method: 'GET', url: '/api/devices', headers: { cookie } });
      expect({ cookie: cookie.slice(0, 20), status: answer.statusCode }).toEqual({ cookie: cookie.slice(0, 20), status: 401 });
    }
  });
});
