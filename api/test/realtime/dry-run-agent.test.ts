/**
 * Dry runs with the real phone agent: `PhoneAgent` and `DeviceBackend` over the simulated phone (its screens the
 * real apps' recorded trees), connected to a real console. The console starts the run, the phone runs the recipe with
 * the runner and sends a trace of every step with its frame and tree, and the console keeps it and acts on the result:
 * no effects stops before the like with nothing counted; step by step waits for each Next; a full pass counts the
 * like against the account's caps and adds the phone's app version and language to the versions the workspace
 * verified. Removing the recipe removes its runs and their screenshots.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { DryRun, DryRunDetail } from '@farm/contracts';
import { realtimeApp } from '../helpers/realtime.ts';
import { simulatedPhone, until } from './phones.ts';

let recipeRowId: string;

/** Instagram's shipped warm-up (its elements, start and guards) with the steps of "like the first post". */
async function likeTheFirstPost(): Promise<Record<string, unknown>> {
  const shipped = (await operator.get<{ body: Record<string, unknown> }>('/api/recipes/shipped/instagram.warmup')).body.body;
  return {
    ...shipped,
    id: 'workspace.like-first-post',
    name: 'Like the first post',
    version: 1,
    steps: [
      { do: 'wait_for', target: 'like_button', label: 'Wait for the first post' },
      { do: 'toggle', target: 'like_button', off: [{ selected: false }], on: [{ selected: true }], counts: 'like', within: '3s', label: 'Like the first post' },
    ],
  };
}
const { t, url, operator, closers } = await realtimeApp({ automation: { heartbeatMs: 1000 } });

beforeAll(async () => {
  const saved = await operator.post<{ id: string }>('/api/recipes', { recipe: await likeTheFirstPost(), enabled: false });
  expect(saved.status).toBe(201);
  recipeRowId = saved.body.id;
});

const run = async (id: string) => (await operator.get<DryRunDetail>(`/api/dry-runs/${id}`)).body;
const ended = (id: string) =>
  until(
    async () => {
      const now = await run(id);
      return now.status === 'starting' || now.status === 'running' ? undefined : now;
    },
    'the dry run to end',
    20_000,
  );

describe('a dry run on the real agent', () => {
  it('stops before the like without effects, waits for each Next step by step, and verifies the app on a pass', async () => {
    const { device, ui } = await simulatedPhone(url, operator, 'Pixel dry real', closers);

    // No effects: everything up to the like, then stopped before it; nothing counted, nothing verified.
    const calm = await operator.post<DryRun>('/api/dry-runs', { recipeId: recipeRowId, deviceId: device.id, mode: 'straight', effects: false });
    expect(calm.status).toBe(201);
    const stopped = await ended(calm.body.id);
    expect(stopped).toMatchObject({ status: 'stopped', verified: false });
    expect(stopped.trace.map((step) => `${step.path}:${step.verdict}`)).toEqual(['start:done', '0:done', '1:stopped']);
    const waited = stopped.trace[1]!;
    expect(waited.selector).toMatchObject({ id: expect.stringContaining('row_feed_button_like') });
    expect(waited.matched?.bounds).toBeDefined();
    expect(waited.frameUrl).toMatch(/^\/api\/objects\//);
    expect(waited.hasTree).toBe(true);
    const frame = await operator.get(waited.frameUrl!);
    expect(frame.status).toBe(200);
    const tree = await operator.get<{ nodes: { resourceId: string }[] }>(`/api/dry-runs/${calm.body.id}/steps/${waited.seq}/tree`);
    expect(tree.body.nodes.some((node) => node.resourceId.endsWith(':id/row_feed_button_like'))).toBe(true);
    expect(ui.liked.size).toBe(0);

    // Step by step: the phone waits before each step until Next.
    const stepwise = await operator.post<DryRun>('/api/dry-runs', { recipeId: recipeRowId, deviceId: device.id, mode: 'step', effects: false });
    expect(stepwise.status).toBe(201);
    for (let next = 1; next <= 3; next += 1) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = await run(stepwise.body.id);
      // Nothing runs on its own: the trace grows by one step per Next at most.
      expect(before.trace.length).toBeLessThan(next);
      if (before.status !== 'running' && before.status !== 'starting') break;
      const answer = await operator.post(`/api/dry-runs/${stepwise.body.id}/next`, {});
      expect([202, 409]).toContain(answer.status);
      await until(async () => (await run(stepwise.body.id)).trace.length >= next || (await run(stepwise.body.id)).status === 'stopped', `step ${next}`, 20_000);
    }
    expect((await ended(stepwise.body.id)).status).toBe('stopped');

    // With effects: the like goes in, counts, and the phone's Instagram version and language are verified.
    const real = await operator.post<DryRun>('/api/dry-runs', { recipeId: recipeRowId, deviceId: device.id, mode: 'straight', effects: true });
    expect(real.status).toBe(201);
    const passed = await ended(real.body.id);
    expect(passed).toMatchObject({ status: 'passed', verified: true, actions: { like: 1 } });
    expect(passed.app).toMatchObject({ package: 'com.instagram.android', locale: 'en-US' });
    expect([...ui.liked]).toEqual(['sunny.trails#0']);
    const verifications = await t.db
      .selectFrom('recipeVerifications')
      .select(['recipeId', 'package', 'appVersion', 'locale', 'source'])
      .where('recipeId', '=', 'workspace.like-first-post')
      .execute();
    expect(verifications).toEqual([
      expect.objectContaining({ package: 'com.instagram.android', appVersion: passed.app!.version, locale: 'en-US', source: 'dry_run' }),
    ]);

    // Removing the recipe removes its runs and their screenshots, which no longer count in the storage quota.
    const frames = await t.db.selectFrom('recipeTraceSteps').select('frameKey').where('frameKey', 'is not', null).execute();
    expect(frames.length).toBeGreaterThan(3);
    expect((await operator.delete(`/api/recipes/${recipeRowId}`)).status).toBe(204);
    const left = await t.db
      .selectFrom('storedObjects')
      .select('key')
      .where(
        'key',
        'in',
        frames.map((row) => row.frameKey!),
      )
      .execute();
    expect(left).toEqual([]);
    expect(await t.db.selectFrom('recipeDryRuns').select('id').execute()).toEqual([]);
  });
});
