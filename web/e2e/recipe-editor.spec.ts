/**
 * The recipe editor, as an operator uses it: a workspace recipe (the shipped Instagram post template, added through
 * the API) is opened from Campaigns → Recipes with Edit; a Wait for step is added from the step list and shows in the
 * JSON; a JSON error and then a schema error are shown at their line ("Line N: …") and mended; Save keeps v2 with a
 * note; Compare shows v1 → v2's added lines; Restore brings v1 back as v3; the audit log has the restore. At 1280 px
 * and 375 px, with axe on the editor in both themes.
 */
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { COLOUR_RULES, expectNoSeriousViolations } from './support/axe';
import { post } from './support/fake-phone';
import { SCREENSHOT_DIR } from './support/screenshots';
import { dialog, expectToast, PASSWORD, setScheme, uniqueEmail } from './support/ui';

const FEED_TAB = 'com.instagram.android:id/feed_tab';

/** No sideways scroll on the page. */
async function expectNoSidewaysScroll(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
}

for (const width of [1280, 375]) {
  test(`an operator edits a recipe, saves, compares and restores a version (${width} px)`, async ({ browser }) => {
    // A long journey with three axe runs on a large page: two minutes, as a busy 2-core machine needs.
    test.setTimeout(120_000);
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    await post(page.request, '/api/auth/signup', { name: 'Edie Editor', email: uniqueEmail('edie'), password: PASSWORD, role: 'operator' });
    const template = await (await page.request.get('/api/recipes/shipped/instagram.post')).json();
    const seeded = await post<{ id: string; name: string }>(page.request, '/api/recipes', { recipe: { ...template.body, version: 1 } });

    try {
      // Campaigns → Recipes: Edit on the recipe's row opens the editor.
      await page.goto('/campaigns/recipes');
      await page.getByRole('link', { name: `Edit ${seeded.name} v1` }).click();
      await expect(page.getByRole('heading', { level: 1, name: seeded.name })).toBeVisible();
      await expect(page.getByText('v1', { exact: true })).toBeVisible();
      const json = page.getByRole('textbox', { name: 'Recipe JSON' });
      await expect(json).toHaveValue(/"id": "instagram.post"/);
      await expect(page.getByText('The recipe reads well by the schema.')).toBeVisible();

      // A Wait for step after step 1, from the list.
      await page.getByRole('button', { name: 'Add a step after step 1' }).click();
      await page.getByRole('menuitem', { name: 'Wait for' }).click();
      const adding = dialog(page, 'Wait for step after step 1');
      await adding.getByRole('textbox', { name: 'Selector value' }).fill(FEED_TAB);
      await adding.getByRole('textbox', { name: 'Timeout' }).fill('12s');
      await adding.getByRole('button', { name: 'Add Step' }).click();
      await expect(page.getByRole('listitem', { name: `Step 2: Wait for ${FEED_TAB}` })).toBeVisible();
      await expect(json).toHaveValue(/"do": "wait_for",\n\s+"target": \{\n\s+"id": "com\.instagram\.android:id\/feed_tab"\n\s+\},\n\s+"timeout": "12s"/);
      const good = await json.inputValue();

      // A comma taken out: the syntax error is shown at its line.
      const broken = good.replace('"do": "wait_for",', '"do": "wait_for"');
      await json.fill(broken);
      const brokenLine = broken.split('\n').findIndex((line) => line.includes('"do": "wait_for"')) + 2;
      await expect(page.getByRole('button', { name: new RegExp(`^Line ${brokenLine}: A "," or "}" is expected`) })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeDisabled();
      await expect(page.getByText('Mend the JSON to edit the steps here', { exact: false })).toBeVisible();

      // A timeout the schema refuses: its line, and the path in the document.
      const wrong = good.replace('"timeout": "12s"', '"timeout": "soon"');
      await json.fill(wrong);
      const wrongLine = wrong.split('\n').findIndex((line) => line.includes('"timeout": "soon"')) + 1;
      await expect(page.getByRole('button', { name: new RegExp(`^Line ${wrongLine}: steps\\.1\\.timeout: `) })).toBeVisible();
      await page.screenshot({ path: join(SCREENSHOT_DIR, `recipe-editor-error-${width}.png`), fullPage: true });
      await expectNoSidewaysScroll(page);

      // Mended, and saved as v2 with a note.
      await json.fill(good);
      await expect(page.getByText('The recipe reads well by the schema.')).toBeVisible();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      const saving = dialog(page, 'Save instagram.post as a new version');
      await saving.getByRole('textbox', { name: 'What changed (optional)' }).fill('Waits for the feed tab');
      await saving.getByRole('button', { name: 'Save Version' }).click();
      await expectToast(page, 'Version Saved', 'saved as v2');
      await expect(page.getByText('v2', { exact: true })).toBeVisible();
      await expect(page.getByRole('listitem', { name: `Step 2: Wait for ${FEED_TAB}` })).toBeVisible();

      // Compare v2 with v1: the added lines, marked.
      await page.getByRole('button', { name: 'Compare' }).click();
      await page.getByRole('menuitem', { name: 'With v1' }).click();
      const compare = dialog(page, 'Compare v2 with v1');
      const changes = compare.getByRole('list', { name: 'Changes from v1 to v2' });
      await expect(changes).toBeVisible();
      await expect(compare.getByText(/lines added, 1 removed/)).toBeVisible();
      await expect(changes.locator('li[data-kind="added"]', { hasText: '"do": "wait_for",' })).toContainText('Added:');
      await expect(changes.locator('li[data-kind="added"]', { hasText: `"id": "${FEED_TAB}"` })).toBeVisible();
      await expect(changes.locator('li[data-kind="removed"]', { hasText: '"version": 1,' })).toBeVisible();
      await page.screenshot({ path: join(SCREENSHOT_DIR, `recipe-editor-compare-${width}.png`), fullPage: true });
      await expectNoSeriousViolations(page, `the compare (${width} px)`);
      await compare.getByRole('button', { name: 'Close' }).click();

      // Versions: restore v1, which comes back as v3.
      await page.getByRole('button', { name: 'Versions' }).click();
      const versions = dialog(page, 'Versions');
      await expect(versions.getByRole('listitem', { name: 'Version 2' })).toContainText('Waits for the feed tab');
      await expect(versions.getByRole('listitem', { name: 'Version 2' })).toContainText('Edie Editor');
      await versions.getByRole('button', { name: 'Restore v1' }).click();
      const confirm = dialog(page, 'Restore v1?');
      await confirm.getByRole('button', { name: 'Restore' }).click();
      await expectToast(page, 'Version Restored', 'v1 is restored as v3');
      await expect(page.getByText('v3', { exact: true })).toBeVisible();
      await expect(page.getByRole('listitem', { name: `Step 2: Wait for ${FEED_TAB}` })).toHaveCount(0);
      await expect(page.getByText('Sent to phones', { exact: true })).toBeVisible();
      await page.screenshot({ path: join(SCREENSHOT_DIR, `recipe-editor-${width}.png`), fullPage: true });
      await expectNoSidewaysScroll(page);
      await expectNoSeriousViolations(page, `the recipe editor (${width} px, dark)`);
      await setScheme(page, 'light', { withToggle: true });
      await expectNoSeriousViolations(page, `the recipe editor (${width} px, light)`, COLOUR_RULES);

      // The audit log has the restore.
      await page.goto('/settings/audit-log');
      const audit = page.getByRole('region', { name: 'Audit log' });
      await expect(audit.getByText('recipe.restored').first()).toBeVisible({ timeout: 10_000 });
    } finally {
      await context.close();
    }
  });
}
