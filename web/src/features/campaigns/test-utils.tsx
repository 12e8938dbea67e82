/** Rendering a screen for component tests: the app's providers, a router at the given path, and a scripted API. */
import { configure, render, type RenderResult } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { vi } from 'vitest';
import type { Account, Campaign, Me, Post, Routine } from '@farm/contracts';
import { AppProviders } from '../../app/providers';
import { createQueryClient } from '../../shared/api';

// Screens load lazily and the test machine is shared: give findBy* more than the default second.
configure({ asyncUtilTimeout: 4000 });

type ReplyFn = (body: unknown, url: string) => unknown;
/** A JSON answer, a ready Response, undefined for 204, or a function of the request body. */
export type Reply = ReplyFn | object | string | number | boolean | null | undefined;

export interface ApiCall {
  method: string;
  url: string;
  body: unknown;
}

/**
 * Answers fetch from a table keyed 'METHOD /path?query'; anything else is a 404, so a test sees
 * which calls a screen makes. A reply of `new Response(...)` is sent as it is.
 */
export function scriptApi(routes: Record<string, Reply>): ApiCall[] {
  const calls: ApiCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname + input.search : input.url;
      const method = init?.method ?? 'GET';
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : init?.body;
      calls.push({ method, url, body });
      const key = `${method} ${url}`;
      if (!(key in routes)) return new Response(JSON.stringify({ error: 'Not found' }), { status: 404 });
      const route = routes[key];
      const reply = typeof route === 'function' ? (route as ReplyFn)(body, url) : route;
      if (reply instanceof Response) return reply;
      if (reply === undefined) return new Response(null, { status: 204 });
      return new Response(JSON.stringify(reply), { status: 200, headers: { 'Content-Type': 'application/json' } });
    }),
  );
  return calls;
}

export function me(role: Me['role'] = 'operator'): Me {
  return {
    id: 'u1',
    email: 'op@example.com',
    name: 'Op',
    role,
    isActive: true,
    createdAt: '2025-01-01T00:00:00.000Z',
    workspaceId: 'w1',
    workspaceName: 'Farm',
  };
}

export interface RenderScreenOptions {
  /** The URL the router starts at. */
  path?: string;
  /** The route pattern the screen is mounted at, for useParams. */
  route?: string;
  role?: Me['role'];
}

export function renderScreen(ui: ReactElement, { path = '/', route = '/', role = 'operator' }: RenderScreenOptions = {}): RenderResult {
  const queryClient = createQueryClient();
  queryClient.setQueryData(['/api/auth/me'], { user: me(role) });
  return render(
    <MemoryRouter initialEntries={[path]}>
      <AppProviders queryClient={queryClient} env="test">
        <Routes>
          <Route path={route} element={ui} />
          <Route path="*" element={<p>Elsewhere</p>} />
        </Routes>
      </AppProviders>
    </MemoryRouter>,
  );
}

const stamp = '2025-01-01T00:00:00.000Z';

export function buildCampaign(overrides: Partial<Campaign> = {}): Campaign {
  return {
    id: 'c1',
    name: 'Summer Push',
    platform: 'instagram',
    niche: 'Fitness',
    keywords: ['gym', 'workout', 'protein', 'cardio'],
    referenceAccounts: [],
    engagementTarget: 100,
    status: 'draft',
    customLore: null,
    guidelines: null,
    searchAndLike: false,
    followAccountList: false,
    followFromAccount: false,
    searchKeywords: [],
    searchAndLikeActions: [],
    accountsToFollow: [],
    followTargetAccounts: [],
    followType: null,
    engageCommenters: false,
    engageCommentersActions: [],
    autoLikeEnabled: false,
    autoLikeReferenceImages: [],
    autoLikeGuidelines: null,
    autoswipeEnabled: false,
    autoswipeGenderPreference: null,
    autoswipeAgeMin: 18,
    autoswipeAgeMax: 35,
    autoswipeDistanceMax: 50,
    autoswipeBioKeywords: [],
    activeHoursStart: 9,
    activeHoursEnd: 21,
    cooldownMinutes: 30,
    dailyCaps: {},
    createdById: 'u1',
    createdAt: stamp,
    updatedAt: stamp,
    accountIds: [],
    ...overrides,
  };
}

export function buildAccount(overrides: Partial<Account> = {}): Account {
  return {
    id: 'a1',
    username: 'alpha',
    platform: 'instagram',
    status: 'active',
    deviceId: null,
    profilePicture: null,
    bio: null,
    followers: 0,
    following: 0,
    warmupStartDate: null,
    warmupEndDate: null,
    gender: null,
    age: null,
    birthday: null,
    profileImages: [],
    interests: [],
    sexualOrientation: null,
    relationshipGoal: null,
    pausedCode: null,
    pausedMessage: null,
    createdAt: stamp,
    updatedAt: stamp,
    ...overrides,
  };
}

export function buildPost(overrides: Partial<Post> = {}): Post {
  return {
    id: 'p1',
    accountId: 'a1',
    campaignId: null,
    caption: 'Morning run by the sea',
    status: 'draft',
    mediaUrls: [],
    hashtags: [],
    scheduledAt: null,
    publishedAt: null,
    failureCode: null,
    failureMessage: null,
    waitingCode: null,
    waitingMessage: null,
    createdById: 'u1',
    createdAt: stamp,
    updatedAt: stamp,
    ...overrides,
  };
}

export function buildRoutine(overrides: Partial<Routine> = {}): Routine {
  return {
    id: 'r1',
    campaignId: 'c1',
    type: 'warmup',
    platform: 'instagram',
    accountId: 'a1',
    name: 'Warmup',
    intensity: 5,
    duration: 5,
    actions: [],
    settings: { duration: 5, actionCount: 10 },
    sequence: 1,
    isActive: true,
    createdAt: stamp,
    ...overrides,
  };
}
