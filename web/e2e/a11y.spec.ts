/**
 * Accessibility: axe on every screen, as a visitor for the public pages and as an operator with a seeded farm
 * for the console. Every rule runs in the default dark theme; the colour rules run again in the light theme.
 * No serious or critical violation is allowed. The screens are swept on one page, which moves from screen to screen
 * inside the console (support/sweep.ts).
 */
import { expect } from '@playwright/test';
import { COLOUR_RULES, expectNoSeriousViolations } from './support/axe';
import { publicScreens, shellScreens, type Screen } from './support/pages';
import { test } from './support/seed';
import { openSweepPage, type SweepPage } from './support/sweep';
import { setScheme } from './support/ui';

let sweep: SweepPage;
test.beforeAll(async ({ browser, farm }, testInfo) => {
  sweep = await openSweepPage(browser, farm, testInfo, { viewport: { width: 1280, height: 800 } });
});
test.afterAll(async () => {
  await sweep?.close();
});

function checkScreen(screen: Screen): void {
  test(`${screen.name} has no serious or critical axe violations`, async ({ farm }) => {
    const { page } = sweep;
    await sweep.open(screen.path(farm), { signedIn: screen.shell });
    // Every rule in the dark theme, which a screen left in light by the one before is put back in.
    await setScheme(page, 'dark', { withToggle: screen.shell });
    await screen.ready(page, farm);
    await expectNoSeriousViolations(page, `${screen.name} (dark)`);
    // Landing, login and signup are always dark.
    if (!screen.shell && screen.name !== 'not-found') return;
    await setScheme(page, 'light', { withToggle: screen.shell });
    await screen.ready(page, farm);
    await expectNoSeriousViolations(page, `${screen.name} (light)`, COLOUR_RULES);
  });
}

test.describe('signed out', () => {
  for (const screen of publicScreens) checkScreen(screen);
});

test.describe('signed in as an operator', () => {
  for (const screen of shellScreens) checkScreen(screen);
});

test.describe('with a toast on screen', () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test('a toast has no serious or critical axe violations', async ({ page }) => {
    await page.goto('/signup');
    await page.getByLabel('Full Name').fill('Toast Reader');
    await page.getByLabel('Email').fill('toast.reader@e2e.test');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('long-enough-password');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await expect(page.getByRole('alert').getByText('Role required', { exact: true })).toBeVisible();
    await expectNoSeriousViolations(page, 'signup with the Role required toast');
  });
});
