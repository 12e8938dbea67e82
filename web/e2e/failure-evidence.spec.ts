/**
 * A failed run's evidence in the console, at 1280 and 375 px: a phone (a protocol 2 agent the test drives on the
 * API's socket) fails a post's like step and sends its trace — the simulated phone's Instagram feed, its frame and its
 * tree, read from the repository's fixture. The operator opens the task on Tasks and sees the step, the selector that
 * missed, the screenshot and the screen's elements; the same evidence is on the phone's work history. Re-record from
 * here says no phone with that Instagram is online while none is; once a simulated phone (the real agent) with that
 * version is, it opens that phone's Live tab with Record offered, and Record is there after Take control.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { PhoneAgent } from '@farm/agent-protocol';
import { DeviceBackend } from '@farm/agent-protocol/agent';
import { captureTree } from '@farm/agent-protocol/inspect';
import { parseUiXml } from '@farm/agent-protocol/recipes';
import { INSTAGRAM, SimulatedPhoneUi } from '@farm/agent-protocol/simphone';
import { expectNoSeriousViolations } from './support/axe';
import { Phone, post } from './support/fake-phone';
import { SCREENSHOT_DIR } from './support/screenshots';
import { PASSWORD, unique, uniqueEmail } from './support/ui';

for (const width of [1280, 375]) {
  test(`a failed run's evidence on the task and Re-record from here (${width} px)`, async ({ browser, baseURL }) => {
    test.setTimeout(120_000);
    const version = `312.0.0.${width}.7`;
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    await post(page.request, '/api/auth/signup', { name: 'Evi Evidence', email: uniqueEmail('evi'), password: PASSWORD, role: 'operator' });

    // The screen the run failed on: the simulated phone's Instagram feed (test/fixtures/real/instagram/feed.xml).
    const screenUi = new SimulatedPhoneUi({ width: 720, height: 1440 });
    await screenUi.launchApp(INSTAGRAM);
    const shot = await screenUi.frame({ maxSide: 720 });
    const tree = captureTree(parseUiXml(screenUi.uiXml()));
    await screenUi.close();

    const failedName = unique('Pixel failed');
    const failed = await post<{ id: string }>(page.request, '/api/devices', { name: failedName });
    const { token } = await post<{ token: string }>(page.request, `/api/devices/${failed.id}/credentials`, {});
    const username = unique('evi')
      .replace(/[^a-z0-9_.]/gi, '_')
      .toLowerCase();
    const account = await post<{ id: string }>(page.request, '/api/accounts', { username, platform: 'instagram', status: 'active', deviceId: failed.id });
    const phone = await Phone.connect(baseURL!, token, version);
    let agent: PhoneAgent | undefined;
    let backend: DeviceBackend | undefined;
    try {
      await post(page.request, '/api/posts', {
        accountId: account.id,
        caption: 'Spring drop',
        hashtags: [],
        mediaUrls: [],
        status: 'scheduled',
        scheduledAt: new Date().toISOString(),
      });
      const out = await phone.dispatched(1);
      await phone.send('task.ack', out);
      expect(
        await phone.send('task.result', {
          ...out,
          status: 'failed',
          failure: {
            code: 'element_missing',
            message: 'The like button was not found',
            retryable: false,
            recipe: { id: 'instagram.like', version: 3 },
            app: { package: INSTAGRAM, version },
            trace: {
              seq: 4,
              path: '3',
              do: 'tap',
              label: 'Tap like button',
              verdict: 'failed',
              detail: 'No element matched within 10 s',
              selector: { id: 'row_feed_button_like' },
              ms: 10_000,
              frame: { mime: 'image/jpeg', data: Buffer.from(shot.data), width: shot.width, height: shot.height },
              tree,
            },
          },
        }),
      ).toMatchObject({ ok: true });

      // The task, on Tasks: its failure's evidence.
      await page.goto('/tasks');
      const card = page.getByRole('article', { name: `Publish post for @${username}` });
      await expect(card.getByRole('img', { name: 'Failed' })).toBeVisible({ timeout: 10_000 });
      await card.getByRole('button', { name: 'Failure evidence' }).click();
      const modal = page.getByRole('dialog', { name: 'Failure evidence' });
      await expect(modal.getByRole('heading', { name: 'Step 4 · Tap like button' })).toBeVisible();
      await expect(modal.getByText('The selector that missed')).toBeVisible();
      await expect(modal.getByText('id = row_feed_button_like')).toBeVisible();
      await expect(modal.getByText('No element matched within 10 s')).toBeVisible();
      await expect(modal.getByText(`Instagram ${version}`, { exact: true })).toBeVisible();
      const screenshot = modal.getByRole('img', { name: 'The screen at Step 4, when it failed' });
      await expect(screenshot).toBeVisible();
      await expect.poll(() => screenshot.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(shot.width);
      await modal.getByRole('switch', { name: "Show the screen's elements" }).check();
      const elements = modal.getByRole('list', { name: "The screen's elements" });
      await expect(elements.getByText('id row_feed_button_like · desc "Like"')).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
      await page.screenshot({ path: join(SCREENSHOT_DIR, `failure-evidence-${width}.png`), fullPage: true });
      await expectNoSeriousViolations(page, `failure evidence (${width} px)`);

      // The phone that failed went offline and no other has that Instagram: Re-record says so.
      phone.close();
      await expect.poll(async () => ((await (await page.request.get(`/api/devices/${failed.id}`)).json()) as { status: string }).status).toBe('offline');
      await modal.getByRole('button', { name: 'Re-record from here' }).click();
      await expect(modal.getByRole('status').filter({ hasText: `No phone with Instagram ${version} is online now` })).toBeVisible();

      // A simulated phone with that version comes online: Re-record opens its Live tab with Record offered.
      const simName = unique('Pixel rerecord');
      const sim = await post<{ id: string }>(page.request, '/api/devices', { name: simName });
      const simToken = (await post<{ token: string }>(page.request, `/api/devices/${sim.id}/credentials`, {})).token;
      const ui = new SimulatedPhoneUi({ serial: `SIM-EVIDENCE-${width}`, width: 1080, height: 2400, versions: { [INSTAGRAM]: version } });
      backend = await new DeviceBackend(ui, { agentVersion: 'e2e/2', preflight: 'no-account' }).start();
      agent = new PhoneAgent({ url: baseURL!, token: simToken, backend, reconnectionDelayMs: 200 });
      await expect.poll(() => agent!.connected, { timeout: 10_000 }).toBe(true);
      await modal.getByRole('button', { name: 'Re-record from here' }).click();
      await expect(page).toHaveURL(new RegExp(`/devices\\?device=${sim.id}&tab=live&record=1`));
      const drawer = page.getByRole('dialog', { name: `Device: ${simName}` });
      await expect(drawer.getByRole('tab', { name: 'Live', selected: true })).toBeVisible();
      await expect(drawer.getByText('Take control of this phone, then press Record')).toBeVisible();
      await expect(drawer.getByText(/^JPEG \(simulated\)$/)).toBeVisible({ timeout: 15_000 });
      await drawer.getByRole('button', { name: 'Take control' }).click();
      await expect(drawer.getByRole('button', { name: 'Record' })).toBeVisible();
      await expect(drawer.getByText('Press Record, then do the routine')).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
      await page.screenshot({ path: join(SCREENSHOT_DIR, `failure-evidence-rerecord-${width}.png`), fullPage: true });
      await expectNoSeriousViolations(page, `re-record from here (${width} px)`);
      await drawer.getByRole('button', { name: 'Hand back' }).click();
      await drawer.getByRole('button', { name: 'Close' }).click();

      // The failed phone's work history marks the attempt with its evidence.
      await page.goto(`/devices?device=${failed.id}`);
      const details = page.getByRole('dialog', { name: `Device: ${failedName}` });
      await details.getByRole('button', { name: `Evidence of Publish post for @${username}, attempt 1` }).click();
      await expect(page.getByRole('dialog', { name: 'Failure evidence' }).getByRole('heading', { name: 'Step 4 · Tap like button' })).toBeVisible();
    } finally {
      phone.close();
      agent?.close();
      await backend?.close();
      await context.close();
    }
  });
}
