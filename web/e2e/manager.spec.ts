/**
 * The manager's console as a person uses it, on a desktop (1280 px) and a phone (375 px): reschedule a post by
 * dragging it on the calendar, assign many tasks at once, download a CSV export, preview a CSV import, and
 * filter the audit log. Each screen is checked with axe on the way.
 */
import { readFile } from 'node:fs/promises';
import { expect, request as playwrightRequest, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { expectNoSeriousViolations } from './support/axe';
import { choose, expectToast, PASSWORD, uniqueEmail } from './support/ui';

interface WithId {
  id: string;
}

interface Farm {
  api: APIRequestContext;
  storageState: Awaited<ReturnType<APIRequestContext['storageState']>>;
  vaName: string;
  postId: string;
  postDay: string;
  taskIds: string[];
}

const DAY = 24 * 3600_000;

async function send<T>(api: APIRequestContext, method: 'POST' | 'PATCH' | 'GET', url: string, data?: unknown): Promise<T> {
  const response = await api.fetch(url, { method, ...(data === undefined ? {} : { data, headers: { 'Content-Type': 'application/json' } }) });
  expect(response.ok(), `${method} ${url} answered ${response.status()}: ${await response.text()}`).toBe(true);
  return (await response.json()) as T;
}

/** A fresh operator with a VA, a phone, three tasks, an active account and a post scheduled on a Tuesday ahead at 10:00 UTC. */
async function seed(baseURL: string): Promise<Farm> {
  const api = await playwrightRequest.newContext({ baseURL });
  const vaApi = await playwrightRequest.newContext({ baseURL });
  await send(api, 'POST', '/api/auth/signup', { name: 'Mona Manager', email: uniqueEmail('mona'), password: PASSWORD, role: 'operator', timeZone: 'UTC' });
  const { invitation } = await send<{ invitation: { token: string } }>(api, 'POST', '/api/invitations', { role: 'va' });
  const vaName = 'Vic Bulk';
  await send(vaApi, 'POST', '/api/auth/signup', { name: vaName, email: uniqueEmail('vic'), password: PASSWORD, role: 'va', inviteToken: invitation.token });
  await vaApi.dispose();
  const device = await send<WithId>(api, 'POST', '/api/devices', { name: 'Pixel 8 - Shelf 1' });
  const taskIds: string[] = [];
  for (const title of ['Like ten reels', 'Reply to comments', 'Follow five coaches']) {
    taskIds.push((await send<WithId>(api, 'POST', '/api/tasks', { title, type: 'engage', priority: 'medium', deviceId: device.id })).id);
  }
  const account = await send<WithId>(api, 'POST', '/api/accounts', { username: 'shelf_one', platform: 'instagram', deviceId: device.id });
  await send(api, 'PATCH', `/api/accounts/${account.id}`, { status: 'active' });
  // A Tuesday, so that it and the day after sit side by side in one week of the month (on a phone the grid shows
  // Monday to Thursday before it scrolls) and the week view of either day shows both.
  let day = Math.floor(Date.now() / DAY) * DAY + 2 * DAY;
  while (new Date(day).getUTCDay() !== 2) day += DAY;
  const at = new Date(day + 10 * 3600_000);
  const post = await send<WithId>(api, 'POST', '/api/posts', {
    accountId: account.id,
    caption: 'Drag me to tomorrow',
    status: 'scheduled',
    scheduledAt: at.toISOString(),
  });
  return { api, storageState: await api.storageState(), vaName, postId: post.id, postDay: at.toISOString().slice(0, 10), taskIds };
}

const viewports = [
  { label: 'desktop', viewport: { width: 1280, height: 800 } },
  { label: 'phone', viewport: { width: 375, height: 812 } },
] as const;

async function openAs(browser: Browser, farm: Farm, viewport: { width: number; height: number }, path: string): Promise<Page> {
  const context = await browser.newContext({
    storageState: farm.storageState,
    viewport,
    baseURL: process.env.E2E_BASE_URL,
    timezoneId: 'UTC',
    locale: 'en-US',
  });
  const page = await context.newPage();
  await page.goto(path);
  return page;
}

for (const { label, viewport } of viewports) {
  test.describe(`the manager's console on a ${label}`, () => {
    let farm: Farm;
    test.beforeAll(async () => {
      farm = await seed(process.env.E2E_BASE_URL!);
    });
    test.afterAll(async () => {
      await farm.api.dispose();
    });

    test('drags a post on the calendar to the next day to reschedule it', async ({ browser }) => {
      const page = await openAs(browser, farm, viewport, `/content/calendar?date=${farm.postDay}`);
      await expect(page.getByRole('heading', { level: 1, name: 'Content Calendar' })).toBeVisible();
      const chip = page.locator(`[data-post-id="${farm.postId}"]`);
      await expect(chip).toBeVisible();
      await expect(page.locator(`[data-drop="${farm.postDay}"]`).locator(`[data-post-id="${farm.postId}"]`)).toBeVisible();
      await expectNoSeriousViolations(page, `calendar (${label})`);

      const nextDay = new Date(Date.parse(`${farm.postDay}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
      // A person's drag: press on the post, move over the next day, let go.
      const target = page.locator(`[data-drop="${nextDay}"]`);
      await target.scrollIntoViewIfNeeded();
      const from = (await chip.boundingBox())!;
      const to = (await target.boundingBox())!;
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(to.x + to.width / 2, to.y + to.height - 12, { steps: 12 });
      await page.mouse.up();
      await expectToast(page, 'Post Rescheduled');
      await expect(page.locator(`[data-drop="${nextDay}"]`).locator(`[data-post-id="${farm.postId}"]`)).toBeVisible();
      const moved = await send<{ scheduledAt: string }>(farm.api, 'GET', `/api/posts/${farm.postId}`);
      expect(moved.scheduledAt).toBe(`${nextDay}T10:00:00.000Z`);
      farm.postDay = nextDay;

      // The week view places it at its hour.
      await page.getByText('Week', { exact: true }).click();
      await expect(page.locator(`[data-drop="${nextDay}T10"]`).locator(`[data-post-id="${farm.postId}"]`)).toBeVisible();
      await page.context().close();
    });

    test('selects tasks with a shift-click and assigns them to a VA in one go', async ({ browser }) => {
      const page = await openAs(browser, farm, viewport, '/tasks');
      await expect(page.getByRole('article', { name: 'Like ten reels' })).toBeVisible();
      await page.getByRole('checkbox', { name: 'Select Follow five coaches' }).click();
      await page.getByRole('checkbox', { name: 'Select Like ten reels' }).click({ modifiers: ['Shift'] });
      const bar = page.getByRole('region', { name: 'Bulk actions' });
      await expect(bar.getByText('3 selected')).toBeVisible();
      await expectNoSeriousViolations(page, `tasks with a selection (${label})`);
      await bar.getByRole('button', { name: 'Assign VA' }).click();
      await page.getByRole('menuitem', { name: farm.vaName }).click();
      await expectToast(page, 'Tasks Updated', `3 tasks assigned to ${farm.vaName}.`);
      for (const id of farm.taskIds) {
        const task = await send<{ assignedToId: string | null }>(farm.api, 'GET', `/api/tasks/${id}`);
        expect(task.assignedToId).not.toBeNull();
      }
      await expect(page.getByRole('article', { name: 'Reply to comments' }).getByText(farm.vaName)).toBeVisible();
      await page.context().close();
    });

    test('downloads the task list as CSV with its filters', async ({ browser }) => {
      const page = await openAs(browser, farm, viewport, '/tasks?search=Reply');
      await expect(page.getByRole('article', { name: 'Reply to comments' })).toBeVisible();
      await expect(page.getByRole('article', { name: 'Like ten reels' })).toHaveCount(0);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^tasks-\d{4}-\d{2}-\d{2}\.csv$/);
      const text = await readFile((await download.path())!, 'utf8');
      const lines = text.trim().split('\r\n');
      expect(lines[0]).toBe('ID,Title,Description,Type,Priority,Status,Device,Assigned To,Deadline,Started At,Completed At,Created At');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain(',Reply to comments,');
      await page.context().close();
    });

    test('previews a CSV import with a verdict per row, then imports the valid rows', async ({ browser }) => {
      const page = await openAs(browser, farm, viewport, '/content');
      await expect(page.getByRole('heading', { level: 1, name: 'Content' })).toBeVisible();
      await page.getByRole('button', { name: 'Import CSV' }).click();
      const dialog = page.getByRole('dialog', { name: 'Import posts from CSV' });
      await expect(dialog).toBeVisible();
      const caption = `Imported on a ${label}`;
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), dialog.getByRole('button', { name: 'Choose CSV file' }).click()]);
      await chooser.setFiles({
        name: 'posts.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(`Account,Caption,Hashtags,Status\nshelf_one,"${caption}, with a comma",#one #two,draft\nshelf_one,,,draft\nnobody,Hello,,draft\n`),
      });
      const preview = dialog.getByRole('table', { name: 'Import preview' });
      await expect(preview).toBeVisible();
      await expect(dialog.getByText('1 ready')).toBeVisible();
      await expect(dialog.getByText('2 with problems')).toBeVisible();
      await expect(preview.getByText('Caption is required')).toBeVisible();
      await expect(preview.getByText('Account: no account @nobody in this workspace')).toBeVisible();
      await expectNoSeriousViolations(page, `import preview (${label})`);
      await dialog.getByRole('button', { name: 'Import 1 post' }).click();
      await expectToast(page, 'Import Complete', '1 post imported, 2 rows skipped.');
      await expect(page.getByRole('article', { name: `Post: ${caption}, with a comma` })).toBeVisible();
      await page.context().close();
    });

    test('filters the audit log by action', async ({ browser }) => {
      const page = await openAs(browser, farm, viewport, '/settings/audit-log');
      const section = page.getByRole('region', { name: 'Audit log' });
      await expect(section.getByRole('table', { name: 'Audit log entries' })).toBeVisible();
      await choose(section, 'Action', 'task.created');
      const rows = section.getByRole('table', { name: 'Audit log entries' }).locator('tbody tr');
      await expect(rows).toHaveCount(3);
      for (const row of await rows.all()) await expect(row).toContainText('task.created');
      await expect(rows.first()).toContainText('Mona Manager');
      await expect(rows.first()).toContainText('127.0.0.1');
      await expectNoSeriousViolations(page, `settings with the audit log (${label})`);
      await page.context().close();
    });

    test('shows analytics over time with charts and sortable tables', async ({ browser }) => {
      const page = await openAs(browser, farm, viewport, '/analytics?range=30d');
      await expect(page.getByRole('heading', { level: 1, name: 'Analytics' })).toBeVisible();
      await expect(page.getByRole('region', { name: 'Device Performance' }).getByRole('table')).toBeVisible();
      await expect(page.getByRole('region', { name: 'Tasks completed vs failed' })).toBeVisible();
      await expect(page.getByRole('status').filter({ hasText: /^Loading/ })).toHaveCount(0);
      await expectNoSeriousViolations(page, `analytics (${label})`);
      await page.context().close();
    });
  });
}
