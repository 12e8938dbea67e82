/**
 * Positional steps under the rules' second revision: a point is tapped only by a step marked positional, only while
 * the screen cannot be read, and never by a step that counts an action. A stored recipe and a studio draft that a
 * console before this revision took with a counted positional step are turned off at start with the sentence naming
 * the field, and kept; saving one now is refused with the same sentence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECIPE_RULES_REVISION } from '@farm/agent-protocol/recipes';
import { checkStoredRecipes } from '../../src/modules/recipes/recipes.service.ts';
import { buildTestApp, inviteVa, signUp, type TestApp } from '../helpers/app.ts';
import { expectError, expectStatus } from '../helpers/assertions.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

const point = { x: 0.06, y: 0.77 };

function recipeDoc(id: string, steps: unknown[]) {
  return {
    id,
    version: 1,
    name: 'Like the first post',
    platform: 'instagram',
    routines: ['warmup'],
    app: { package: 'com.instagram.android', writtenFor: '410.0.0.0.96' },
    steps: [{ do: 'open_app' }, ...steps],
  };
}

const positionalTap = { do: 'tap', target: { point }, positional: true, label: 'No unique selector here: tapped only while the screen cannot be read' };
const countedTap = { ...positionalTap, counts: 'like' };
const reason = 'A step that counts a like cannot tap a point: give it a selector and leave out "positional".';

describe('positional steps in stored recipes and drafts', () => {
  it('turns off a stored recipe and a draft whose positional step counts a like, with the sentence, and keeps both', async () => {
    expect(RECIPE_RULES_REVISION).toBeGreaterThanOrEqual(2);
    const operator = await signUp(t.app);
    const va = await inviteVa(t.app, operator);
    const workspaceId = operator.user!.workspaceId!;

    // Saved now: a counted positional step is refused, naming the field.
    expectError(
      await operator.post('/api/recipes', { recipe: recipeDoc('studio.like.counted', [countedTap]) }),
      400,
      `The recipe is not valid: steps.1.positional: ${reason}`,
    );

    const stored = await operator.post<{ id: string }>('/api/recipes', {
      recipe: recipeDoc('farm.instagram.like', [{ do: 'tap', target: { id: 'row_feed_button_like' }, counts: 'like' }]),
    });
    const draft = await va.post<{ id: string }>('/api/recipes', { recipe: recipeDoc('studio.like.draft', [positionalTap]), enabled: false });
    const plain = await va.post<{ id: string }>('/api/recipes', { recipe: recipeDoc('studio.scroll.draft', [positionalTap]), enabled: false });
    expectStatus(stored, 201);
    expectStatus(draft, 201);
    expectStatus(plain, 201);

    // As an older console stored them: the positional step counts a like, and revision 1 passed them.
    for (const [row, id] of [
      [stored.body.id, 'farm.instagram.like'],
      [draft.body.id, 'studio.like.draft'],
    ] as const)
      await t.db
        .updateTable('workspaceRecipes')
        .set({ body: JSON.stringify(recipeDoc(id, [countedTap])), rulesChecked: 1 })
        .where('id', '=', row)
        .execute();
    await t.db.updateTable('workspaceRecipes').set({ rulesChecked: 1 }).where('id', '=', plain.body.id).execute();

    expect(await checkStoredRecipes(t.app.ctx, t.app.log, { workspaceId })).toBe(2);

    const listed = await operator.get<{ recipes: { id: string; enabled: boolean; invalid: { field: string; reason: string } | null }[] }>('/api/recipes');
    expectStatus(listed, 200);
    const byId = new Map(listed.body.recipes.map((recipe) => [recipe.id, recipe]));
    expect(byId.get(stored.body.id)).toMatchObject({ enabled: false, invalid: { field: 'steps.1.positional', reason } });
    expect(byId.get(draft.body.id)).toMatchObject({ enabled: false, invalid: { field: 'steps.1.positional', reason } });
    // A positional step that counts nothing is within the rule: the draft stays as it was.
    expect(byId.get(plain.body.id)).toMatchObject({ enabled: false, invalid: null });

    // Never deleted: both rows and their documents are still there, checked against this revision.
    const rows = await t.db
      .selectFrom('workspaceRecipes')
      .select(['id', 'rulesChecked', 'invalidReason'])
      .where('id', 'in', [stored.body.id, draft.body.id, plain.body.id])
      .orderBy('recipeId')
      .execute();
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.rulesChecked === RECIPE_RULES_REVISION)).toBe(true);
    const detail = await operator.get<{ body: { steps: Record<string, unknown>[] } }>(`/api/recipes/${draft.body.id}`);
    expectStatus(detail, 200);
    expect(detail.body.body.steps[1]).toEqual(countedTap);

    const audit = await t.db
      .selectFrom('auditLog')
      .select(['entityId', 'data'])
      .where('workspaceId', '=', workspaceId)
      .where('action', '=', 'recipe.invalid')
      .orderBy('entityId')
      .execute();
    expect(audit.map((entry) => entry.data)).toEqual([
      { field: 'steps.1.positional', reason },
      { field: 'steps.1.positional', reason },
    ]);

    // Turned off, it stays off: turning it on is refused with the sentence until it is mended.
    expectError(
      await operator.patch(`/api/recipes/${stored.body.id}`, { enabled: true }),
      400,
      `This recipe fails the schema at steps.1.positional: ${reason}. Mend it and add it again as a new version.`,
    );
    // A second start reads nothing again and writes nothing.
    expect(await checkStoredRecipes(t.app.ctx, t.app.log, { workspaceId })).toBe(0);
  });
});
