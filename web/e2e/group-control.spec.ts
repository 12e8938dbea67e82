/**
 * Group control at 1280 and 375 px: an operator with three simulated phones (the real agent on each) selects them on
 * Devices, opens Group control from the bulk bar, presses Home, sees the action's summary line and a result for each
 * phone, drops one (it moves to Dropped) and stops all (every phone handed back). axe on the page at each width.
 */
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { expectNoSeriousViolations } from './support/axe';
import { json } from './support/fake-phone';
import { simulatedAgent } from './support/live';
import { SCREENSHOT_DIR } from './support/screenshots';
import { PASSWORD, unique, uniqueEmail } from './support/ui';

/** An operator signed up in the page's context, with three phones and their agent credentials. */
async function operatorWithPhones(page: Page, count: number): Promise<{ name: string; token: string }[]> {
  const signup = await page.request.post('/api/auth/signup', {
    data: { name: 'Gita Group', email: uniqueEmail('gita'), password: PASSWORD, role: 'operator' },
    headers: json,
  });
  expect(signup.status()).toBe(201);
  const phones: { name: string; token: string }[] = [];
  for (let index = 0; index < count; index += 1) {
    const name = unique(`Pixel group ${index + 1}`);
    const created = await page.request.post('/api/devices', { data: { name }, headers: json });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const issued = await page.request.post(`/api/devices/${id}/credentials`, { data: {}, headers: json });
    expect(issued.status()).toBe(201);
    phones.push({ name, token: ((await issued.json()) as { token: string }).token });
  }
  return phones;
}

for (const { label, viewport } of [
  { label: 'desktop', viewport: { width: 1280, height: 800 } },
  { label: 'phone', viewport: { width: 375, height: 812 } },
]) {
  test(`group control: three phones from the bulk bar, Home, drop one, stop all (${label})`, async ({ browser, baseURL }) => {
    // Three live pictures and axe three times on a shared two-core machine: minutes, not seconds.
    test.setTimeout(180_000);
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const phones = await operatorWithPhones(page, 3);
    const agents = [];
    try {
      for (const [index, phone] of phones.entries()) agents.push(await simulatedAgent(baseURL!, phone.token, `SIM-E2E-GROUP-${label}-${index}`));
      const [first, second, third] = phones.map((phone) => phone.name) as [string, string, string];

      await page.goto('/devices');
      // The list can take a while on a loaded machine (three agents streaming): wait for the phones before choosing.
      await expect(page.getByRole('checkbox', { name: `Select ${third}` })).toBeVisible({ timeout: 30_000 });
      for (const name of [first, second, third]) await page.getByRole('checkbox', { name: `Select ${name}` }).click();
      await page.getByRole('region', { name: 'Bulk actions' }).getByRole('button', { name: 'Group control' }).click();

      await expect(page.getByRole('heading', { level: 1, name: 'Group control' })).toBeVisible();
      await expect(page).toHaveURL(/\/devices\/group-control\?ids=/);
      await expect(page.getByText('Drive phones together for setup and navigation', { exact: false })).toBeVisible();
      await expect(page.getByRole('img', { name: /^Live screen of / }).first()).toBeVisible();
      await expectNoSeriousViolations(page, `group control opening (${label})`);
      await expect(page.getByText('3 of 3 phones held')).toBeVisible({ timeout: 15_000 });
      await expect(page.getByRole('heading', { level: 2, name: first })).toBeVisible();
      const followers = page.getByRole('article');
      await expect(followers).toHaveCount(2);

      // Home on every phone: one summary line, and a result on the leader and each follower.
      await page.getByRole('group', { name: 'Phone buttons' }).getByRole('button', { name: 'Home' }).click();
      const lines = page.getByRole('list', { name: 'Actions, newest first' }).getByRole('listitem');
      await expect(lines).toHaveCount(1, { timeout: 15_000 });
      await expect(lines.first()).toContainText(/Home/i);
      const leader = page.getByRole('region', { name: first });
      await expect(leader.getByText(/^(Done|Not found|Different screen|Refused|Busy|Offline|Not supported|\d+ matches)/).first()).toBeVisible();
      for (const name of [second, third]) {
        await expect(
          page.getByRole('article', { name }).getByText(/^(Done|Not found|Different screen|Refused|Busy|Offline|Not supported|\d+ matches)/),
        ).toBeVisible();
      }
      // The page's decoding load, measured: every picture on screen is drawn (the phone-width list draws the leader only).
      const load = page.getByText(/\d+ pictures a second over \d+ on screen/);
      await expect(load).toHaveText(new RegExp(`over ${label === 'desktop' ? 3 : 1} on screen`));
      test.info().annotations.push({ type: 'drawing load', description: (await load.textContent()) ?? '' });
      await page.screenshot({ path: join(SCREENSHOT_DIR, `group-control-${label}.png`), fullPage: true });
      await expectNoSeriousViolations(page, `group control (${label})`);

      // Drop the third phone: it leaves the grid for Dropped, with Add back.
      await page.getByRole('button', { name: `Drop ${third}` }).click();
      await expect(page.getByRole('article', { name: third })).toBeHidden();
      const dropped = page.getByRole('region', { name: 'Dropped' });
      await expect(dropped.getByText(third)).toBeVisible();
      await expect(dropped.getByRole('button', { name: `Add back: ${third}` })).toBeVisible();

      // Stop all: every phone handed back.
      await page.getByRole('button', { name: 'Stop all' }).click();
      await expect(page.getByText('Group control stopped')).toBeVisible();
      await expect(page.getByText('Every phone was handed back; their tasks run again.')).toBeVisible();
      await expectNoSeriousViolations(page, `group control stopped (${label})`);
    } finally {
      for (const agent of agents) await agent.stop();
      await context.close();
    }
  });
}
