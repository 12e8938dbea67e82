/** Component-test helpers: the app's providers around a router, and fetch answered from a table. */
import type { Me } from '@farm/contracts';
import { render, type RenderResult } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { vi } from 'vitest';
import { AppProviders } from '../app/providers';
import { createQueryClient } from '../shared/api';

export interface Call {
  method: string;
  url: string;
  body: unknown;
}

type Reply = { status?: number; body?: unknown } | ((body: unknown) => { status?: number; body?: unknown });

/** Answers 'METHOD /path' from the table (404 otherwise) and records every call. */
export function stubApi(routes: Record<string, Reply>): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname + input.search : input.url;
      const method = init?.method ?? 'GET';
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
      calls.push({ method, url, body });
      const route = routes[`${method} ${url}`];
      const reply = typeof route === 'function' ? route(body) : (route ?? { status: 404, body: { error: 'Not found' } });
      const status = reply.status ?? 200;
      if (status === 204) return new Response(null, { status });
      return new Response(JSON.stringify(reply.body ?? {}), { status, headers: { 'Content-Type': 'application/json' } });
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

/** Renders `routes` (a <Route> tree) inside the providers, starting at `path`. */
export function renderRoutes(routes: ReactElement, path = '/'): RenderResult {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <AppProviders queryClient={createQueryClient()} env="test">
        <Routes>{routes}</Routes>
      </AppProviders>
    </MemoryRouter>,
  );
}

export { Route };
