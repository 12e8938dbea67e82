/**
 * The breaker end to end, from phones' sockets: three phones with one Instagram version report that a recipe no longer
 * matches the app; the workspace pauses it for that version, the fourth phone's work waits, and an operator turns it
 * back on (its work goes out at once). With the recipe settings of Campaigns → Recipes and the start-up check of
 * stored recipes.
 */
import { describe, expect, it } from 'vitest';
import type { RecipeList, Task } from '@farm/contracts';
import { expectError } from '../helpers/assertions.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { checkStoredRecipes } from '../../src/modules/recipes/recipes.service.ts';
import { bareAgent, duePostTask, enrolledPhone, helloV1, send } from './phones.ts';
import { connected, next, pause, record } from './sockets.ts';

const IG = 'com.instagram.android';
const { t, url, operator, va, sockets } = await realtimeApp({
  automation: { ackTimeoutMs: 2000, progressWindowMs: 5000, heartbeatMs: 1000, backoffBaseMs: 0 },
});

const recipes = async () => (await operator.get<RecipeList>('/api/recipes')).body;

/** A protocol 2 phone whose hello says it has Instagram at `version`. */
async function phoneWith(name: string, version: string) {
  const { device, token } = await enrolledPhone(operator, { name });
  const socket = bareAgent(url, token);
  sockets.push(socket);
  await connected(socket);
  await send(socket, 'agent.hello', { ...helloV1, protocol: 2, apps: [{ package: IG, version }] });
  return { device, socket };
}

interface Dispatch {
  taskId: string;
  attempt: number;
}

describe('the breaker, from phones', () => {
  it('pauses a recipe on the third phone that says it no longer matches one app version, holds the work there, and resumes it', async () => {
    const version = '430.0.0.1.1';
    for (let i = 1; i <= 3; i += 1) {
      const { device, socket } = await phoneWith(`Pixel broken ${i}`, version);
      const dispatched = next<Dispatch>(socket, 'task.dispatch');
      await duePostTask(t, operator, device.id);
      const given = await dispatched;
      await send(socket, 'task.ack', { taskId: given.taskId, attempt: given.attempt });
      expect(
        await send(socket, 'task.result', {
          taskId: given.taskId,
          attempt: given.attempt,
          status: 'failed',
          failure: { code: 'app_changed', message: 'Five misses in a row', recipe: { id: 'instagram.post', version: 1 }, app: { package: IG, version } },
        }),
      ).toEqual({ ok: true });
      expect((await recipes()).breakers).toHaveLength(i === 3 ? 1 : 0);
    }
    const [paused] = (await recipes()).breakers;
    expect(paused).toMatchObject({ recipeId: 'instagram.post', appPackage: IG, appVersion: version, phones: 3, paused: true });
    const feed = (await operator.get<{ action: string }[]>('/api/activities?limit=20')).body;
    expect(feed.some((entry) => entry.action.startsWith('Recipe "Instagram publish a post" paused for com.instagram.android 430.0.0.1.1'))).toBe(true);

    // A fourth phone with that version waits; one with another version gets its work.
    const waiting = await phoneWith('Pixel waiting', version);
    const seen = record(waiting.socket);
    const { task } = await duePostTask(t, operator, waiting.device.id);
    const other = await phoneWith('Pixel other version', '430.0.0.1.2');
    const otherDispatched = next<Dispatch>(other.socket, 'task.dispatch');
    await duePostTask(t, operator, other.device.id);
    await otherDispatched;
    await pause(300);
    expect(seen.get('task.dispatch')).toBeUndefined();
    expect((await operator.get<Task>(`/api/tasks/${task.id}`)).body).toMatchObject({ status: 'pending', progressNote: 'Recipe paused for this app version' });
    expect((await recipes()).breakers[0]!.waitingTasks).toBe(1);

    // A VA may not turn it back on; an operator may, once, and the waiting phone gets its work at once.
    expectError(await va.post(`/api/recipes/breakers/${paused!.id}/resume`), 403, 'You do not have permission to do this');
    const resumed = next<Dispatch>(waiting.socket, 'task.dispatch');
    expect((await operator.post(`/api/recipes/breakers/${paused!.id}/resume`)).body).toMatchObject({ paused: false });
    expect((await resumed).taskId).toBe(task.id);
    expect((await recipes()).breakers).toEqual([]);
    expectError(await operator.post(`/api/recipes/breakers/${paused!.id}/resume`), 404, 'Not found');
  });
});

describe('recipe settings and stored recipes', () => {
  it('turns templates on untested versions on and off for operators, audited, off by default', async () => {
    expect((await recipes()).settings).toEqual({ tryUntestedTemplates: false });
    expectError(await va.put('/api/recipes/settings', { tryUntestedTemplates: true }), 403, 'You do not have permission to do this');
    expectError(
      await operator.put('/api/recipes/settings', { tryUntestedTemplates: 'yes' }),
      400,
      'Say whether templates may run on app versions no one verified (true or false)',
    );
    expect((await operator.put('/api/recipes/settings', { tryUntestedTemplates: true })).body).toEqual({ tryUntestedTemplates: true });
    expect((await recipes()).settings).toEqual({ tryUntestedTemplates: true });
    const audit = await t.db.selectFrom('auditLog').select(['action', 'data']).where('action', '=', 'recipes.settings').execute();
    expect(audit).toHaveLength(1);
    await operator.put('/api/recipes/settings', { tryUntestedTemplates: false });
    expect(await t.db.selectFrom('auditLog').select('id').where('action', '=', 'recipes.settings').execute()).toHaveLength(2);
  });

  it('turns off a stored recipe the current schema refuses, with the field and the reason, and keeps it', async () => {
    const template = (await operator.get<{ body: Record<string, unknown> }>('/api/recipes/shipped/instagram.post')).body.body;
    const added = await operator.post<{ id: string }>('/api/recipes', { recipe: { ...template, version: 900 } });
    expect(added.status).toBe(201);
    // As if written by an older version of the console that allowed it.
    await t.db
      .updateTable('workspaceRecipes')
      .set({ body: JSON.stringify({ ...template, version: 900, steps: 'not a list' }) })
      .where('id', '=', added.body.id)
      .execute();
    expect(await checkStoredRecipes(t.app.ctx, t.app.log)).toBe(1);
    expect(await checkStoredRecipes(t.app.ctx, t.app.log)).toBe(0);
    const stored = (await recipes()).recipes.find((recipe) => recipe.id === added.body.id);
    expect(stored).toMatchObject({ enabled: false, invalid: { field: 'steps' } });
    expect(stored!.invalid!.reason.length).toBeGreaterThan(0);
    const refused = await operator.patch(`/api/recipes/${added.body.id}`, { enabled: true });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^This recipe fails the schema at steps: .+\. Mend it and add it again as a new version\.$/);
  });
});
