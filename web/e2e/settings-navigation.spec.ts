/**
 * Settings' own navigation, at 1280 px (a column beside the part) and 375 px (a row of links above it): an operator
 * opens /settings and lands on Profile, each part's address opens its section alone, a click in the nav moves to the
 * next part, and the old one-page links (`/settings#…-title`) land on the new place, the app library and the recipes
 * included (Devices → Apps, Campaigns → Recipes). A VA sees a VA's parts only, reads 'Page Not Found' at an
 * operator's part and at Devices → Apps, reads the recipe health board under Campaigns and opens a draft recipe they
 * saved in the recipe editor, whose link leads back to Campaigns → Recipes. Screenshots in test-results.
 */
import { expect, type Page } from '@playwright/test';
import { expectNoSeriousViolations } from './support/axe';
import { test } from './support/seed';
import { openInConsole, PASSWORD } from './support/ui';

/** Every part of Settings an operator has, with its section's name. */
const parts = [
  ['profile', 'Profile'],
  ['two-factor', 'Two-factor sign-in'],
  ['sessions', 'Sessions'],
  ['workspace', 'Workspace'],
  ['members', 'Members'],
  ['invitations', 'Invitations'],
  ['hosts', 'Phone hosts'],
  ['wall-links', 'Wall screens'],
  ['storage', 'Storage'],
  ['notifications', 'Notifications'],
  ['alerts', 'Alerts'],
  ['audit-log', 'Audit log'],
] as const;

const vaParts = ['Profile', 'Two-factor sign-in', 'Sessions', 'Workspace', 'Members', 'Notifications'];

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: true });
}

for (const width of [1280, 375]) {
  test.describe(`${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test('an operator opens each part at its own address, and old links land on the new place', async ({ page }) => {
      test.setTimeout(240_000);
      await page.goto('/settings');
      await expect(page).toHaveURL(/\/settings\/profile$/);
      const nav = page.getByRole('navigation', { name: 'Settings' });
      await expect(nav.getByRole('link')).toHaveText(parts.map(([, label]) => label));
      await expect(nav.getByRole('link', { name: 'Profile' })).toHaveAttribute('aria-current', 'page');
      await shoot(page, `operator-profile-${width}`);

      // Each address in turn inside the console (the router resolves it as on a full load; the first load was above).
      for (const [slug, region] of parts) {
        await openInConsole(page, `/settings/${slug}`);
        await expect(page.getByRole('region', { name: region, exact: true })).toBeVisible();
        if (slug !== 'profile') await expect(page.getByRole('region', { name: 'Profile', exact: true })).toHaveCount(0);
        await expect(nav.getByRole('link', { name: region, exact: true })).toHaveAttribute('aria-current', 'page');
      }
      await shoot(page, `operator-audit-log-${width}`);
      await expectNoSeriousViolations(page, `settings, audit log (${width} px)`);

      await nav.getByRole('link', { name: 'Phone hosts' }).click();
      await expect(page).toHaveURL(/\/settings\/hosts$/);
      await expect(page.getByRole('region', { name: 'Phone hosts' })).toBeVisible();

      const moved = [
        ['invitations-title', /\/settings\/invitations$/, 'Invitations'],
        ['retention-title', /\/settings\/workspace$/, 'Workspace'],
        ['audit-title', /\/settings\/audit-log$/, 'Audit log'],
        ['apps-title', /\/devices\/apps$/, 'Apps'],
        ['recipes-title', /\/campaigns\/recipes$/, 'Recipes'],
        ['recipe-health-title', /\/campaigns\/recipes$/, 'Recipe health'],
      ] as const;
      for (const [anchor, url, region] of moved) {
        await openInConsole(page, `/settings#${anchor}`);
        await expect(page).toHaveURL(url);
        await expect(page.getByRole('region', { name: region, exact: true })).toBeVisible();
      }
      // Recipes are a tab of Campaigns, apps one of Devices; the sidebar stays as it is.
      await expect(page.getByRole('navigation', { name: 'Campaigns' }).getByRole('link', { name: 'Recipes' })).toHaveAttribute('aria-current', 'page');
      await shoot(page, `operator-campaigns-recipes-${width}`);
      await page.getByRole('navigation', { name: 'Campaigns' }).getByRole('link', { name: 'Campaigns' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Campaign Engine' })).toBeVisible();
      await openInConsole(page, '/devices');
      await page.getByRole('navigation', { name: 'Devices' }).getByRole('link', { name: 'Apps' }).click();
      await expect(page).toHaveURL(/\/devices\/apps$/);
      await expect(page.getByRole('region', { name: 'Apps', exact: true })).toBeVisible();
      await shoot(page, `operator-devices-apps-${width}`);
    });

    test('a VA sees the parts a VA may, and reaches a draft they saved', async ({ browser, farm, page }) => {
      test.setTimeout(120_000);
      const shipped = await page.request.get('/api/recipes/shipped/instagram.post');
      expect(shipped.status(), await shipped.text()).toBe(200);
      const template = (await shipped.json()) as { body: Record<string, unknown> };
      // A context of the VA's own: signing in from the operator's would end the operator's session.
      const context = await browser.newContext({ viewport: { width, height: 900 }, storageState: { cookies: [], origins: [] } });
      try {
        const va = await context.newPage();
        const login = await va.request.post('/api/auth/login', { data: { email: farm.va.email, password: PASSWORD } });
        expect(login.status()).toBe(200);
        // A draft the VA saved (as Record saves one): the shipped post template, turned off.
        const saved = await va.request.post('/api/recipes', {
          data: { recipe: { ...template.body, name: `VA draft ${width}`, version: 100 + width }, enabled: false },
        });
        expect(saved.status(), await saved.text()).toBe(201);
        const draft = (await saved.json()) as { id: string; name: string };

        await va.goto('/settings');
        await expect(va).toHaveURL(/\/settings\/profile$/);
        await expect(va.getByRole('navigation', { name: 'Settings' }).getByRole('link')).toHaveText(vaParts);
        await shoot(va, `va-profile-${width}`);
        await openInConsole(va, '/settings/invitations');
        await expect(va.getByRole('heading', { level: 1, name: 'Page Not Found' })).toBeVisible();
        await openInConsole(va, '/settings#audit-title');
        await expect(va).toHaveURL(/\/settings\/audit-log$/);
        await expect(va.getByRole('heading', { level: 1, name: 'Page Not Found' })).toBeVisible();
        await openInConsole(va, '/devices/apps');
        await expect(va.getByRole('heading', { level: 1, name: 'Page Not Found' })).toBeVisible();

        await openInConsole(va, '/campaigns/recipes');
        await expect(va.getByRole('region', { name: 'Recipe health', exact: true })).toBeVisible();
        await expect(va.getByRole('region', { name: 'Recipes', exact: true })).toHaveCount(0);

        await openInConsole(va, `/recipes/${draft.id}`);
        await expect(va.getByRole('heading', { level: 1, name: draft.name })).toBeVisible();
        await expect(va.getByText('Off (draft)')).toBeVisible();
        await shoot(va, `va-draft-${width}`);
        await va.getByRole('link', { name: 'Campaigns → Recipes' }).click();
        await expect(va).toHaveURL(/\/campaigns\/recipes$/);
      } finally {
        await context.close();
      }
    });
  });
}
