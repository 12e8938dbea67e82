/** Small steps every spec takes the way a person does: pick from a select, read a toast, follow the sidebar. */
import { expect, type Locator, type Page } from '@playwright/test';

const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** A name or address no other test (nor a retry on the same server) has used. */
export function unique(prefix: string): string {
  return `${prefix}-${runId}-${Math.random().toString(36).slice(2, 7)}`;
}

export function uniqueEmail(prefix: string): string {
  return `${unique(prefix)}@e2e.test`.toLowerCase();
}

export const PASSWORD = 'correct-horse-42';

/** Opens a Mantine Select (role combobox) by its label and clicks one option. */
export async function choose(scope: Page | Locator, label: string, option: string): Promise<void> {
  const page = 'page' in scope ? scope.page() : scope;
  await scope.getByRole('combobox', { name: label }).click();
  // Options render in a portal at the end of the body, outside any dialog.
  await page.getByRole('option', { name: option, exact: true }).click();
}

/**
 * The one visible toast (Mantine notification) with this title, and optionally its message. Then the person
 * closes it, as one would before the next step.
 */
export async function expectToast(page: Page, title: string, message?: string): Promise<void> {
  const toast = page.getByRole('alert').filter({ has: page.getByText(title, { exact: true }) });
  await expect(toast).toBeVisible();
  if (message !== undefined) await expect(toast).toContainText(message);
  // Closed with its button's click, without waiting for its slide to settle (on a busy machine it can still be moving,
  // or partly off screen, when it starts to close by itself); a toast that closed by itself first is as good.
  await toast
    .getByRole('button', { name: 'Close notification' })
    .dispatchEvent('click', undefined, { timeout: 5_000 })
    .catch(async (error: unknown) => {
      if ((await toast.count()) > 0) throw error;
    });
  await expect(toast).toBeHidden();
}

/** Follows a sidebar entry (desktop layout) and waits for the screen's title. */
export async function navigate(page: Page, entry: string, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: entry, exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: title, exact: true })).toBeVisible();
}

/**
 * Opens `path` inside the console already on the page, as its own links do (the History API and the router's
 * popstate): the router resolves the address as on a full load, without loading and starting the console again.
 */
export async function openInConsole(page: Page, path: string): Promise<void> {
  await page.evaluate((to) => {
    window.history.pushState(null, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, path);
}

export function dialog(page: Page, name: string): Locator {
  return page.getByRole('dialog', { name });
}

export type Scheme = 'light' | 'dark';

/**
 * Puts the page in a colour scheme: with the header's toggle where there is one (the choice is kept in
 * localStorage 'theme'), otherwise by storing the choice and reloading. Landing, login and signup stay dark.
 */
export async function setScheme(page: Page, scheme: Scheme, { withToggle }: { withToggle: boolean }): Promise<void> {
  const html = page.locator('html');
  if (withToggle) {
    const current = (await html.getAttribute('data-mantine-color-scheme')) ?? 'dark';
    if (current !== scheme) {
      await page.getByRole('button', { name: `Switch to ${scheme} theme` }).click();
      await expect(page.getByRole('button', { name: `Switch to ${current} theme` })).toBeVisible();
      // Away from the button, so its tooltip does not open over the page.
      await page.mouse.move((page.viewportSize()?.width ?? 1280) / 2, 0);
      expect(await page.evaluate(() => window.localStorage.getItem('theme'))).toBe(scheme);
    }
    await expect(html).toHaveAttribute('data-mantine-color-scheme', scheme);
    return;
  }
  await page.evaluate((value) => window.localStorage.setItem('theme', value), scheme);
  await page.reload();
}
