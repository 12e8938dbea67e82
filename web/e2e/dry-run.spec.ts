/**
 * Dry runs in a real browser, at 1280 and 375 px. A protocol 2 phone that listed `dryrun` (the test speaks for it on
 * the API's agent socket) sends each step with the frame and UI tree the simulated phone draws and dumps from its
 * recorded Instagram screens. From Campaigns → Recipes the operator starts a step-by-step, no-effects dry run of the
 * workspace's Instagram warm-up, presses Next step twice, opens a step to see its screenshot and tree, and sees the run
 * stop before the counted step; then a straight run with effects passes and says the app version is now verified.
 */
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { captureTree, parseUiXml } from '@farm/agent-protocol/recipes';
import { SimulatedPhoneUi } from '@farm/agent-protocol/simphone';
import { expectNoSeriousViolations } from './support/axe';
import { IG, Phone, post } from './support/fake-phone';
import { SCREENSHOT_DIR } from './support/screenshots';
import { choose, PASSWORD, unique, uniqueEmail } from './support/ui';

/** An Instagram newer than the shipped warm-up's tested range: only a verification covers it. */
const VERSION = '448.0.0.12.90';

async function traceStep(ui: SimulatedPhoneUi, seq: number, extra: Record<string, unknown> = {}) {
  const frame = await ui.frame({ maxSide: 720 });
  const tree = captureTree(parseUiXml(ui.uiXml()));
  const node = tree.nodes.findIndex((candidate) => candidate.clickable && candidate.desc.length > 0);
  const at = node >= 0 ? node : tree.nodes.findIndex((candidate) => candidate.clickable);
  return {
    seq,
    path: String(seq - 1),
    do: 'tap',
    label: `Step ${seq}: tap ${tree.nodes[at]!.desc || 'the element'}`,
    verdict: 'done',
    selector: tree.nodes[at]!.desc ? { desc: tree.nodes[at]!.desc } : { class: 'FrameLayout' },
    matched: { node: at, bounds: tree.nodes[at]!.bounds },
    ms: 380 + seq,
    frame: { mime: frame.mime, data: new Uint8Array(frame.data), width: frame.width, height: frame.height },
    tree,
    ...extra,
  };
}

async function openDryRun(page: Page, recipeLabel: string, phoneName: string, mode: 'Straight through' | 'Step by step', noEffects: boolean) {
  await page.goto('/campaigns/recipes');
  const row = page.getByRole('listitem', { name: recipeLabel, exact: true });
  await row.getByRole('button', { name: `Dry run ${recipeLabel}` }).click();
  const dialog = page.getByRole('dialog', { name: 'Dry run' });
  await choose(dialog, 'Phone', phoneName);
  await dialog.getByText(mode, { exact: true }).click();
  const effects = dialog.getByRole('checkbox', { name: 'No effects: stop before any step that likes, follows, comments or posts' });
  await expect(effects).toBeChecked();
  if (!noEffects) await effects.uncheck();
  return dialog;
}

for (const width of [1280, 375]) {
  test(`dry-run a recipe step by step, then straight through until it verifies (${width} px)`, async ({ browser, baseURL }) => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    await post(page.request, '/api/auth/signup', { name: 'Dana Dry', email: uniqueEmail('dana'), password: PASSWORD, role: 'operator' });
    const phoneName = unique('Pixel dry');
    const device = await post<{ id: string }>(page.request, '/api/devices', { name: phoneName });
    const { token } = await post<{ token: string }>(page.request, `/api/devices/${device.id}/credentials`, {});
    const username = unique('dry')
      .replace(/[^a-z0-9_.]/gi, '_')
      .toLowerCase();
    await post(page.request, '/api/accounts', { username, platform: 'instagram', status: 'active', deviceId: device.id });
    const template = (await (await page.request.get('/api/recipes/shipped/instagram.warmup')).json()) as { name: string; body: Record<string, unknown> };
    const saved = await post<{ name: string; version: number }>(page.request, '/api/recipes', { recipe: { ...template.body, version: 5 } });
    const recipeLabel = `${saved.name} v${saved.version}`;

    const ui = new SimulatedPhoneUi({ serial: `SIM-DRY-${width}`, width: 1080, height: 2400 });
    const phone = await Phone.connect(baseURL!, token, VERSION, ['dryrun']);
    try {
      // Step by step, no effects.
      const dialog = await openDryRun(page, recipeLabel, phoneName, 'Step by step', true);
      const preflight = dialog.getByLabel('Pre-flight');
      await expect(preflight.getByText(`@${username}`)).toBeVisible();
      await expect(preflight.getByText(`App: ${IG} ${VERSION}`, { exact: true })).toBeVisible();
      await expect(preflight.getByText('Not covered yet')).toBeVisible();
      await expect(preflight.getByText(/^Likes: \d+ of \d+ left$/)).toBeVisible();
      await page.screenshot({ path: join(SCREENSHOT_DIR, `dry-run-dialog-${width}.png`), fullPage: true });
      await dialog.getByRole('button', { name: 'Start' }).click();
      await expect(page).toHaveURL(/\/dry-runs\/[0-9a-f-]{36}$/);
      const run = await phone.dryRun(1);
      expect(run).toMatchObject({ mode: 'step', effects: false });
      await expect(page.getByLabel('Status: Running')).toBeVisible();

      await ui.launchApp(IG);
      expect(await phone.send('dryrun.step', { runId: run.runId, step: await traceStep(ui, 1, { do: 'launch', label: 'Open Instagram' }) })).toMatchObject({
        ok: true,
      });
      const steps = page.getByRole('list', { name: 'Trace steps' });
      await expect(steps.getByRole('listitem')).toHaveCount(1);
      await page.getByRole('button', { name: 'Next step' }).click();
      await expect.poll(() => phone.nexts.length).toBe(1);
      expect(await phone.send('dryrun.step', { runId: run.runId, step: await traceStep(ui, 2, { do: 'swipe', label: 'Scroll the feed' }) })).toMatchObject({
        ok: true,
      });
      await page.getByRole('button', { name: 'Next step' }).click();
      await expect.poll(() => phone.nexts.length).toBe(2);
      // The next step likes: with no effects the phone stops before it.
      expect(
        await phone.send('dryrun.step', {
          runId: run.runId,
          step: await traceStep(ui, 3, { do: 'toggle', label: 'Like the post', verdict: 'stopped', detail: 'No effects: stopped before a step that likes' }),
        }),
      ).toMatchObject({ ok: true });
      expect(await phone.send('dryrun.result', { runId: run.runId, outcome: 'stopped', steps: 3, durationMs: 5200 })).toMatchObject({ ok: true });
      await expect(steps.getByRole('listitem')).toHaveCount(3);
      await expect(page.getByLabel('Status: Stopped')).toBeVisible();
      await expect(page.getByRole('status').filter({ hasText: 'Stopped: No effects: stopped before a step that likes' })).toBeVisible();
      const stopped = steps.getByRole('listitem', { name: 'Step 3: Like the post' });
      await expect(stopped.getByText('Stopped', { exact: true })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Next step' })).toHaveCount(0);

      // A step opened: its screenshot with the matched node outlined, and the tree with that node marked.
      const first = steps.getByRole('listitem', { name: 'Step 1: Open Instagram' });
      await first.getByRole('button').first().click();
      const shot = first.getByRole('img', { name: 'Screen after step 1: Open Instagram' });
      await expect(shot).toBeVisible();
      await expect.poll(() => shot.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeGreaterThan(0);
      await expect(first.getByTestId('matched-outline')).toBeVisible();
      await expect(first.getByRole('list', { name: 'Tree of step 1' }).getByText(/← matched$/)).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await expectNoSeriousViolations(page, `dry run trace (${width} px)`);
      await page.screenshot({ path: join(SCREENSHOT_DIR, `dry-run-trace-${width}.png`), fullPage: true });

      // Straight through with effects: it passes, and the app version is now verified for this version of the recipe.
      // The phone heartbeats as a live one does, so the time spent reading the trace does not leave it silent.
      expect(await phone.send('agent.heartbeat', { battery: 88, status: 'online' })).toMatchObject({ ok: true });
      const again = await openDryRun(page, recipeLabel, phoneName, 'Straight through', false);
      await expect(again.getByLabel('Pre-flight').getByText(`@${username}`)).toBeVisible();
      await again.getByRole('button', { name: 'Start' }).click();
      await expect(page).toHaveURL(/\/dry-runs\/[0-9a-f-]{36}$/);
      const straight = await phone.dryRun(2);
      expect(straight).toMatchObject({ mode: 'straight', effects: true });
      expect(
        await phone.send('dryrun.step', { runId: straight.runId, step: await traceStep(ui, 1, { do: 'toggle', label: 'Like the post', action: 'like' }) }),
      ).toMatchObject({
        ok: true,
      });
      expect(
        await phone.send('dryrun.result', {
          runId: straight.runId,
          outcome: 'passed',
          actions: { like: 1, follow: 0, comment: 0, post: 0 },
          app: { package: IG, version: VERSION, locale: 'en-US' },
          steps: 1,
          durationMs: 3100,
        }),
      ).toMatchObject({ ok: true });
      await expect(page.getByText(`Passed — Instagram ${VERSION} (en-US) is now verified for this version of the recipe`)).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: join(SCREENSHOT_DIR, `dry-run-passed-${width}.png`), fullPage: true });
    } finally {
      phone.close();
      await ui.close();
      await context.close();
    }
  });
}
