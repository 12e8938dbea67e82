/**
 * Live updates a person sees without reloading.
 */
import { expect, test } from '@playwright/test';
import { PASSWORD, uniqueEmail } from './support/ui';

test('the VA list shows a VA who joins while the operator is looking at it', async ({ page, playwright, baseURL }) => {
  const json = { 'Content-Type': 'application/json' };
  const signup = await page.request.post('/api/auth/signup', {
    data: { name: 'Lena Live', email: uniqueEmail('lena'), password: PASSWORD, role: 'operator' },
    headers: json,
  });
  expect(signup.status()).toBe(201);
  const invite = await page.request.post('/api/invitations', { data: { role: 'va' }, headers: json });
  const { invitation } = (await invite.json()) as { invitation: { token: string } };

  await page.goto('/vas');
  await expect(page.getByText('No virtual assistants yet')).toBeVisible();

  const va = await playwright.request.newContext({ baseURL });
  const joined = await va.post('/api/auth/signup', {
    data: { name: 'Nico Newcomer', email: uniqueEmail('nico'), password: PASSWORD, role: 'va', inviteToken: invitation.token },
    headers: json,
  });
  expect(joined.status()).toBe(201);
  await va.dispose();

  await expect(page.getByRole('article', { name: 'Nico Newcomer' })).toBeVisible({ timeout: 6000 });
});

test('a task assigned to a VA is pushed to their open page, and its completion reaches the operator', async ({ browser }) => {
  const json = { 'Content-Type': 'application/json' };
  const operatorContext = await browser.newContext();
  const operator = await operatorContext.newPage();
  expect(
    (
      await operator.request.post('/api/auth/signup', {
        data: { name: 'Petra Pusher', email: uniqueEmail('petra'), password: PASSWORD, role: 'operator' },
        headers: json,
      })
    ).status(),
  ).toBe(201);
  const invite = await operator.request.post('/api/invitations', { data: { role: 'va' }, headers: json });
  const { invitation } = (await invite.json()) as { invitation: { token: string } };

  const vaContext = await browser.newContext();
  const vaPage = await vaContext.newPage();
  const joined = await vaPage.request.post('/api/auth/signup', {
    data: { name: 'Vic Pushed', email: uniqueEmail('vic'), password: PASSWORD, role: 'va', inviteToken: invitation.token },
    headers: json,
  });
  const { user: vaUser } = (await joined.json()) as { user: { id: string } };

  // Both people have their pages open before anything happens.
  await vaPage.goto('/tasks/mine');
  await expect(vaPage.getByRole('heading', { level: 1, name: 'My Tasks' })).toBeVisible();
  await expect(vaPage.getByLabel(/Connection: Live/)).toBeVisible();
  await operator.goto('/dashboard');
  await expect(operator.getByLabel(/Connection: Live/)).toBeVisible();

  // The operator assigns a task to the VA through the Tasks screen.
  await operator.goto('/tasks');
  await operator.getByRole('button', { name: 'Create Task' }).click();
  const form = operator.getByRole('dialog', { name: 'Create Task' });
  const title = `Reply to launch comments ${Date.now()}`;
  await form.getByLabel('Title').fill(title);
  await form.getByRole('combobox', { name: 'Virtual Assistant' }).click();
  await operator.getByRole('option', { name: 'Vic Pushed' }).click();
  await form.getByRole('button', { name: 'Create Task' }).click();

  // The VA is told at once, without reloading, and the task is in their list.
  const notice = vaPage.getByRole('alert').filter({ hasText: 'New Task Assigned' });
  await expect(notice).toBeVisible({ timeout: 5000 });
  await expect(notice).toContainText(title);
  const card = vaPage.getByRole('article', { name: title });
  await expect(card).toBeVisible();
  await card.getByRole('button', { name: 'Start' }).click();
  await expect(card.getByRole('button', { name: 'Complete' })).toBeVisible();
  await card.getByRole('button', { name: 'Complete' }).click();

  // The operator's open Tasks page shows it completed, without reloading.
  const operatorCard = operator.getByRole('article', { name: title });
  await expect(operatorCard.getByRole('img', { name: 'Completed' })).toBeVisible({ timeout: 6000 });
  expect(vaUser.id).toBeTruthy();
  await operatorContext.close();
  await vaContext.close();
});
