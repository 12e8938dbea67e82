/**
 * Inspect in a real browser, at 1280 and 375 px: a simulated phone (the real agent on the simulated phone UI) is
 * inspected from its Live tab; the person picks the Instagram icon, sees its attributes and a selector marked unique,
 * saves the screen under a name, and checks the selector against the saved captures of that screen.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { PhoneAgent } from '@farm/agent-protocol';
import { DeviceBackend } from '@farm/agent-protocol/agent';
import { SimulatedPhoneUi } from '@farm/agent-protocol/simphone';
import { SCREENSHOT_DIR } from './support/screenshots';
import { expectToast, PASSWORD, unique, uniqueEmail } from './support/ui';

for (const width of [1280, 375]) {
  test(`inspect a phone's screen, find a unique selector, save and check it (${width} px)`, async ({ browser, baseURL }) => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const json = { 'Content-Type': 'application/json' };
    const signup = await page.request.post('/api/auth/signup', {
      data: { name: 'Ines Inspect', email: uniqueEmail('ines'), password: PASSWORD, role: 'operator' },
      headers: json,
    });
    expect(signup.status()).toBe(201);
    const name = unique('Pixel inspect');
    const device = (await (await page.request.post('/api/devices', { data: { name }, headers: json })).json()) as { id: string };
    const credential = (await (await page.request.post(`/api/devices/${device.id}/credentials`, { data: {}, headers: json })).json()) as { token: string };

    const ui = new SimulatedPhoneUi({ serial: `SIM-INSPECT-${width}`, width: 1080, height: 2400 });
    const backend = await new DeviceBackend(ui, { agentVersion: 'e2e/2', preflight: 'no-account' }).start();
    const agent = new PhoneAgent({ url: baseURL!, token: credential.token, backend, reconnectionDelayMs: 200 });
    try {
      await expect.poll(() => agent.connected, { timeout: 10_000 }).toBe(true);
      await page.goto('/devices');
      const card = page.getByRole('article', { name });
      await card.getByRole('button', { name: `Actions for ${name}` }).click();
      await page.getByRole('menuitem', { name: 'View Details' }).click();
      const details = page.getByRole('dialog', { name: `Device: ${name}` });
      await details.getByRole('tab', { name: 'Live' }).click();
      await expect(details.getByText(/^JPEG \(simulated\)$/)).toBeVisible({ timeout: 15_000 });

      await details.getByRole('button', { name: 'Inspect' }).click();
      const inspect = page.getByRole('dialog', { name: `Inspect: ${name}` });
      await expect(inspect.getByRole('img', { name: `Captured screen of ${name}` })).toBeVisible({ timeout: 15_000 });
      await inspect.getByRole('combobox', { name: 'Element' }).click();
      await page
        .getByRole('option', { name: /Instagram/ })
        .first()
        .click();
      const attributes = inspect.getByRole('table', { name: 'Attributes' });
      await expect(attributes).toContainText('Instagram');
      const selectors = inspect.getByLabel('Selectors');
      await expect(selectors.getByText('Unique', { exact: true }).first()).toBeVisible();
      await page.screenshot({ path: join(SCREENSHOT_DIR, `inspect-${width}.png`) });

      await inspect.getByRole('textbox', { name: 'Screen name' }).fill('Home screen');
      await inspect.getByRole('button', { name: 'Save capture' }).click();
      await expectToast(page, 'Capture saved');
      await selectors.getByRole('button', { name: 'Check saved captures' }).first().click();
      await expect(inspect.getByLabel('Saved captures of this screen').getByText('Finds it')).toBeVisible();
    } finally {
      agent.close();
      await backend.close();
      await context.close();
    }
  });
}
