/**
 * The recipe health board's counts, against a real database (PGlite always, PostgreSQL when TEST_DB=postgres): a run
 * is counted once per attempt, whichever way its result is written and however often the phone sends it.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { Outboxes } from '../outbox.ts';
import { device, publishTask, reportResult, useTestDatabase, workspace } from '../../test/farm.ts';
import { acceptResults, dispatchNext, type PhoneResult } from './lifecycle.ts';
import { bucketOf, medianOf, RUN_MS_BOUNDS, RUN_MS_BUCKETS } from './runs.ts';

let db: Db;
useTestDatabase((opened) => (db = opened), { quick: true });

const recipe = { id: 'instagram.create_post', version: 3 };
const app = { package: 'com.instagram.android', version: '312.0.0.32.112' };

async function given(ws: string, deviceId: string) {
  const task = await publishTask(db, ws, deviceId);
  const leased = await dispatchNext(db, deviceId);
  expect(leased?.id).toBe(task.id);
  return task.id;
}

const one = async (deviceId: string, result: PhoneResult) => (await reportResult(db, deviceId, result)).verdict;
const together = (ws: string, results: { deviceId: string; result: PhoneResult }[]) =>
  db.transaction().execute((tx) =>
    acceptResults(
      tx,
      results.map((r) => ({ ...r, workspaceId: ws })),
      new Outboxes(),
    ),
  );

// The codes as text: the database layer would rename the document's keys to camelCase.
const days = async (ws: string) =>
  (
    await db
      .selectFrom('recipeRunsDaily')
      .select(['recipeId', 'package', 'appVersion', 'runs', 'succeeded', 'failed', 'timedRuns', 'durationMsSum', 'durationBuckets'])
      .select(sql<string>`failure_codes::text`.as('codes'))
      .where('workspaceId', '=', ws)
      .orderBy('package')
      .execute()
  ).map(({ codes, ...row }) => ({ ...row, failureCodes: JSON.parse(codes) as Record<string, number> }));
const phones = (ws: string) => db.selectFrom('recipeRunDevices').select(['deviceId', 'package']).where('workspaceId', '=', ws).execute();

describe('recipe run counts', () => {
  it('counts a completed run once, however often the phone sends its result', async () => {
    const ws = await workspace(db);
    const phone = await device(db, ws);
    const taskId = await given(ws, phone.id);
    const result: PhoneResult = { taskId, attempt: 1, status: 'completed', run: { recipe, app, durationMs: 42_000 } };
    expect((await one(phone.id, result)).kind).toBe('settled');
    expect((await one(phone.id, result)).kind).toBe('ignored');
    await together(ws, [{ deviceId: phone.id, result }]);
    const [row, ...rest] = await days(ws);
    expect(rest).toHaveLength(0);
    expect(row).toMatchObject({ recipeId: recipe.id, package: app.package, appVersion: app.version, runs: 1, succeeded: 1, failed: 0, timedRuns: 1 });
    expect(Number(row!.durationMsSum)).toBe(42_000);
    expect(row!.durationBuckets[bucketOf(42_000)]).toBe(1);
    expect(await phones(ws)).toEqual([{ deviceId: phone.id, package: app.package }]);
    const attempt = await db.selectFrom('taskAttempts').selectAll().where('taskId', '=', taskId).executeTakeFirstOrThrow();
    expect(attempt).toMatchObject({ recipeId: recipe.id, recipeVersion: 3, appPackage: app.package, appVersion: app.version, runMs: 42_000 });
  });

  it('counts runs written together once, and sums a day of them by recipe and app version', async () => {
    const ws = await workspace(db);
    const a = await device(db, ws, { name: 'Pixel 7 #01' });
    const b = await device(db, ws, { name: 'Pixel 7 #02' });
    const first = await given(ws, a.id);
    const second = await given(ws, b.id);
    const results = [
      { deviceId: a.id, result: { taskId: first, attempt: 1, status: 'completed' as const, run: { recipe, app, durationMs: 1_000 } } },
      { deviceId: b.id, result: { taskId: second, attempt: 1, status: 'completed' as const, run: { recipe, app, durationMs: 3_000 } } },
    ];
    await together(ws, results);
    await together(ws, results);
    await one(a.id, results[0]!.result);
    const [row] = await days(ws);
    expect(row).toMatchObject({ runs: 2, succeeded: 2, timedRuns: 2 });
    expect(Number(row!.durationMsSum)).toBe(4_000);
    expect(row!.durationBuckets.slice(0, 2)).toEqual([1, 1]);
    expect((await phones(ws)).map((p) => p.deviceId).sort()).toEqual([a.id, b.id].sort());
  });

  it('counts failures by code, and the recipe a failure names when an older agent sends no run', async () => {
    const ws = await workspace(db);
    const phone = await device(db, ws);
    const broken = await given(ws, phone.id);
    await one(phone.id, {
      taskId: broken,
      attempt: 1,
      status: 'failed',
      failure: { code: 'element_missing', message: 'Share button not found', retryable: false },
      run: { recipe, app, durationMs: 8_000 },
    });
    const older = await given(ws, phone.id);
    const olderResult: PhoneResult = { taskId: older, attempt: 1, status: 'failed', failure: { code: 'app_changed', recipe, app } };
    await one(phone.id, olderResult);
    await one(phone.id, olderResult);
    const locked = await given(ws, phone.id);
    await one(phone.id, {
      taskId: locked,
      attempt: 1,
      status: 'failed',
      failure: { code: 'device_locked', retryable: false },
      run: { recipe, durationMs: 500 },
    });
    // A task no recipe ran (a person's, or an agent before recipes) is not counted.
    const plain = await given(ws, phone.id);
    await one(phone.id, { taskId: plain, attempt: 1, status: 'completed' });

    const rows = await days(ws);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ package: '', appVersion: '', runs: 1, failed: 1, failureCodes: { device_locked: 1 } });
    expect(rows[1]).toMatchObject({
      package: app.package,
      runs: 2,
      succeeded: 0,
      failed: 2,
      timedRuns: 1,
      failureCodes: { element_missing: 1, app_changed: 1 },
    });
  });

  it('counts a run once when the same result arrives twice at the same moment, one by one and in a batch', async () => {
    const ws = await workspace(db);
    const phone = await device(db, ws);
    const taskId = await given(ws, phone.id);
    const result: PhoneResult = { taskId, attempt: 1, status: 'completed', run: { recipe, app, durationMs: 5_000 } };
    await Promise.all([one(phone.id, result), together(ws, [{ deviceId: phone.id, result }]), one(phone.id, result)]);
    const rows = await days(ws);
    expect(rows.map((row) => [row.runs, row.succeeded, row.timedRuns])).toEqual([[1, 1, 1]]);
  });

  it('estimates the median from the buckets', () => {
    expect(RUN_MS_BUCKETS).toBe(RUN_MS_BOUNDS.length + 1);
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(1_999)).toBe(0);
    expect(bucketOf(2_000)).toBe(1);
    expect(bucketOf(10 * 3_600_000)).toBe(RUN_MS_BOUNDS.length);
    expect(medianOf(new Array<number>(RUN_MS_BUCKETS).fill(0))).toBeNull();
    const buckets = new Array<number>(RUN_MS_BUCKETS).fill(0);
    buckets[bucketOf(40_000)] = 4; // 30 s – 60 s
    expect(medianOf(buckets)).toBe(45_000);
    const last = new Array<number>(RUN_MS_BUCKETS).fill(0);
    last[RUN_MS_BOUNDS.length] = 1;
    expect(medianOf(last)).toBe(7_200_000);
  });
});
