/**
 * The component-test harness: the app's providers around a router, and fetch answered from a table. One for every
 * screen test, so a change to the providers or to how the API is stood in is made once.
 */
import type { Me } from '@farm/contracts';
import { configure, render, type RenderResult } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { vi } from 'vitest';
import { AppProviders } from '../app/providers';
import { createQueryClient } from '../shared/api';

// Screens load lazily and the test machine is shared: give findBy* more than the default second.
configure({ asyncUtilTimeout: 4000 });

export interface Call {
  method: string;
  url: string;
  body: unknown;
}

type ReplyFn = (body: unknown, url: string) => unknown;
/** A JSON answer (200), a ready Response (see `answer`), undefined for 204, or a function of the request body. */
export type Reply = ReplyFn | object | string | number | boolean | null | undefined;

/** An answer with another status than 200: a refusal, a 201, a 204 (JSON `{}` when no body is given). */
export function answer(status: number, body: unknown = {}): Response {
  if (status === 204) return new Response(null, { status });
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/**
 * Answers fetch from a table keyed 'METHOD /path?query' and records every call; anything else is a 404, so a test
 * sees which calls a screen makes.
 */
export function stubApi(routes: Record<string, Reply>): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname + input.search : input.url;
      const method = init?.method ?? 'GET';
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : init?.body;
      calls.push({ method, url, body });
      const key = `${method} ${url}`;
      if (!(key in routes)) return answer(404, { error: 'Not found' });
      const route = routes[key];
      const reply = typeof route === 'function' ? (route as ReplyFn)(body, url) : route;
      if (reply instanceof Response) return reply;
      if (reply === undefined) return answer(204);
      return answer(200, reply);
    }),
  );
  return calls;
}

export function buildMe(overrides: Partial<Me> = {}): Me {
  return {
    id: 'u1',
    email: 'ada@example.com',
    name: 'Ada Lovelace',
    role: 'operator',
    isActive: true,
    createdAt: '2025-01-01T00:00:00.000Z',
    workspaceId: 'w1',
    workspaceName: 'North Farm',
    ...overrides,
  };
}

function inProviders(ui: ReactElement, path: string, queryClient = createQueryClient()): RenderResult {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <AppProviders queryClient={queryClient} env="test">
        <Routes>{ui}</Routes>
      </AppProviders>
    </MemoryRouter>,
  );
}

/** Renders `routes` (a <Route> tree) inside the providers, starting at `path`; who is signed in comes from the API. */
export function renderRoutes(routes: ReactElement, path = '/'): RenderResult {
  return inProviders(routes, path);
}

export interface RenderScreenOptions {
  /** The URL the router starts at. */
  path?: string;
  /** The route pattern the screen is mounted at, for useParams. */
  route?: string;
  /** The signed-in person's role (already known, as after sign-in). */
  role?: Me['role'];
}

/** Renders one screen at `route`, signed in as a person of `role`; any other URL shows "Elsewhere". */
export function renderScreen(ui: ReactElement, { path = '/', route = '/', role = 'operator' }: RenderScreenOptions = {}): RenderResult {
  const queryClient = createQueryClient();
  queryClient.setQueryData(['/api/auth/me'], { user: buildMe({ role }) });
  return inProviders(
    <>
      <Route path={route} element={ui} />
      <Route path="*" element={<p>Elsewhere</p>} />
    </>,
    path,
    queryClient,
  );
}

export { Route };
