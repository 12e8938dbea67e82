/**
 * What a new user sees after `pnpm start`: the demo farm alive. A server of this spec's own, with demo data and its
 * simulated phones (real agents on real sockets), as the README's start command runs it.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { freePort, startApi, type RunningApi } from './support/server';

const logFile = fileURLToPath(new URL('../test-results/e2e-demo-api.log', import.meta.url));

test.describe('the demo farm', () => {
  let api: RunningApi;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    api = await startApi({ port: await freePort(), logFile, env: { DEMO: '1' } });
  });
  test.afterAll(async () => {
    await api?.stop();
  });

  /** The screenshots' addresses in these images now. */
  const sources = (images: Locator) => images.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('src') ?? ''));

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${api.baseURL}/login`);
    await page.getByLabel('Email').fill('operator@demo.farm');
    await page.getByRole('textbox', { name: 'Password' }).fill('demo-operator');
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  }

  test('shows phones online with screenshots that change, on the wall and in the Live Monitor', async ({ page }) => {
    test.setTimeout(150_000);
    await signIn(page);

    // The wall: most phones connected by their agents, a few never were; every connected one sends its screen.
    await page.goto(`${api.baseURL}/monitor/wall`);
    const tiles = page.getByRole('article');
    await expect(tiles).toHaveCount(24);
    const connected = tiles.filter({ hasText: /Online|Busy|Idle/ });
    await expect.poll(() => connected.count(), { timeout: 60_000, message: 'phones reported by their agents' }).toBeGreaterThanOrEqual(15);
    await expect(tiles.filter({ hasText: 'Offline' }).first()).toBeVisible();
    const screens = page.getByRole('img', { name: /^Latest screenshot of / });
    await expect.poll(() => screens.count(), { timeout: 45_000, message: 'tiles with a screenshot' }).toBeGreaterThanOrEqual(15);
    const before = await sources(screens);
    const connectedNames = new Set(await connected.evaluateAll((nodes) => nodes.map((node) => (node.getAttribute('aria-label') ?? '').split(':')[0]!)));
    await expect
      .poll(
        async () => {
          const now = await sources(screens);
          return now.filter((source, index) => before[index] !== undefined && source !== before[index]).length;
        },
        { timeout: 45_000, intervals: [1000], message: 'tiles whose screenshot changed' },
      )
      .toBeGreaterThanOrEqual(5);
    // A phone's screen is a rendered phone screen: the status bar and the app, not a flat colour.
    const shot = await page.request.get(new URL((await sources(screens))[0]!, api.baseURL).toString());
    expect(shot.headers()['content-type']).toBe('image/jpeg');
    expect((await shot.body()).byteLength).toBeGreaterThan(5_000);
    await page.screenshot({ path: join(fileURLToPath(new URL('../test-results/', import.meta.url)), 'demo-wall.png') });

    // The Live Monitor: a session on a connected phone shows its screenshots, and a new one arrives while looking.
    await page.goto(`${api.baseURL}/monitor`);
    await expect(page.getByRole('heading', { level: 1, name: 'Live Monitor' })).toBeVisible();
    const sessions = page.getByRole('listitem', { name: /^Session on / });
    await expect(sessions.first()).toBeVisible();
    const names = await sessions.evaluateAll((nodes) => nodes.map((node) => (node.getAttribute('aria-label') ?? '').replace('Session on ', '')));
    const feedOn = names.find((name) => connectedNames.has(name));
    expect(feedOn, `a session on one of the connected phones (${[...connectedNames].join(', ')})`).toBeDefined();
    if (!feedOn) return;
    await sessions.filter({ hasText: feedOn }).getByRole('button', { name: 'View Feed' }).click();
    const feed = page.getByRole('dialog');
    const feedImages = feed.getByRole('img', { name: new RegExp(`^${feedOn.replace(/[#.*+?^${}()|[\]\\]/g, '\\$&')} at `) });
    await expect.poll(() => feedImages.count(), { timeout: 45_000, message: `screenshots of ${feedOn}` }).toBeGreaterThanOrEqual(1);
    const first = (await sources(feedImages))[0];
    await expect
      .poll(async () => (await sources(feedImages))[0], { timeout: 45_000, intervals: [1000], message: `a new screenshot of ${feedOn}` })
      .not.toBe(first);
  });
});
