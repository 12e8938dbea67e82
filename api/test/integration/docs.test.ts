/** The OpenAPI document: served at /api/docs/json and listing every route, each with its access rule applied. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, Client, signUp, type TestApp } from '../helpers/app.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { knownOperations, routeKey } from '../helpers/route-table.ts';

interface OpenApi {
  openapi: string;
  info: { title: string };
  paths: Record<string, Record<string, { tags?: string[]; responses?: Record<string, unknown> }>>;
  components?: { securitySchemes?: Record<string, unknown> };
}

let t: TestApp;
let docs: OpenApi;
beforeAll(async () => {
  t = await buildTestApp();
  const answer = await new Client(t.app).get<OpenApi>('/api/docs/json');
  expectStatus(answer, 200);
  docs = answer.body;
});
afterAll(async () => {
  await t?.close();
});

const operations = () =>
  Object.entries(docs.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({ key: routeKey(method, path), path, method, operation: methods[method]! })),
  );

describe('GET /api/docs/json', () => {
  it('is an OpenAPI 3 document with the session cookie scheme', () => {
    expect(docs.openapi).toMatch(/^3\./);
    expect(docs.info.title).toBe('Phone farm console API');
    expect(docs.components?.securitySchemes).toEqual({ session: { type: 'apiKey', in: 'cookie', name: 'sid' } });
  });

  it('lists every route of the API, and no route it does not have', () => {
    expect(
      operations()
        .map((operation) => operation.key)
        .sort(),
    ).toEqual([...knownOperations()].sort());
    for (const { path, method } of operations()) {
      const url = path.replace(/\{(\w+)\}/g, ':$1');
      expect(t.app.hasRoute({ method: method.toUpperCase() as 'GET', url }), `${method} ${url}`).toBe(true);
    }
  });

  it('tags every operation and documents its success answer', () => {
    for (const { key, operation } of operations()) {
      expect(operation.tags?.length, key).toBeGreaterThan(0);
    }
    const withSchemas = operations().filter(({ operation }) => operation.responses && Object.keys(operation.responses).some((code) => code.startsWith('2')));
    expect(withSchemas.length).toBeGreaterThan(40);
  });

  it('serves the documentation page', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });
});

describe('/api/docs in production', () => {
  let production: TestApp;
  beforeAll(async () => {
    production = await buildTestApp({ env: 'production', publicApiDocs: false });
  });
  afterAll(async () => {
    await production?.close();
  });

  it('is for the signed in unless the farm publishes it', async () => {
    for (const url of ['/api/docs/json', '/api/docs/', '/api/docs/yaml']) {
      const answer = await production.app.inject({ method: 'GET', url });
      expect(answer.statusCode, url).toBe(401);
      expect(answer.json(), url).toEqual({ error: 'Not signed in' });
    }
    const operator = await signUp(production.app);
    const signedIn = await operator.get<OpenApi>('/api/docs/json');
    expectStatus(signedIn, 200);
    expect(signedIn.body.info.title).toBe('Phone farm console API');
  });
});
