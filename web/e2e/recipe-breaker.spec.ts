/**
 * The breaker in the console: three phones (protocol 2 agents on the API's socket, driven by the test) with one
 * Instagram version report that the post recipe no longer matches the app; Tasks shows the paused recipe, the fourth
 * phone's post waits, "Send this work to VAs by hand" gives it to the phone's VA, and "Turn it back on" clears the
 * banner (Campaigns → Recipes shows the same). At 1280 px and at 375 px.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { IG, Phone, post } from './support/fake-phone';
import { SCREENSHOT_DIR } from './support/screenshots';
import { expectToast, PASSWORD, unique, uniqueEmail } from './support/ui';

for (const width of [1280, 375]) {
  test(`a recipe paused for an app version, sent to VAs and turned back on (${width} px)`, async ({ browser, baseURL }) => {
    const version = `452.0.0.${width}.1`;
    const operatorContext = await browser.newContext({ viewport: { width, height: 900 } });
    const operator = await operatorContext.newPage();
    const { user: me } = await post<{ user: { id: string } }>(operator.request, '/api/auth/signup', {
      name: 'Brea Breaker',
      email: uniqueEmail('brea'),
      password: PASSWORD,
      role: 'operator',
    });
    const { invitation } = await post<{ invitation: { token: string } }>(operator.request, '/api/invitations', { role: 'va' });
    const vaContext = await browser.newContext({ viewport: { width, height: 900 } });
    const vaPage = await vaContext.newPage();
    const { user: va } = await post<{ user: { id: string } }>(vaPage.request, '/api/auth/signup', {
      name: 'Vic Byhand',
      email: uniqueEmail('vic'),
      password: PASSWORD,
      role: 'va',
      inviteToken: invitation.token,
    });

    const phones: { phone: Phone; accountId: string; username: string }[] = [];
    for (let i = 1; i <= 4; i += 1) {
      const device = await post<{ id: string }>(operator.request, '/api/devices', { name: `Pixel Breaker ${i}`, assignedToId: va.id });
      const { token } = await post<{ token: string }>(operator.request, `/api/devices/${device.id}/credentials`, {});
      const username = unique(`brk${i}`)
        .replace(/[^a-z0-9_.]/gi, '_')
        .toLowerCase();
      const account = await post<{ id: string }>(operator.request, '/api/accounts', { username, platform: 'instagram', status: 'active', deviceId: device.id });
      phones.push({ phone: await Phone.connect(baseURL!, token, version), accountId: account.id, username });
    }
    const duePost = (accountId: string, caption: string) =>
      post<{ id: string }>(operator.request, '/api/posts', {
        accountId,
        createdById: me.id,
        caption,
        hashtags: [],
        mediaUrls: [],
        status: 'scheduled',
        scheduledAt: new Date().toISOString(),
      });

    try {
      await operator.goto('/tasks');
      await expect(operator.getByLabel(/Connection: Live/)).toBeVisible();

      // Three phones run the post recipe and find the app changed under it.
      for (const { phone, accountId } of phones.slice(0, 3)) {
        await duePost(accountId, 'Autumn drop');
        const out = await phone.dispatched(1);
        await phone.send('task.ack', out);
        await phone.send('task.result', {
          ...out,
          status: 'failed',
          failure: { code: 'app_changed', message: 'Five misses in a row', recipe: { id: 'instagram.post', version: 1 }, app: { package: IG, version } },
        });
      }
      const banner = operator.getByRole('status', { name: `Recipe paused: Instagram publish a post on ${IG} ${version}` });
      await expect(banner).toBeVisible({ timeout: 10_000 });

      // The fourth phone's post waits for a person's choice.
      const waiting = phones[3]!;
      await duePost(waiting.accountId, 'Autumn drop, waiting');
      await expect(banner).toContainText('(1 task)', { timeout: 10_000 });
      expect(waiting.phone.dispatches).toHaveLength(0);
      await operator.screenshot({ path: join(SCREENSHOT_DIR, `recipe-breaker-${width}.png`), fullPage: true });

      await banner.getByRole('button', { name: 'Send this work to VAs by hand' }).click();
      await expectToast(operator, 'Sent to VAs', "1 task of Instagram publish a post went to the phones' VAs to do by hand.");
      await vaPage.goto('/tasks/mine');
      await expect(vaPage.getByRole('article', { name: new RegExp(`Publish post for @${waiting.username}.*\\(by hand\\)`) })).toBeVisible({ timeout: 10_000 });

      await operator.goto('/campaigns/recipes');
      const recipesBanner = operator.getByRole('status', { name: `Recipe paused: Instagram publish a post on ${IG} ${version}` });
      await expect(recipesBanner).toBeVisible();
      await recipesBanner.getByRole('button', { name: 'Turn it back on' }).click();
      await expectToast(operator, 'Recipe Turned Back On', `Instagram publish a post on ${IG} ${version} runs on phones again.`);
      await expect(recipesBanner).toHaveCount(0);
      await operator.goto('/tasks');
      await expect(operator.getByRole('heading', { name: 'Tasks' })).toBeVisible();
      await expect(operator.getByRole('status', { name: /Recipe paused/ })).toHaveCount(0);
    } finally {
      for (const { phone } of phones) phone.close();
      await operatorContext.close();
      await vaContext.close();
    }
  });
}
