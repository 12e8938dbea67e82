/**
 * Settings in bulk from Devices, at desktop and phone widths: an operator selects two phones, opens Settings in the
 * bulk bar, is told in a sentence when nothing is chosen, turns Wi-Fi off and sees what came of it on each phone (here
 * phones with agents of their own, which settings through a farm host do not reach). Screenshots in e2e/screenshots/.
 */
import { expect, test, type APIRequestContext } from '@playwright/test';
import { choose, dialog, PASSWORD, uniqueEmail } from './support/ui';

const json = { 'Content-Type': 'application/json' };

async function post<T>(request: APIRequestContext, url: string, data: unknown): Promise<T> {
  const answer = await request.post(url, { data, headers: json });
  expect(answer.status(), `${url}: ${await answer.text()}`).toBeLessThan(300);
  return (await answer.json()) as T;
}

for (const { label, viewport } of [
  { label: 'desktop', viewport: { width: 1280, height: 800 } },
  { label: 'phone', viewport: { width: 375, height: 812 } },
]) {
  test(`settings in bulk: chosen phones, a result per phone (${label})`, async ({ browser }) => {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await post(page.request, '/api/auth/signup', { name: 'Sid Settings', email: uniqueEmail('sid'), password: PASSWORD, role: 'operator' });
    for (const name of ['Shelf Pixel 1', 'Shelf Pixel 2']) await post(page.request, '/api/devices', { name });

    await page.goto('/devices');
    await page.getByRole('checkbox', { name: 'Select Shelf Pixel 1' }).click();
    await page.getByRole('checkbox', { name: 'Select Shelf Pixel 2' }).click();
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = dialog(page, 'Phone settings');
    await expect(settings.getByText('2 selected phones')).toBeVisible();
    await settings.getByRole('button', { name: 'Apply settings' }).click();
    await expect(settings.getByText('Choose at least one setting')).toBeVisible();

    await choose(settings, 'Wi-Fi', 'Off');
    await page.screenshot({ path: `e2e/screenshots/phone-settings-form-${label}.png` });
    await settings.getByRole('button', { name: 'Apply settings' }).click();
    const table = settings.getByRole('table', { name: 'Settings per phone' });
    await expect(table.getByRole('row')).toHaveCount(3);
    await expect(table.getByText('Settings reach phones through a farm host; this phone has an agent of its own.')).toHaveCount(2);
    await page.screenshot({ path: `e2e/screenshots/phone-settings-result-${label}.png` });
    await settings.getByRole('button', { name: 'Done' }).click();
    await expect(settings).toBeHidden();
    await context.close();
  });
}
