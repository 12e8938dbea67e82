/**
 * Routing and the shell: signed-out visitors of the console land on /login, unknown paths read 'Page Not Found',
 * the theme toggle switches and remembers the scheme, and the sidebar collapses and becomes a drawer on phones.
 */
import { expect, test as base } from '@playwright/test';
import { smallFarmTest as test } from './support/seed';

base.describe('signed out', () => {
  base('a visit to /dashboard lands on /login without showing the console', async ({ page }) => {
    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Welcome back' })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Main navigation' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Login' })).toBeVisible();
  });

  base('an unknown path shows Page Not Found', async ({ page }) => {
    const response = await page.goto('/this/does/not/exist');
    expect(response?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1, name: 'Page Not Found' })).toBeVisible();
    await page.getByRole('link', { name: 'Go to Home' }).click();
    await expect(page).toHaveURL(/\/$/);
  });
});

test.describe('signed in', () => {
  test('an unknown path inside the console also shows Page Not Found', async ({ page }) => {
    await page.goto('/dashboard/nothing-here');
    await expect(page.getByRole('heading', { level: 1, name: 'Page Not Found' })).toBeVisible();
  });

  test('the theme toggle switches the scheme and the choice survives a reload', async ({ page }) => {
    await page.goto('/dashboard');
    const html = page.locator('html');
    await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
    await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
    expect(await page.evaluate(() => window.localStorage.getItem('theme'))).toBe('light');
    await page.reload();
    await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
    await expect(page.getByRole('button', { name: 'Switch to dark theme' })).toBeVisible();
    // Login is always dark, whatever was chosen inside the console.
    await page.goto('/login');
    await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
  });

  test('the sidebar collapses to icons and remembers it', async ({ page }) => {
    await page.goto('/tasks');
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await expect(nav.getByRole('link', { name: 'Tasks', exact: true })).toHaveAttribute('aria-current', 'page');
    const toggle = page.getByRole('button', { name: 'Toggle sidebar' });
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await expect(nav.getByText('Operations')).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole('button', { name: 'Toggle sidebar' })).toHaveAttribute('aria-expanded', 'false');
    await page.keyboard.press('Control+b');
    await expect(page.getByRole('button', { name: 'Toggle sidebar' })).toHaveAttribute('aria-expanded', 'true');
  });

  test('on a phone the sidebar is a drawer', async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto('/dashboard');
    await expect(page.getByRole('navigation', { name: 'Main navigation' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Toggle navigation' }).click();
    const drawer = page.getByRole('dialog', { name: 'Navigation' });
    await drawer.getByRole('link', { name: 'Devices', exact: true }).click();
    await expect(page).toHaveURL(/\/devices$/);
    await expect(drawer).toBeHidden();
    await expect(page.getByRole('heading', { level: 1, name: 'Devices' })).toBeVisible();
  });
});
