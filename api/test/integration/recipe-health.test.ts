/**
 * The recipe health board (GET /api/recipes/health): runs a protocol 2 phone reports, counted once, per recipe and app
 * version, with their failures, phones and breaker; the fleet's app versions no recipe covers; who may read it, and
 * refusals of a bad range. PGlite, or PostgreSQL with TEST_DB=postgres.
 */
import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shippedRecipes } from '@farm/agent-protocol/recipes';
import type { RecipeHealth } from '@farm/contracts';
import { buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { bareAgent, duePostTask, enrolledPhone, send, until } from '../realtime/phones.ts';
import { listen } from '../realtime/sockets.ts';

let t: TestApp;
let url: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await buildTestApp({ runWorkers: true, redisUrl: undefined });
  url = await listen(t.app);
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.disconnect();
});
afterAll(async () => {
  await t?.close();
});

const recipe = { id: 'instagram.post', version: 1 };
// Versions as `dumpsys package com.instagram.android` reports versionName. The current one is the top of the shipped
// Instagram recipes' tested range (their evidence: fdanobey/InstaAddict@1f82235 CHANGELOG.md, Instagram 447.0.0.55.81).
const current = { package: 'com.instagram.android', version: '447.0.0.55.81' };
const old = { package: 'com.instagram.android', version: '1.0.0.0.1' };

interface Dispatch {
  taskId: string;
  attempt: number;
}

/** A protocol 2 phone of the operator's workspace that says which Instagram it has. */
async function phone(owner: Client, name: string, app: { package: string; version: string }) {
  const { device, token } = await enrolledPhone(owner, { name });
  const dispatches: Dispatch[] = [];
  const socket = bareAgent(url, token);
  sockets.push(socket);
  socket.on('task.dispatch', (message: Dispatch) => dispatches.push(message));
  await until(async () => socket.connected, 'the phone to connect');
  expect(await send(socket, 'agent.hello', { protocol: 2, agentVersion: 'test-v2', battery: 80, apps: [app] })).toMatchObject({ ok: true });
  /** A post task given to this phone, acked. */
  const work = async (caption: string) => {
    const due = await duePostTask(t, owner, device.id, caption);
    const given = await until(async () => dispatches.find((d) => d.taskId === due.task.id), `the task "${caption}" to be dispatched`);
    await send(socket, 'task.ack', given);
    return given;
  };
  return { device, socket, work };
}

const health = async (client: Client, query = '') => {
  const answer = await client.get<RecipeHealth>(`/api/recipes/health${query}`);
  expectStatus(answer, 200);
  return answer.body;
};

describe('the recipe health board', () => {
  it('shows each recipe by app version: runs counted once, failures with their evidence, phones, breaker', async () => {
    const { operator, va, stranger } = await people(t.app);
    const a = await phone(operator, 'Pixel A', current);
    const b = await phone(operator, 'Pixel B', current);

    const first = await a.work('First');
    const done = { ...first, status: 'completed', run: { recipe, app: current, durationMs: 40_000 } };
    expect(await send(a.socket, 'task.result', done)).toMatchObject({ ok: true });
    // The same result again (a reconnect, a lost answer) is not a second run.
    expect(await send(a.socket, 'task.result', done)).toMatchObject({ ok: true });

    const second = await b.work('Second');
    expect(
      await send(b.socket, 'task.result', {
        ...second,
        status: 'failed',
        failure: { code: 'element_missing', message: 'Share: no element matched', retryable: false, recipe, app: current },
        run: { recipe, app: current, durationMs: 50_000 },
      }),
    ).toMatchObject({ ok: true });

    // An older protocol 2 agent: no run, but the failure names the recipe and the app (counted, untimed).
    const third = await a.work('Third');
    expect(
      await send(a.socket, 'task.result', { ...third, status: 'failed', failure: { code: 'app_changed', message: 'Unknown screen', recipe, app: current } }),
    ).toMatchObject({ ok: true });

    const board = await health(operator);
    expect(board).toMatchObject({ range: '7d', timeZone: 'UTC' });
    expect(board.recipes).toHaveLength(1);
    const row = board.recipes[0]!;
    expect(row).toMatchObject({
      recipeId: 'instagram.post',
      recipeName: 'Instagram publish a post',
      platform: 'instagram',
      appPackage: current.package,
      appVersion: current.version,
      runs: 3,
      succeeded: 1,
      failed: 2,
      successRate: 33.3,
      phones: { count: 2, names: ['Pixel A', 'Pixel B'] },
      breaker: { state: 'on', breakerId: null },
    });
    expect(row.failureReasons).toEqual([
      { code: 'app_changed', label: expect.any(String), count: 1 },
      { code: 'element_missing', label: expect.any(String), count: 1 },
    ]);
    // Two timed runs, one in 30–60 s: the estimate falls inside it.
    expect(row.medianDurationMs).toBeGreaterThanOrEqual(30_000);
    expect(row.medianDurationMs).toBeLessThanOrEqual(60_000);
    expect(row.lastFailures.map((failure) => [failure.taskId, failure.deviceName, failure.code, failure.message])).toEqual([
      [third.taskId, 'Pixel A', 'app_changed', 'Unknown screen'],
      [second.taskId, 'Pixel B', 'element_missing', 'Share: no element matched'],
    ]);
    expect(row.lastFailures[0]).toMatchObject({ taskTitle: expect.any(String), recipeVersion: 1 });

    // Every range answers the same runs today; a VA reads it too; another workspace sees none of it.
    for (const range of ['24h', '30d', '90d']) expect((await health(operator, `?range=${range}`)).recipes[0]).toMatchObject({ runs: 3 });
    expect((await health(va)).recipes.map((item) => item.runs)).toEqual([3]);
    const theirs = await health(stranger);
    expect(theirs.recipes).toEqual([]);
    expect(theirs.uncovered).toEqual([]);

    // An operator turned a tripped breaker back on: the board says who and when.
    const workspaceId = (await t.db.selectFrom('devices').select('workspaceId').where('id', '=', a.device.id).executeTakeFirstOrThrow()).workspaceId;
    const operatorId = (
      await t.db
        .selectFrom('workspaceMembers as m')
        .innerJoin('users as u', 'u.id', 'm.userId')
        .select('u.id')
        .where('m.workspaceId', '=', workspaceId)
        .where('u.name', '=', 'Olga Operator')
        .executeTakeFirstOrThrow()
    ).id;
    await t.db
      .insertInto('recipeBreakers')
      .values({
        workspaceId,
        recipeId: recipe.id,
        recipeName: 'Instagram publish a post',
        platform: 'instagram',
        routines: ['create_post'],
        package: current.package,
        appVersion: current.version,
        paused: false,
        phones: 3,
        resumedAt: new Date(),
        resumedBy: operatorId,
      })
      .execute();
    expect((await health(operator)).recipes[0]!.breaker).toMatchObject({ state: 'resumed', phones: 3, resumedBy: { id: operatorId, name: 'Olga Operator' } });

    // A tripped breaker on a version that ran nothing in the window is still on the board.
    await t.db
      .insertInto('recipeBreakers')
      .values({
        workspaceId,
        recipeId: recipe.id,
        recipeName: 'Instagram publish a post',
        platform: 'instagram',
        routines: ['create_post'],
        package: current.package,
        appVersion: '361.0.0.1.1',
        phones: 3,
      })
      .execute();
    const paused = (await health(operator)).recipes.find((item) => item.appVersion === '361.0.0.1.1');
    expect(paused).toMatchObject({ runs: 0, successRate: 0, medianDurationMs: null, breaker: { state: 'tripped', resumedBy: null } });
  });

  it('lists the app versions the fleet has that no recipe covers, until an operator verifies a stored recipe on one', async () => {
    const { operator } = await people(t.app);
    const first = await phone(operator, 'Old Instagram 1', old);
    await phone(operator, 'Old Instagram 2', old);
    await phone(operator, 'Current Instagram', current);
    const board = await health(operator);
    const uncovered = board.uncovered.find((item) => item.appVersion === old.version);
    expect(uncovered).toMatchObject({
      appPackage: old.package,
      platform: 'instagram',
      phones: { count: 2, names: ['Old Instagram 1', 'Old Instagram 2'] },
      untestedAllowed: false,
    });
    expect(uncovered!.routines).toContain('create_post');
    // A tested version is covered by every template but the post's, which acts on what no public source shows (the
    // old upload banner's discard button): listed until the workspace verifies it or lets untested templates run.
    expect(board.uncovered.find((item) => item.appVersion === current.version)?.routines).toEqual(['create_post']);

    const workspaceId = (await t.db.selectFrom('devices').select('workspaceId').where('id', '=', first.device.id).executeTakeFirstOrThrow()).workspaceId;
    const template = shippedRecipes().find((one) => one.id === 'instagram.post')!;
    const stored = async (version: number, enabled: boolean) =>
      (
        await t.db
          .insertInto('workspaceRecipes')
          .values({
            workspaceId,
            recipeId: template.id,
            version,
            name: template.name,
            platform: template.platform,
            routines: [...template.routines],
            body: JSON.stringify({ ...template, version }),
            enabled,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const verify = (recipeRowId: string, recipeVersion: number) =>
      t.db
        .insertInto('recipeVerifications')
        .values({ workspaceId, recipeRowId, recipeId: template.id, recipeVersion, package: old.package, appVersion: old.version, source: 'dry_run' })
        .execute();
    // A verification of an old version (turned off) covers neither the version on now nor the template of its id.
    await verify(await stored(3, false), 3);
    const current4 = await stored(4, true);
    expect((await health(operator)).uncovered.find((item) => item.appVersion === old.version)?.routines).toContain('create_post');
    await verify(current4, 4);
    const after = (await health(operator)).uncovered.find((item) => item.appVersion === old.version);
    expect(after?.routines ?? []).not.toContain('create_post');
  });

  it('refuses a range it does not know, naming the field', async () => {
    const { operator, anonymous } = await people(t.app);
    expectFieldError(await operator.get('/api/recipes/health?range=1y'), 'range', 'Time range must be one of 24h, 7d, 30d or 90d');
    expectStatus(await anonymous.get('/api/recipes/health'), 401);
  });
});
