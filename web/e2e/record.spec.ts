/**
 * Record in a real browser, at 1280 and 375 px: the operator takes control of a simulated phone (the real agent),
 * presses Record, taps the Instagram icon, taps the feed's Like button and types a word; the steps show as they are
 * made; Stop, a name, and Save draft keep a draft recipe whose taps name selectors (the launcher's tap left out).
 */
import { expect, test } from '@playwright/test';
import { parseUiXml } from '@farm/agent-protocol/recipes';
import { openLiveTab, operatorWithPhone, simulatedAgent } from './support/live';
import { choose, expectToast } from './support/ui';

for (const width of [1280, 375]) {
  test(`record taps and text into a draft recipe that names selectors (${width} px)`, async ({ browser, baseURL }) => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const { name, token } = await operatorWithPhone(page, 'Remy Record', 'Pixel record');
    const { ui, stop } = await simulatedAgent(baseURL!, token, `SIM-RECORD-${width}`, { preflight: 'no-account' });
    try {
      const dialog = await openLiveTab(page, name);
      const screen = dialog.getByRole('img', { name: `Live screen of ${name}` });
      await expect(dialog.getByText(/^JPEG \(simulated\)$/)).toBeVisible({ timeout: 15_000 });
      await dialog.getByRole('button', { name: 'Take control' }).click();
      await dialog.getByRole('button', { name: 'Record' }).click();
      const steps = dialog.getByLabel('Recorded steps');
      await expect(steps.getByText('Recording')).toBeVisible();

      const tapAt = async (x: number, y: number) => {
        const box = (await screen.boundingBox())!;
        await screen.click({ position: { x: box.width * (x / 1080), y: box.height * (y / 2400) } });
      };
      // The Instagram icon on the launcher, then the first post's Like button where the phone's own tree puts it.
      await tapAt(250, 1850);
      await expect(steps.getByText(/^1\. Tap /)).toBeVisible({ timeout: 10_000 });
      await expect.poll(() => ui.where, { timeout: 5000 }).toBe('instagram/feed');
      const like = parseUiXml(await ui.dumpUi()).nodes.find((node) => node.resourceId.endsWith(':id/row_feed_button_like'))!;
      await tapAt((like.bounds.left + like.bounds.right) / 2, (like.bounds.top + like.bounds.bottom) / 2);
      await expect(steps.getByText(/row_feed_button_like/)).toBeVisible({ timeout: 10_000 });
      await screen.focus();
      await page.keyboard.type('hi');
      await expect(steps.getByText(/Type "hi"/)).toBeVisible({ timeout: 10_000 });
      await choose(steps, 'Text of step 3', '{{caption}}');

      await dialog.getByRole('button', { name: 'Stop recording' }).click();
      await dialog.getByRole('textbox', { name: 'Draft name' }).fill('Like the first post');
      await dialog.getByRole('button', { name: 'Save draft' }).click();
      await expectToast(page, 'Draft saved');

      const recipes = (await (await page.request.get('/api/recipes')).json()) as { recipes: { name: string; enabled: boolean; body?: unknown; id: string }[] };
      const draft = recipes.recipes.find((recipe) => recipe.name === 'Like the first post')!;
      expect(draft.enabled).toBe(false);
      const detail = (await (await page.request.get(`/api/recipes/${draft.id}`)).json()) as { body: { steps: Record<string, unknown>[]; platform: string } };
      expect(detail.body.platform).toBe('instagram');
      const taps = detail.body.steps.filter((step) => step.do === 'tap');
      expect(taps).toHaveLength(1);
      expect(taps[0]!.target).toMatchObject({ id: 'row_feed_button_like' });
      // The unique selector is the whole step: no point rides along, and the step is not positional.
      expect(taps[0]!.target).not.toHaveProperty('fallback');
      expect(taps[0]!.positional).toBeUndefined();
      expect(detail.body.steps).toContainEqual({ do: 'type', text: '{{caption}}' });
      expect(detail.body.steps[0]).toEqual({ do: 'open_app' });

      // The operator opens the draft in the recipe editor, to add waits, guards, counts and checks.
      await dialog.getByRole('link', { name: 'Open "Like the first post" in the recipe editor' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Like the first post' })).toBeVisible();
      await expect(page.getByText('Off (draft)', { exact: true })).toBeVisible();
      await expect(page.getByRole('textbox', { name: 'Recipe JSON' })).toHaveValue(/"id": "row_feed_button_like"/);
      // Each recorded step kept the picture of the screen it was made on.
      await expect(page.getByRole('listitem', { name: /^Step 2: / }).getByRole('img', { name: 'The screen step 2 was recorded on' })).toBeVisible();
    } finally {
      await stop();
      await context.close();
    }
  });
}
