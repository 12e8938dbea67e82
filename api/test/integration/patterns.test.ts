/**
 * Patterns from requests and recipes, as the attacks they are. `(a+)+$` over a saved node text of 1,000 a's and a
 * "!" took JavaScript's backtracking RegExp into years and held the event loop for every workspace; RE2 answers at
 * once, and a read sent meanwhile is not held behind it. A pattern RE2 cannot run is refused naming its field, when a
 * recipe is saved and when a capture is checked; so are media in a recipe's defaults and a share activity with `$`.
 * A recipe stored by an older console with such a pattern is turned off at start, with its sentence and an audit entry.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECIPE_RULES_REVISION } from '@farm/agent-protocol/recipes';
import type { SelectorCheck, UiCaptureDetail } from '@farm/contracts';
import { checkStoredRecipes } from '../../src/modules/recipes/recipes.service.ts';
import { storedRecipesToCheck } from '../../src/modules/recipes/recipes.queries.ts';
import { buildTestApp, inviteVa, signUp, type TestApp } from '../helpers/app.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildDevice } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

const evil = `${'a'.repeat(999)}!`;
const jpeg = `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 0xff, 0xd9]).toString('base64')}`;

/** A saved screen of `rows` nodes whose text is 999 a's and a "!" (1,000 characters, the capture limit of a node's text). */
function longTextTree(rows: number) {
  const node = (at: number, parent: number, text: string) => ({
    text,
    resourceId: '',
    className: 'android.widget.TextView',
    packageName: 'com.instagram.android',
    desc: '',
    clickable: false,
    scrollable: false,
    selected: false,
    checked: false,
    enabled: true,
    focused: false,
    bounds: { left: 0, top: at % 2000, right: 1080, bottom: (at % 2000) + 10 },
    index: at,
    depth: parent < 0 ? 0 : 1,
    parent,
  });
  return {
    nodes: [node(0, -1, ''), ...Array.from({ length: rows - 1 }, (_, at) => node(at + 1, 0, evil))],
    packageName: 'com.instagram.android',
    width: 1080,
    height: 2400,
  };
}

function recipeDoc(overrides: Record<string, unknown> = {}) {
  return {
    id: 'farm.instagram.like',
    version: 1,
    name: 'Like',
    platform: 'instagram',
    routines: ['basic'],
    app: { package: 'com.instagram.android', writtenFor: '360.0.0.52.192' },
    steps: [{ do: 'open_app' }, { do: 'tap', target: { descMatches: '^like$' } }],
    ...overrides,
  };
}

describe('a pattern in a studio check', () => {
  it('matches (a+)+$ over long saved node texts at once, and a read sent meanwhile answers first', async () => {
    const operator = await signUp(t.app);
    const va = await inviteVa(t.app, operator, 'Vic Pattern');
    // The VA's own phone: saved screens are read only by those who may control the phone.
    const phone = await buildDevice(operator, { name: 'Pixel pattern', assignedToId: va.user!.id });
    const saved = await operator.post<UiCaptureDetail>('/api/ui-captures', {
      deviceId: phone.id,
      screenName: 'Feed',
      tree: longTextTree(1500),
      frame: jpeg,
      app: { package: 'com.instagram.android', version: '410.0.0.0.96', locale: 'en-US' },
    });
    expectStatus(saved, 201);
    // Three more app versions of the same screen, copied in the database (saving 3 MB trees one by one is slow).
    await sql`INSERT INTO ui_captures (workspace_id, device_id, created_by_id, screen_name, package, app_version, locale, tree, tree_bytes, frame_key, width, height)
      SELECT workspace_id, device_id, created_by_id, screen_name, package, app_version || '.' || n, locale, tree, tree_bytes, frame_key, width, height
      FROM ui_captures, generate_series(1, 3) AS n WHERE id = ${saved.body.id}`.execute(t.db);

    const order: string[] = [];
    const started = Date.now();
    const check = va
      .post<SelectorCheck>('/api/ui-captures/check', { package: 'com.instagram.android', screenName: 'Feed', selector: { textMatches: '(a+)+$' } })
      .then((answer) => {
        order.push('check');
        return answer;
      });
    const read = va.get('/api/devices').then((answer) => {
      order.push('read');
      return answer;
    });
    const [checked, listed] = await Promise.all([check, read]);
    expectStatus(checked, 200);
    expectStatus(listed, 200);
    expect(checked.body.results).toHaveLength(4);
    for (const result of checked.body.results) expect(result).toMatchObject({ matches: 0, finds: false });
    expect(order).toEqual(['read', 'check']);
    // Generous on a shared 2-core machine; under RegExp this answer never came.
    expect(Date.now() - started).toBeLessThan(20_000);

    const found = await va.post<SelectorCheck>('/api/ui-captures/check', {
      package: 'com.instagram.android',
      screenName: 'Feed',
      selector: { textMatches: '(a+)+!$', index: 0 },
    });
    expectStatus(found, 200);
    for (const result of found.body.results) expect(result).toMatchObject({ matches: 1499, finds: true });
  });

  it('refuses a pattern RE2 cannot run, naming the field', async () => {
    const operator = await signUp(t.app);
    const check = (selector: Record<string, unknown>) =>
      operator.post('/api/ui-captures/check', { package: 'com.instagram.android', screenName: 'Feed', selector });
    expectFieldError(
      await check({ textMatches: '(a)\\1' }),
      'selector.textMatches',
      'The pattern in textMatches cannot run: invalid escape sequence: `\\1` (patterns are RE2 syntax: no backreferences such as \\1, no lookaround such as (?=…) or (?<=…)).',
    );
    expectFieldError(
      await check({ descMatches: '(?=a)' }),
      'selector.descMatches',
      'The pattern in descMatches cannot run: invalid or unsupported Perl syntax: `(?=` (patterns are RE2 syntax: no backreferences such as \\1, no lookaround such as (?=…) or (?<=…)).',
    );
    expectFieldError(
      await check({ textMatches: '[a-z]{1000}' }),
      'selector.textMatches',
      'The pattern in textMatches cannot run: it is too complex to match quickly (1002 instructions, at most 300): write a simpler one.',
    );
  });
});

describe('saving a recipe', () => {
  it('refuses a pattern RE2 cannot run, media in defaults and a share activity with $, naming each field', async () => {
    const operator = await signUp(t.app);
    const va = await inviteVa(t.app, operator, 'Vic Recipe');

    const lookahead = await va.post('/api/recipes', {
      enabled: false,
      recipe: recipeDoc({ steps: [{ do: 'tap', target: { textMatches: '(?=like)like' } }] }),
    });
    expectError(
      lookahead,
      400,
      'The recipe is not valid: steps.0.target.textMatches: The pattern in textMatches cannot run: invalid or unsupported Perl syntax: `(?=` (patterns are RE2 syntax: no backreferences such as \\1, no lookaround such as (?=…) or (?<=…)).',
    );
    expect(lookahead.body.details[0].field).toBe('recipe.steps.0.target.textMatches');

    const backreference = await operator.post('/api/recipes', { recipe: recipeDoc({ elements: { like: { descMatches: '(like)\\1' } } }) });
    expectStatus(backreference, 400);
    expect(backreference.body.error).toMatch(
      /^The recipe is not valid: elements\.like\.descMatches: The pattern in descMatches cannot run: invalid escape sequence/,
    );

    const media = await va.post('/api/recipes', { enabled: false, recipe: recipeDoc({ defaults: { media: ['/home/farm/.android/adbkey'] } }) });
    expectError(
      media,
      400,
      "The recipe is not valid: defaults.media: A recipe carries no media: files come only from the work's own uploads, so remove defaults.media.",
    );
    expect(media.body.details[0].field).toBe('recipe.defaults.media');

    const activity = await operator.post('/api/recipes', {
      recipe: recipeDoc({ routines: ['create_post'], steps: [{ do: 'share_media', activity: 'com.instagram.share.Handler$Activity' }] }),
    });
    expectError(
      activity,
      400,
      'The recipe is not valid: steps.0.activity: An activity is a class name like com.instagram.share.handleractivity.ShareHandlerActivity: letters, digits, _ and dots only.',
    );

    expectStatus(await operator.post('/api/recipes', { recipe: recipeDoc() }), 201);
    expect(await t.db.selectFrom('workspaceRecipes').select('id').where('workspaceId', '=', operator.user!.workspaceId!).execute()).toHaveLength(1);
  });
});

describe('stored recipes at start', () => {
  it('turns off a stored recipe whose pattern RE2 cannot run, with its sentence and an audit entry, once', async () => {
    const operator = await signUp(t.app);
    const workspaceId = operator.user!.workspaceId!;
    const good = await operator.post<{ id: string }>('/api/recipes', { recipe: recipeDoc({ id: 'farm.instagram.good' }) });
    const bad = await operator.post<{ id: string }>('/api/recipes', { recipe: recipeDoc({ id: 'farm.instagram.bad' }) });
    expectStatus(good, 201);
    expectStatus(bad, 201);
    // As saved by an older console, whose RegExp took the pattern.
    await t.db
      .updateTable('workspaceRecipes')
      .set({ body: JSON.stringify(recipeDoc({ id: 'farm.instagram.bad', steps: [{ do: 'tap', target: { textMatches: '(a+)+$|(a)\\1' } }] })) })
      .where('id', '=', bad.body.id)
      .execute();

    expect(await checkStoredRecipes(t.app.ctx, t.app.log, { workspaceId })).toBe(1);
    const reason =
      'The pattern in textMatches cannot run: invalid escape sequence: `\\1` (patterns are RE2 syntax: no backreferences such as \\1, no lookaround such as (?=…) or (?<=…)).';
    const listed = await operator.get<{ recipes: { id: string; enabled: boolean; invalid: { field: string; reason: string } | null }[] }>('/api/recipes');
    expectStatus(listed, 200);
    const byId = new Map(listed.body.recipes.map((recipe) => [recipe.id, recipe]));
    expect(byId.get(bad.body.id)).toMatchObject({ enabled: false, invalid: { field: 'steps.0.target.textMatches', reason } });
    expect(byId.get(good.body.id)).toMatchObject({ enabled: true, invalid: null });

    const audit = await t.db
      .selectFrom('auditLog')
      .select(['action', 'entityId', 'data', 'actorId'])
      .where('workspaceId', '=', workspaceId)
      .where('action', '=', 'recipe.invalid')
      .execute();
    expect(audit).toEqual([{ action: 'recipe.invalid', entityId: bad.body.id, data: { field: 'steps.0.target.textMatches', reason }, actorId: null }]);
    const feed = await t.db.selectFrom('activities').select(['action', 'type']).where('workspaceId', '=', workspaceId).where('type', '=', 'warning').execute();
    expect(feed).toContainEqual({
      action: `Recipe "Like" (farm.instagram.bad v1) turned off: this version of the console refuses it at steps.0.target.textMatches: ${reason}`,
      type: 'warning',
    });

    // Idempotent and cheap: a second start reads no document of this workspace and writes nothing.
    expect(await storedRecipesToCheck(t.db, RECIPE_RULES_REVISION, { workspaceId })).toEqual([]);
    expect(await checkStoredRecipes(t.app.ctx, t.app.log, { workspaceId })).toBe(0);
    expect(await checkStoredRecipes(t.app.ctx, t.app.log, { workspaceId, all: true })).toBe(0);
    expect(await t.db.selectFrom('auditLog').select('id').where('workspaceId', '=', workspaceId).where('action', '=', 'recipe.invalid').execute()).toHaveLength(
      1,
    );

    expectError(
      await operator.patch(`/api/recipes/${bad.body.id}`, { enabled: true }),
      400,
      `This recipe fails the schema at steps.0.target.textMatches: ${reason}. Mend it and add it again as a new version.`,
    );
  });
});
