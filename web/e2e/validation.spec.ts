/**
 * The spec's validation messages (§5, §8) for bad input, entered through the forms: signup without a role,
 * a campaign without keywords or with a zero target, a post without caption, an account without username,
 * a login with a wrong password.
 */
import { test as base } from '@playwright/test';
import { expect, smallFarmTest as test } from './support/seed';
import { choose, dialog, expectToast, PASSWORD, uniqueEmail } from './support/ui';

base.describe('signed out', () => {
  base('signup without a role is refused with "Role required"', async ({ page }) => {
    await page.goto('/signup');
    await page.getByLabel('Full Name').fill('Rolf Roleless');
    await page.getByLabel('Email').fill(uniqueEmail('roleless'));
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await expect(page.getByRole('combobox', { name: 'I am a...' })).toHaveAttribute('placeholder', 'Select your role');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await expectToast(page, 'Role required', 'Please select your role to continue.');
    await expect(page).toHaveURL(/\/signup$/);
  });

  base('login with a wrong password says "Login failed"', async ({ page, playwright, baseURL }) => {
    const email = uniqueEmail('wrongpass');
    const api = await playwright.request.newContext({ baseURL });
    const created = await api.post('/api/auth/signup', {
      data: { name: 'Wanda Wrong', email, password: PASSWORD, role: 'operator' },
      headers: { 'Content-Type': 'application/json' },
    });
    expect(created.status()).toBe(201);
    await api.dispose();

    await page.goto('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('not-the-password');
    await page.getByRole('button', { name: 'Login' }).click();
    await expectToast(page, 'Login failed', 'Invalid email or password. Please try again.');
    await expect(page).toHaveURL(/\/login$/);
  });
});

test.describe('signed in as an operator', () => {
  test('a campaign needs a keyword or a reference account', async ({ page }) => {
    await page.goto('/campaigns');
    await page.getByRole('button', { name: 'New Campaign' }).click();
    const form = dialog(page, 'New Campaign');
    await form.getByLabel('Campaign Name').fill('No keywords');
    await form.getByLabel('Niche').fill('Fitness');
    await form.getByLabel('Keywords').fill(' , ,');
    await form.getByRole('button', { name: 'Create Campaign' }).click();
    await expectToast(page, 'Validation Error', 'Please provide at least one keyword or reference account.');
    await expect(form).toBeVisible();
  });

  test('a campaign needs an engagement target above 0 (submitted with Enter)', async ({ page }) => {
    await page.goto('/campaigns');
    await page.getByRole('button', { name: 'New Campaign' }).click();
    const form = dialog(page, 'New Campaign');
    await form.getByLabel('Campaign Name').fill('Zero target');
    await form.getByLabel('Niche').fill('Fitness');
    await form.getByLabel('Keywords').fill('fitness');
    const target = form.getByRole('textbox', { name: 'Daily Engagement Target' });
    await expect(target).toHaveValue('100');
    await target.fill('0');
    await target.press('Enter');
    await expectToast(page, 'Validation Error', 'Engagement target must be greater than 0.');
    await expect(form).toBeVisible();
  });

  test('a campaign needs an engagement target above 0 (submitted with the button)', async ({ page }) => {
    await page.goto('/campaigns');
    await page.getByRole('button', { name: 'New Campaign' }).click();
    const form = dialog(page, 'New Campaign');
    await form.getByLabel('Campaign Name').fill('Zero target by click');
    await form.getByLabel('Niche').fill('Fitness');
    await form.getByLabel('Keywords').fill('fitness');
    await form.getByRole('textbox', { name: 'Daily Engagement Target' }).fill('0');
    await form.getByRole('button', { name: 'Create Campaign' }).click();
    await expect(page.getByRole('alert')).toContainText('Engagement target must be greater than 0.', { timeout: 3000 });
  });

  test('a post needs a caption', async ({ page, smallFarm }) => {
    await page.goto('/content');
    await page.getByRole('button', { name: 'Create Post' }).click();
    const form = dialog(page, 'Create Post');
    await choose(form, 'Account', `${smallFarm.username} (instagram)`);
    await form.getByRole('button', { name: 'Create Post' }).click();
    await expect(form.getByText('Caption is required', { exact: true })).toBeVisible();
    await expect(form.getByRole('textbox', { name: 'Caption' })).toHaveAttribute('aria-invalid', 'true');
  });

  test('an account needs a username', async ({ page }) => {
    await page.goto('/accounts');
    await page.getByRole('button', { name: 'Add Account' }).click();
    const form = dialog(page, 'Add Account');
    await form.getByRole('button', { name: 'Add Account' }).click();
    await expect(form.getByText('Username is required', { exact: true })).toBeVisible();
    await expect(form.getByRole('textbox', { name: 'Username' })).toHaveAttribute('aria-invalid', 'true');
  });
});
