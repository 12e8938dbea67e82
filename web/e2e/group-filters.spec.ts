/**
 * Group filters on the wall and in Analytics, at desktop and phone widths: an operator shows one group's phones on
 * the wall (kept in the address, following a phone that joins the group without a reload), and narrows Analytics'
 * stat cards and device table to the group. Screenshots go to e2e/screenshots/ to look at.
 */
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { choose, PASSWORD, unique, uniqueEmail } from './support/ui';

const json = { 'Content-Type': 'application/json' };

async function post<T>(request: APIRequestContext, url: string, data: unknown): Promise<T> {
  const answer = await request.post(url, { data, headers: json });
  expect(answer.status(), `${url}: ${await answer.text()}`).toBeLessThan(300);
  return (await answer.json()) as T;
}

/** The page does not scroll sideways (a phone-width layout that fits). */
async function fitsWidth(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(1);
}

for (const { label, viewport } of [
  { label: 'desktop', viewport: { width: 1280, height: 800 } },
  { label: 'phone', viewport: { width: 375, height: 812 } },
]) {
  test(`group filters: the wall and Analytics show one group's phones (${label})`, async ({ browser }) => {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await post(page.request, '/api/auth/signup', { name: 'Wally Walls', email: uniqueEmail('wally'), password: PASSWORD, role: 'operator' });
    const ids: string[] = [];
    for (const name of ['Rack A one', 'Rack A two', 'Rack B one']) ids.push((await post<{ id: string }>(page.request, '/api/devices', { name })).id);
    const groupName = unique('Rack A');
    const group = await post<{ id: string }>(page.request, '/api/groups', { name: groupName, deviceIds: [ids[0], ids[1]] });

    // The wall: every phone, then the group's.
    await page.goto('/monitor/wall');
    const tiles = page.getByRole('list', { name: 'Phones' }).getByRole('listitem');
    await expect(tiles).toHaveCount(3);
    await choose(page, 'Show the phones of', `${groupName} (2)`);
    await expect(tiles).toHaveCount(2);
    await expect(page.getByRole('button', { name: 'Open Rack B one full size' })).toHaveCount(0);
    // The counts say so where there is room for them (at phone width the title and the filter take the bar).
    if (label === 'desktop') await expect(page.getByText('2 phones', { exact: false }).first()).toBeVisible();
    expect(page.url()).toContain(`group=${group.id}`);
    await fitsWidth(page);
    await page.screenshot({ path: `e2e/screenshots/group-filter-wall-${label}.png` });

    // A phone joins the group: the wall shows it without a reload.
    await post(page.request, `/api/groups/${group.id}/devices`, { add: [ids[2]] });
    await expect(tiles).toHaveCount(3);
    await expect(page.getByRole('button', { name: 'Open Rack B one full size' })).toBeVisible();
    // And leaves it again; the filter survives a reload.
    await post(page.request, `/api/groups/${group.id}/devices`, { remove: [ids[2]] });
    await expect(tiles).toHaveCount(2);
    await page.reload();
    await expect(tiles).toHaveCount(2);
    await choose(page, 'Show the phones of', 'All phones');
    await expect(tiles).toHaveCount(3);

    // Analytics: the stat cards and the device table narrowed to the group.
    await page.goto('/analytics');
    const table = page.getByRole('table', { name: 'Device Performance' });
    await expect(table.getByRole('row')).toHaveCount(4);
    await choose(page, 'Filter by group', `${groupName} (2)`);
    await expect(table.getByRole('row')).toHaveCount(3);
    await expect(table.getByRole('cell', { name: 'Rack B one' })).toHaveCount(0);
    await expect(page.getByText(`count the 2 phones of ${groupName}`)).toBeVisible();
    expect(page.url()).toContain(`group=${group.id}`);
    await fitsWidth(page);
    await page.screenshot({ path: `e2e/screenshots/group-filter-analytics-${label}.png`, fullPage: true });
    await context.close();
  });
}
