/** Campaigns → Recipes: the workspace's recipes, paused ones with their two ways on, and the health board. */
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { answer, buildMe, renderRoutes, renderScreen, Route, stubApi } from '../../test/render';
import { useAuthStore } from '../auth/auth.store';
import { RecipesPage } from './RecipesPage';

const routes = <Route path="/campaigns/recipes" element={<RecipesPage />} />;
const me = buildMe({ id: 'u1', name: 'Olga Operator' });

function api(extra: Record<string, Parameters<typeof stubApi>[0][string]> = {}) {
  useAuthStore.getState().setUser(me);
  return stubApi({ 'GET /api/auth/me': { user: me }, ...extra });
}

/** A stored recipe as the list returns it, but for its id, whether it is on and why it was refused. */
const storedRecipe = {
  recipeId: 'instagram.post',
  version: 3,
  name: 'Instagram publish a post',
  platform: 'instagram',
  routines: ['create_post'],
  appPackage: 'com.instagram.android',
  writtenFor: '360.0.0.52.192',
  minVersion: '360',
  belowVersion: null,
  verified: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('Campaigns → Recipes', () => {
  const own = { ...storedRecipe, id: 'r1', enabled: true, invalid: null };
  const shipped = { ...own, version: 1, verified: false, minVersion: '300' };
  const settings = { tryUntestedTemplates: false };

  it('lists the workspace’s recipes, turns one off, and shows where a refused document is wrong', async () => {
    const calls = api({
      'GET /api/recipes': { recipes: [own], shipped: [shipped], breakers: [], settings },
      'PATCH /api/recipes/r1': { ...own, enabled: false, body: {} },
      'POST /api/recipes': answer(400, {
        error: 'The recipe is not valid: platform: Invalid option',
        details: [
          { field: 'recipe.platform', message: 'Invalid option' },
          { field: 'recipe.steps', message: 'Required' },
        ],
      }),
    });
    renderRoutes(routes, '/campaigns/recipes');
    const section = within(await screen.findByRole('region', { name: 'Recipes' }));
    const row = within(await section.findByRole('listitem', { name: 'Instagram publish a post v3' }));
    expect(row.getByText('Checked')).toBeTruthy();
    fireEvent.click(row.getByRole('switch', { name: 'Sent to phones' }));
    await vi.waitFor(() => expect(calls.find((call) => call.url === '/api/recipes/r1')).toMatchObject({ method: 'PATCH', body: { enabled: false } }));
    expect(section.getByRole('listitem', { name: 'Instagram publish a post template' })).toBeTruthy();

    fireEvent.change(section.getByLabelText('Recipe (JSON)'), { target: { value: '{ "id": "instagram.post"' } });
    fireEvent.click(section.getByRole('button', { name: 'Add Recipe' }));
    expect(await section.findByText('The recipe is not valid JSON')).toBeTruthy();
    fireEvent.change(section.getByLabelText('Recipe (JSON)'), { target: { value: '{ "id": "instagram.post", "platform": "myspace" }' } });
    fireEvent.click(section.getByRole('button', { name: 'Add Recipe' }));
    expect(await section.findByText('The recipe is not valid: platform: Invalid option')).toBeTruthy();
    expect(section.getByText('steps: Required')).toBeTruthy();
    expect(calls.find((call) => call.url === '/api/recipes' && call.method === 'POST')?.body).toEqual({
      recipe: { id: 'instagram.post', platform: 'myspace' },
    });
  });
});

describe('Campaigns → Recipes: a shipped template’s evidence', () => {
  const template = { ...storedRecipe, recipeId: 'instagram.engage', name: 'Instagram engage', version: 2, verified: false, minVersion: '300' };
  const evidence = [
    {
      where: 'like_button',
      match: 'id=row_feed_button_like',
      role: 'acts',
      verified: true,
      source: 'joeahkim/InstaAddict@3bad771 window.xml line 85 (desc Liked, selected true); fixture real/instagram/post-liked.xml',
      unverified: null,
    },
    {
      where: 'comments_open.or[0]',
      match: 'id=layout_comment_thread_edittext_multiline',
      role: 'acts',
      verified: false,
      source: 'public code found by a code search names this id',
      unverified: 'No citable source: no commit of GramAddict/bot holds this id.',
    },
    { where: 'dismiss[0]', match: 'text=Not now', role: 'marker', verified: false, source: null, unverified: 'A bot’s marker, not screen text.' },
  ];

  it('shows per selector whether it is verified and from where, and that the template is off unless the workspace opts in', async () => {
    api({
      'GET /api/recipes': { recipes: [], shipped: [template], breakers: [], settings: { tryUntestedTemplates: false } },
      'GET /api/recipes/shipped/instagram.engage': {
        ...template,
        body: {},
        evidence,
        heldBack: ['comments_open (id=layout_comment_thread_edittext_multiline)'],
      },
    });
    renderRoutes(routes, '/campaigns/recipes');
    const section = within(await screen.findByRole('region', { name: 'Recipes' }));
    const row = within(await section.findByRole('listitem', { name: 'Instagram engage template' }));
    fireEvent.click(row.getByRole('button', { name: 'Evidence' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Evidence: Instagram engage' }));
    const table = within(await dialog.findByRole('table', { name: 'Selector evidence' }));
    const like = within(table.getByRole('row', { name: 'like_button' }));
    expect(like.getByText('Verified')).toBeTruthy();
    expect(like.getByText(/joeahkim\/InstaAddict@3bad771 window.xml line 85/)).toBeTruthy();
    const renamed = within(table.getByRole('row', { name: 'comments_open.or[0]' }));
    expect(renamed.getByText('Unverified')).toBeTruthy();
    expect(renamed.getByText('No citable source: no commit of GramAddict/bot holds this id.')).toBeTruthy();
    const marker = within(table.getByRole('row', { name: 'dismiss[0]' }));
    expect(marker.getByText('marker')).toBeTruthy();
    expect(marker.getByText('No source given')).toBeTruthy();
    expect(dialog.getByText('Off unless you opt in')).toBeTruthy();
    expect(dialog.getByText(/comments_open \(id=layout_comment_thread_edittext_multiline\)/)).toBeTruthy();
  });
});

describe('Campaigns → Recipes: recipes that need a person', () => {
  const broken = { ...storedRecipe, id: 'r9', enabled: false, invalid: { field: 'steps.2.tap', reason: 'Required' } };
  const breaker = {
    id: 'b1',
    recipeId: 'instagram.post',
    recipeName: 'Instagram publish a post',
    platform: 'instagram',
    routines: ['create_post'],
    appPackage: 'com.instagram.android',
    appVersion: '451.0.0.1.1',
    paused: true,
    phones: 3,
    trippedAt: '2026-01-02T00:00:00.000Z',
    waitingTasks: 4,
  };

  it('shows a paused recipe with its two ways on, a stored recipe turned off with where it is wrong, and the untested-versions setting', async () => {
    const calls = api({
      'GET /api/recipes': { recipes: [broken], shipped: [], breakers: [breaker], settings: { tryUntestedTemplates: false } },
      'POST /api/recipes/breakers/b1/by-hand': { tasks: 4 },
      'POST /api/recipes/breakers/b1/resume': { ...breaker, paused: false, waitingTasks: 0 },
      'PUT /api/recipes/settings': { tryUntestedTemplates: true },
    });
    renderRoutes(routes, '/campaigns/recipes');
    const section = within(await screen.findByRole('region', { name: 'Recipes' }));
    const banner = within(await section.findByRole('status', { name: 'Recipe paused: Instagram publish a post on com.instagram.android 451.0.0.1.1' }));
    expect(banner.getByText(/It no longer matched the app on 3 phones, so its work on phones with this version waits \(4 tasks\)/)).toBeTruthy();
    fireEvent.click(banner.getByRole('button', { name: 'Send this work to VAs by hand' }));
    await vi.waitFor(() => expect(calls.some((call) => call.method === 'POST' && call.url === '/api/recipes/breakers/b1/by-hand')).toBe(true));
    fireEvent.click(banner.getByRole('button', { name: 'Turn it back on' }));
    await vi.waitFor(() => expect(calls.some((call) => call.method === 'POST' && call.url === '/api/recipes/breakers/b1/resume')).toBe(true));

    const row = within(await section.findByRole('listitem', { name: 'Instagram publish a post v3' }));
    expect(row.getByRole('alert').textContent).toBe('Turned off: this version of the console refuses it at steps.2.tap: Required. Mend it and add it again.');
    expect((row.getByRole('switch', { name: 'Sent to phones' }) as HTMLInputElement).disabled).toBe(true);

    fireEvent.click(section.getByRole('switch', { name: /Try shipped templates on app versions no one verified/ }));
    await vi.waitFor(() =>
      expect(calls.find((call) => call.url === '/api/recipes/settings')).toMatchObject({ method: 'PUT', body: { tryUntestedTemplates: true } }),
    );
  });
});

describe('Campaigns → Recipes: recipe health', () => {
  const row = {
    recipeId: 'instagram.post',
    recipeName: 'Instagram publish a post',
    platform: 'instagram',
    appPackage: 'com.instagram.android',
    appVersion: '360.0.0.52.192',
    runs: 4,
    succeeded: 3,
    failed: 1,
    successRate: 75,
    failureReasons: [{ code: 'element_missing', label: 'Element missing', count: 1 }],
    medianDurationMs: 45_000,
    phones: { count: 2, names: ['Pixel A', 'Pixel B'] },
    lastFailures: [
      {
        taskId: 't1',
        taskTitle: 'Publish a reel',
        deviceId: 'd1',
        deviceName: 'Pixel B',
        at: '2026-01-02T10:00:00.000Z',
        code: 'element_missing',
        message: 'Share: no element matched',
        recipeVersion: 1,
      },
    ],
    breaker: {
      state: 'resumed',
      breakerId: 'b1',
      trippedAt: '2026-01-01T09:00:00.000Z',
      phones: 3,
      resumedAt: '2026-01-01T12:00:00.000Z',
      resumedBy: { id: 'u1', name: 'Olga Operator' },
    },
  };
  const board = (range: string, recipes: unknown[]) => ({
    range,
    timeZone: 'UTC',
    from: '2026-01-01',
    to: '2026-01-07',
    recipes,
    uncovered: [
      {
        appPackage: 'com.instagram.android',
        appVersion: '200.0.0.1.1',
        platform: 'instagram',
        routines: ['create_post'],
        phones: { count: 1, names: ['Pixel Old'] },
        untestedAllowed: false,
      },
    ],
  });

  it('shows each recipe by app version with its failures, breaker and the uncovered versions, over the chosen range', async () => {
    const calls = api({
      'GET /api/recipes': { recipes: [], shipped: [], breakers: [], settings: { tryUntestedTemplates: false } },
      'GET /api/recipes/health?range=7d': board('7d', [row]),
      'GET /api/recipes/health?range=30d': board('30d', []),
    });
    renderRoutes(routes, '/campaigns/recipes');
    const section = within(await screen.findByRole('region', { name: 'Recipe health' }));
    const line = within(await section.findByRole('row', { name: 'Instagram publish a post on com.instagram.android 360.0.0.52.192' }));
    expect(line.getByText('75%')).toBeTruthy();
    expect(line.getByText('Element missing ×1')).toBeTruthy();
    expect(line.getByText('45 s')).toBeTruthy();
    expect(line.getByText('2: Pixel A, Pixel B')).toBeTruthy();
    expect(line.getByText('Turned back on')).toBeTruthy();
    expect(line.getByText(/by Olga Operator/)).toBeTruthy();
    fireEvent.click(line.getByRole('button', { name: 'Last failures (1)' }));
    expect(await section.findByText(/element_missing · recipe v1 · Share: no element matched/)).toBeTruthy();
    expect(section.getByText('com.instagram.android 200.0.0.1.1')).toBeTruthy();

    fireEvent.click(section.getByRole('radio', { name: '30 days' }));
    expect(await section.findByText('No recipe runs in this range yet')).toBeTruthy();
    expect(calls.some((call) => call.url === '/api/recipes/health?range=30d')).toBe(true);
  });
});

describe('Campaigns → Recipes for a VA', () => {
  it('is a tab of Campaigns showing the health board, without the recipes an operator manages', async () => {
    const calls = stubApi({
      'GET /api/recipes/health?range=7d': { range: '7d', timeZone: 'UTC', from: '2026-01-01', to: '2026-01-07', recipes: [], uncovered: [] },
    });
    renderScreen(<RecipesPage />, { path: '/campaigns/recipes', route: '/campaigns/recipes', role: 'va' });
    const tabs = within(await screen.findByRole('navigation', { name: 'Campaigns' }));
    expect(tabs.getByRole('link', { name: 'Recipes' }).getAttribute('aria-current')).toBe('page');
    expect(await screen.findByRole('region', { name: 'Recipe health' })).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Recipes' })).toBeNull();
    expect(calls.some((call) => call.url === '/api/recipes')).toBe(false);
  });
});
