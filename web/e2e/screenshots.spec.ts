/**
 * Screenshots of every screen in the dark and the light theme at 1280×800 and on a 375×812 phone, into
 * e2e/screenshots/ (the run prints the folder at the end). Each one also checks that the page does not
 * scroll sideways. Landing, login and signup must stay dark whatever the stored theme. The sweep runs once per
 * size, on one page that moves from screen to screen inside the console (support/sweep.ts).
 */
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { allScreens, type Screen } from './support/pages';
import { SCREENSHOT_DIR } from './support/screenshots';
import { expect, test, type SeededFarm } from './support/seed';
import { openSweepPage, type SweepPage } from './support/sweep';
import { setScheme, type Scheme } from './support/ui';

const sizes = [
  { viewport: { width: 1280, height: 800 }, phone: false },
  { viewport: { width: 375, height: 812 }, phone: true },
] as const;

const schemes: readonly Scheme[] = ['dark', 'light'];
const forcedDark = new Set(['landing', 'login', 'signup']);

for (const size of sizes) {
  test.describe(`${size.viewport.width}x${size.viewport.height}`, () => {
    let sweep: SweepPage;
    test.beforeAll(async ({ browser, farm }, testInfo) => {
      sweep = await openSweepPage(browser, farm, testInfo, { viewport: size.viewport, isMobile: size.phone, hasTouch: size.phone });
    });
    test.afterAll(async () => {
      await sweep?.close();
    });

    for (const screen of allScreens) {
      test(`${screen.name}`, async ({ farm }) => {
        const { page } = sweep;
        await sweep.open(screen.path(farm), { signedIn: screen.shell });
        await screen.ready(page, farm);
        for (const scheme of schemes) {
          await shoot(page, screen, scheme, size.viewport, farm);
        }
      });
    }
  });
}
async function shoot(page: Page, screen: Screen, scheme: Scheme, viewport: { width: number; height: number }, farm: SeededFarm): Promise<void> {
  await setScheme(page, scheme, { withToggle: screen.shell });
  await screen.ready(page, farm);
  const shown = forcedDark.has(screen.name) ? 'dark' : scheme;
  await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', shown);

  const width = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
  }));
  expect.soft(width.scroll, `${screen.name} (${scheme}, ${viewport.width}px) scrolls sideways`).toBeLessThanOrEqual(width.inner);

  await page.screenshot({
    path: join(SCREENSHOT_DIR, `${screen.name}-${viewport.width}x${viewport.height}-${scheme}.png`),
    fullPage: true,
    animations: 'disabled',
  });
}
