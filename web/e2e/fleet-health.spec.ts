/**
 * Settings → Phone hosts → Fleet Health in Chromium, on a desktop (1280 px) and a phone (375 px): an operator opens a
 * host's fleet panel, is told of a bad hub location by the form, turns on the nightly restart and saves.
 */
import { request as playwrightRequest, type APIRequestContext } from '@playwright/test';
import { expectNoSeriousViolations } from './support/axe';
import { expect, test } from './support/seed';
import { expectToast } from './support/ui';

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 375, height: 812 },
]) {
  test.describe(`fleet health at ${viewport.width} px`, () => {
    test.use({ viewport });

    test('edits a host’s fleet settings', async ({ page, farm }) => {
      const api: APIRequestContext = await playwrightRequest.newContext({ baseURL: process.env.E2E_BASE_URL, storageState: farm.storageState });
      const name = `Rack ${viewport.width}`;
      const created = await api.fetch('/api/hosts', { method: 'POST', data: { name }, headers: { 'Content-Type': 'application/json' } });
      expect(created.status()).toBe(201);
      const hostId = ((await created.json()) as { host: { id: string } }).host.id;

      await page.goto('/settings/hosts');
      const host = page.getByRole('listitem', { name });
      await host.getByRole('button', { name: 'Fleet Health' }).click();
      const form = page.getByRole('form', { name: `Fleet settings of ${name}` });
      await expect(form).toBeVisible();
      await expect(page.getByText('No phones on this host yet.').first()).toBeVisible();

      await form.getByRole('textbox', { name: /Hub location/ }).fill('not a hub');
      await form.getByRole('button', { name: 'Save Fleet Settings' }).click();
      await expect(form.getByText('a hub location such as 1, 1-2 or 1-2.4')).toBeVisible();

      await form.getByRole('textbox', { name: /Hub location/ }).fill('1-2');
      await form.getByRole('switch', { name: 'Restart phones each night' }).check({ force: true });
      await form.getByRole('button', { name: 'Save Fleet Settings' }).click();
      await expectToast(page, 'Fleet Settings Saved');
      await expectNoSeriousViolations(page, `fleet health (${viewport.width} px)`);

      const saved = (await (await api.fetch(`/api/hosts/${hostId}/fleet`)).json()) as {
        settings: { uhubctl: { hubLocation: string }; scheduledRestart: { enabled: boolean } };
      };
      expect(saved.settings.uhubctl.hubLocation).toBe('1-2');
      expect(saved.settings.scheduledRestart.enabled).toBe(true);
      // Nothing spills sideways on a phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
      await api.dispose();
    });
  });
}
