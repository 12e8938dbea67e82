/**
 * Inspect in a real browser, at 1280 and 375 px: a simulated phone (the real agent on the simulated phone UI) is
 * inspected from its Live tab; the person picks the Instagram icon, sees its attributes and a selector marked unique,
 * saves the screen under a name, and checks the selector against the saved captures of that screen.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openLiveTab, operatorWithPhone, simulatedAgent } from './support/live';
import { SCREENSHOT_DIR } from './support/screenshots';
import { expectToast } from './support/ui';

for (const width of [1280, 375]) {
  test(`inspect a phone's screen, find a unique selector, save and check it (${width} px)`, async ({ browser, baseURL }) => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const { name, token } = await operatorWithPhone(page, 'Ines Inspect', 'Pixel inspect');
    const { stop } = await simulatedAgent(baseURL!, token, `SIM-INSPECT-${width}`, { preflight: 'no-account' });
    try {
      const details = await openLiveTab(page, name);
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
      await stop();
      await context.close();
    }
  });
}
