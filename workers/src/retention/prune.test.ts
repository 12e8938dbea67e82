import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../db.ts';
import { storedFiles } from '../files.ts';
import { device, recorder, useTestDatabase, workspace } from '../../test/farm.ts';
import { processRetentionPrune, RECIPE_RUN_DAYS } from './prune.ts';

let db: Db;
let dataDir: string;
useTestDatabase((opened) => (db = opened));
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'farm-retention-'));
  mkdirSync(join(dataDir, 'objects'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const daysAgo = (days: number, minutes = 0) => new Date(Date.now() - days * 86_400_000 - minutes * 60_000);

/** A screenshot of the phone taken at `at`, with its file on disk. */
async function screenshot(workspaceId: string, deviceId: string, at: Date): Promise<string> {
  const key = randomUUID();
  writeFileSync(join(dataDir, 'objects', key), 'jpeg');
  await db.insertInto('storedObjects').values({ key, workspaceId, contentType: 'image/jpeg', size: 4, uploadedAt: at }).execute();
  await db.insertInto('screenshots').values({ workspaceId, deviceId, objectKey: key, capturedAt: at }).execute();
  return key;
}

describe('retention', () => {
  it('prunes each workspace by its own settings: screenshots by age and per phone with their files, activity, finished tasks', async () => {
    const strict = await workspace(db, 'Strict');
    const lenient = await workspace(db, 'Lenient');
    await db
      .updateTable('workspaces')
      .set({ keepScreenshotsDays: 1, keepScreenshotsPerDevice: 10, keepActivityDays: 7, keepFinishedTasksDays: 7 })
      .where('id', '=', strict)
      .execute();
    const phone = await device(db, strict);
    const other = await device(db, lenient, { name: 'Pixel 9' });

    const old = [await screenshot(strict, phone.id, daysAgo(2)), await screenshot(strict, phone.id, daysAgo(3))];
    const recent: string[] = [];
    for (let i = 0; i < 14; i += 1) recent.push(await screenshot(strict, phone.id, daysAgo(0, i * 5)));
    const theirs = await screenshot(lenient, other.id, daysAgo(5));

    await db
      .insertInto('activities')
      .values([
        { workspaceId: strict, action: 'old news', createdAt: daysAgo(8) },
        { workspaceId: strict, action: 'this week', createdAt: daysAgo(2) },
        { workspaceId: lenient, action: 'theirs, old', createdAt: daysAgo(8) },
      ])
      .execute();
    await db
      .insertInto('deviceUsage')
      .values([
        { workspaceId: strict, deviceId: phone.id, userName: 'Olga', mode: 'watch', startedAt: daysAgo(9), endedAt: daysAgo(8), seenAt: daysAgo(8) },
        { workspaceId: strict, deviceId: phone.id, userName: 'Olga', mode: 'control', startedAt: daysAgo(2), endedAt: daysAgo(2), seenAt: daysAgo(2) },
        { workspaceId: lenient, deviceId: other.id, userName: 'Lena', mode: 'watch', startedAt: daysAgo(9), endedAt: daysAgo(8), seenAt: daysAgo(8) },
      ])
      .execute();
    // Last changed when inserted (an update would stamp now).
    const task = (status: 'completed' | 'failed' | 'pending', workspaceId: string, title: string, age: number) => ({
      workspaceId,
      title,
      type: 'engage' as const,
      priority: 'low' as const,
      status,
      work: JSON.stringify({ kind: 'manual', description: null }),
      updatedAt: daysAgo(age),
    });
    await db
      .insertInto('tasks')
      .values([
        task('completed', strict, 'done long ago', 30),
        task('failed', strict, 'failed long ago', 30),
        task('pending', strict, 'still waiting', 30),
        task('completed', strict, 'done today', 0),
        task('completed', lenient, 'theirs', 30),
      ])
      .execute();

    const report = await processRetentionPrune(undefined, { ...recorder(db).deps, files: storedFiles(dataDir) });
    expect(report).toEqual({ screenshots: 6, activities: 1, usage: 1, tasks: 2, recipeRuns: 0, failureTraces: 0, dryRuns: 0, skippedScreenshots: false });
    expect((await db.selectFrom('deviceUsage').select('userName').orderBy('userName').execute()).map((row) => row.userName)).toEqual(['Lena', 'Olga']);

    const kept = (await db.selectFrom('screenshots').select('objectKey').where('deviceId', '=', phone.id).execute()).map((row) => row.objectKey);
    expect(kept.sort()).toEqual(recent.slice(0, 10).sort());
    for (const key of [...old, ...recent.slice(10)]) {
      expect(existsSync(join(dataDir, 'objects', key))).toBe(false);
      expect(await db.selectFrom('storedObjects').select('key').where('key', '=', key).executeTakeFirst()).toBeUndefined();
    }
    for (const key of [...recent.slice(0, 10), theirs]) expect(existsSync(join(dataDir, 'objects', key))).toBe(true);
    expect(
      (await db.selectFrom('activities').select('action').where('action', 'in', ['old news', 'this week', 'theirs, old']).execute())
        .map((row) => row.action)
        .sort(),
    ).toEqual(['theirs, old', 'this week']);
    expect((await db.selectFrom('tasks').select('title').execute()).map((row) => row.title).sort()).toEqual(['done today', 'still waiting', 'theirs']);

    // Nothing left to prune: a second run removes nothing.
    expect(await processRetentionPrune(undefined, { ...recorder(db).deps, files: storedFiles(dataDir) })).toEqual({
      screenshots: 0,
      activities: 0,
      usage: 0,
      tasks: 0,
      recipeRuns: 0,
      failureTraces: 0,
      dryRuns: 0,
      skippedScreenshots: false,
    });
  });

  it('drops recipe run counts older than the health board’s longest range', async () => {
    const ws = await workspace(db);
    const phone = await device(db, ws);
    const key = { workspaceId: ws, recipeId: 'instagram.post', package: 'com.instagram.android', appVersion: '447.0.0.55.81' };
    const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10);
    await db
      .insertInto('recipeRunsDaily')
      .values([
        { ...key, day: day(RECIPE_RUN_DAYS + 5), runs: 1, succeeded: 1 },
        { ...key, day: day(10), runs: 2, succeeded: 2 },
      ])
      .execute();
    await db
      .insertInto('recipeRunDevices')
      .values([
        { ...key, day: day(RECIPE_RUN_DAYS + 5), deviceId: phone.id },
        { ...key, day: day(10), deviceId: phone.id },
      ])
      .execute();
    expect(await processRetentionPrune(undefined, recorder(db).deps)).toMatchObject({ recipeRuns: 2 });
    expect(await db.selectFrom('recipeRunsDaily').select('runs').where('workspaceId', '=', ws).execute()).toEqual([{ runs: 2 }]);
    expect(await db.selectFrom('recipeRunDevices').select('deviceId').where('workspaceId', '=', ws).execute()).toHaveLength(1);
  });

  it('removes dry runs older than the screenshots with their steps and screenshots; a run under way stays', async () => {
    const ws = await workspace(db);
    await db.updateTable('workspaces').set({ keepScreenshotsDays: 3 }).where('id', '=', ws).execute();
    const phone = await device(db, ws);
    const recipe = await db
      .insertInto('workspaceRecipes')
      .values({ workspaceId: ws, recipeId: 'instagram.like', version: 1, name: 'Like', platform: 'instagram', routines: ['basic'], body: '{}' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const run = async (status: 'passed' | 'running', age: number) => {
      const row = await db
        .insertInto('recipeDryRuns')
        .values({
          workspaceId: ws,
          recipeRowId: recipe.id,
          recipeId: 'instagram.like',
          recipeVersion: 1,
          deviceId: status === 'running' ? phone.id : null,
          startedById: null,
          accountId: null,
          mode: 'straight',
          effects: false,
          status,
          actions: '{}',
          startedAt: daysAgo(age),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const key = randomUUID();
      writeFileSync(join(dataDir, 'objects', key), 'jpeg');
      await db
        .insertInto('storedObjects')
        .values({ key, workspaceId: ws, contentType: 'image/jpeg', size: 4, uploadedAt: daysAgo(age) })
        .execute();
      await db
        .insertInto('recipeTraceSteps')
        .values({ dryRunId: row.id, workspaceId: ws, seq: 1, path: '0', do: 'tap', verdict: 'done', frameKey: key, frameSize: 4, tree: '{}', treeBytes: 2 })
        .execute();
      return { id: row.id, key };
    };
    const old = await run('passed', 5);
    const fresh = await run('passed', 1);
    const going = await run('running', 5);
    expect(await processRetentionPrune(undefined, { ...recorder(db).deps, files: storedFiles(dataDir) })).toMatchObject({ dryRuns: 1 });
    const left = (await db.selectFrom('recipeDryRuns').select('id').where('workspaceId', '=', ws).execute()).map((row) => row.id).sort();
    expect(left).toEqual([fresh.id, going.id].sort());
    expect(await db.selectFrom('recipeTraceSteps').select('seq').where('dryRunId', '=', old.id).execute()).toEqual([]);
    expect(existsSync(join(dataDir, 'objects', old.key))).toBe(false);
    expect(await db.selectFrom('storedObjects').select('key').where('key', '=', old.key).executeTakeFirst()).toBeUndefined();
    for (const key of [fresh.key, going.key]) expect(existsSync(join(dataDir, 'objects', key))).toBe(true);
  });

  it('keeps screenshots where it cannot reach their files', async () => {
    const ws = await workspace(db);
    await db.updateTable('workspaces').set({ keepScreenshotsDays: 1 }).where('id', '=', ws).execute();
    const phone = await device(db, ws);
    const key = await screenshot(ws, phone.id, daysAgo(4));
    expect(await processRetentionPrune(undefined, recorder(db).deps)).toMatchObject({ screenshots: 0, skippedScreenshots: true });
    expect(existsSync(join(dataDir, 'objects', key))).toBe(true);
  });
});
