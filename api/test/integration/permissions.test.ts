/**
 * The permission matrix: every route × operator, VA, signed out, signed in without a workspace, and another
 * workspace's operator. Each row builds its own fresh target, so no row depends on another; the people are
 * shared because nothing here changes who they are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '@farm/contracts';
import { buildTestApp, people, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';
import { csvWrites, publicWrites, readRoutes, routeKey, selfWrites, send, writeRoutes, type Crew } from '../helpers/route-table.ts';

let t: TestApp;
let crew: Crew & { stranger: Client; anonymous: Client; loner: Client };

beforeAll(async () => {
  t = await buildTestApp();
  const cast = await people(t.app);
  // A VA who signed up without an invitation: signed in, but in no workspace.
  const loner = await signUp(t.app, { role: 'va', name: 'Lou Loner' });
  crew = { ...cast, loner };
});
afterAll(async () => {
  await t?.close();
});

describe('the matrix', () => {
  it('lists every write route of the OpenAPI document', async () => {
    const docs = await crew.operator.get<{ paths: Record<string, Record<string, unknown>> }>('/api/docs/json');
    const writes = Object.entries(docs.body.paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => method !== 'get')
        .map((method) => routeKey(method, path)),
    );
    const listed = [...writeRoutes, ...publicWrites, ...selfWrites, ...csvWrites].map((route) => routeKey(route.method, route.path));
    expect([...listed].sort()).toEqual([...writes].sort());
  });
});

describe.each(writeRoutes)('$method $path', (route) => {
  it(`operator → ${route.ok}`, async () => {
    const call = await route.setup(crew);
    expectStatus(await send(crew.operator, route.method, call), route.ok);
  });

  it(route.vaMay ? `VA of the workspace → ${route.ok}` : 'VA of the workspace → 403, and the target is left for the operator', async () => {
    const call = await route.setup(crew);
    if (route.vaMay) {
      expectStatus(await send(crew.va, route.method, call), route.ok);
      return;
    }
    expectError(await send(crew.va, route.method, call), 403, route.vaRefusal ?? messages.forbidden);
    expectStatus(await send(crew.operator, route.method, call), route.ok);
  });

  it('signed out → 401', async () => {
    const call = await route.setup(crew);
    // Creating a campaign signed out has the spec's own sentence.
    const message = route.method === 'POST' && route.path === '/api/campaigns' ? messages.mustBeLoggedIn : messages.notSignedIn;
    expectError(await send(crew.anonymous, route.method, call), 401, message);
  });

  it(route.anySignedIn ? `signed in without a workspace → ${route.ok}` : 'signed in without a workspace → 403', async () => {
    const call = await route.setup(crew);
    if (route.anySignedIn) {
      expectStatus(await send(crew.loner, route.method, call), route.ok);
      return;
    }
    expectError(await send(crew.loner, route.method, call), 403, messages.noWorkspace);
  });

  const foreign = route.foreign;
  if (foreign) {
    it(`operator of another workspace → ${foreign.status}`, async () => {
      const call = await route.setup(crew);
      expectError(await send(crew.stranger, route.method, call), foreign.status, foreign.error);
      expectStatus(await send(crew.operator, route.method, call), route.ok);
    });
  }
});

describe.each(readRoutes)('GET $path', (route) => {
  it('operator → 200', async () => {
    expectStatus(await crew.operator.get(await route.setup(crew)), 200);
  });

  it(route.vaMay ? 'VA of the workspace → 200' : 'VA of the workspace → 403', async () => {
    const answer = await crew.va.get(await route.setup(crew));
    if (route.vaMay) expectStatus(answer, 200);
    else expectError(answer, 403, messages.forbidden);
  });

  it(route.access === 'public' ? 'signed out → 200' : 'signed out → 401', async () => {
    const answer = await crew.anonymous.get(await route.setup(crew));
    if (route.access === 'public') expectStatus(answer, 200);
    else expectError(answer, 401, messages.notSignedIn);
  });

  it(route.access === 'workspace' ? 'signed in without a workspace → 403' : 'signed in without a workspace → 200', async () => {
    const answer = await crew.loner.get(await route.setup(crew));
    if (route.access === 'workspace') expectError(answer, 403, messages.noWorkspace);
    else expectStatus(answer, 200);
  });

  if (route.names) {
    it('operator of another workspace → 404', async () => {
      expectError(await crew.stranger.get(await route.setup(crew)), 404, messages.notFound);
    });
  }
});
