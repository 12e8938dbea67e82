import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadRecipeFiles, resolveRecipe, compareVersions } from './recipe.resolver.ts';
import { recipePackages, testedRange } from './recipe.runner.ts';
import { compatibilityTable, evidenceTables, RECIPES_README, withTable } from './recipe.table.ts';
import { COMMENTS_REFUSED, parseRecipe, recipe as recipeSchema, routineTypes, type Recipe, type RecipeInput } from './recipe.schema.ts';
import { fillTemplate } from './recipe.template.ts';
import { seededRandom } from './recipe.pacing.ts';

const minimal = (overrides: Partial<RecipeInput> = {}): RecipeInput => ({
  id: 'farm.instagram.warmup',
  version: 1,
  name: 'Our warm-up',
  platform: 'instagram',
  routines: ['warmup'],
  app: { package: 'com.instagram.android', writtenFor: '360.0.0.52.192' },
  steps: [{ do: 'open_app' }],
  ...overrides,
});

describe('shipped recipes', () => {
  const shipped = loadRecipeFiles();

  it('every shipped recipe file passes the schema', () => {
    expect(shipped.map((item) => item.file)).toEqual([
      'instagram/engage.json',
      'instagram/post.json',
      'instagram/scroll.json',
      'instagram/warmup.json',
      'tiktok/engage.json',
      'tiktok/post.json',
      'tiktok/scroll.json',
      'tiktok/warmup.json',
    ]);
    for (const { recipe } of shipped) expect(recipeSchema.safeParse(recipe).success).toBe(true);
  });

  it('are templates: unverified, with the app version they were written for', () => {
    for (const { recipe } of shipped) {
      expect(recipe.verified).toBe(false);
      expect(recipe.app.writtenFor).toMatch(/^\d+(\.\d+)+$/);
      expect(recipe.notes).toMatch(/^Template/);
    }
  });

  it('give every selector its evidence: a public repository and path, or a phone measurement', () => {
    const selectorKeys = ['id', 'text', 'textContains', 'desc', 'descContains', 'textMatches', 'descMatches', 'class', 'selected', 'checked'];
    const unproven: string[] = [];
    const walk = (value: unknown, path: string) => {
      if (Array.isArray(value)) {
        for (const [index, item] of value.entries()) walk(item, `${path}.${index}`);
        return;
      }
      if (value === null || typeof value !== 'object') return;
      const record = value as Record<string, unknown>;
      // Steps carry `text` (what to type) but are no selectors.
      if (!('do' in record) && selectorKeys.some((key) => key in record)) {
        const evidence = record.evidence;
        // A repository (at a commit) and a path in it, or a phone; a claim no readable source holds says why instead.
        const named = typeof evidence === 'string' && /(\w[\w.-]*\/[\w.-]+(@[0-9a-f]{7,40})? \S|measured on a phone, app version \S)/.test(evidence);
        if (!named && typeof record.unverified !== 'string') unproven.push(path);
      }
      for (const [key, item] of Object.entries(record)) walk(item, `${path}.${key}`);
    };
    // The recipe itself has an `id` (its name): its fields are walked, not it.
    for (const { file, recipe } of shipped) for (const [key, value] of Object.entries(recipe)) walk(value, `${file}:${key}`);
    expect(unproven).toEqual([]);
  });

  it('state the packages, tested versions and UI language they are for, TikTok both of its packages', () => {
    for (const { recipe } of shipped) {
      expect(recipe.app.locale).toBe('en');
      for (const name of recipePackages(recipe))
        expect(testedRange(recipe, name)).toMatchObject({ min: expect.stringMatching(/^\d/), max: expect.stringMatching(/^\d/) });
      if (recipe.platform === 'tiktok') expect(recipePackages(recipe)).toEqual(['com.zhiliaoapp.musically', 'com.ss.android.ugc.trill']);
    }
  });

  it('match the compatibility table in the README, generated from the files', () => {
    const readme = readFileSync(RECIPES_README, 'utf8');
    expect(readme).toBe(withTable(readme, compatibilityTable(shipped), evidenceTables(shipped)));
    expect(readme).toContain('| tiktok.post v2 | tiktok/post.json | create_post | com.ss.android.ugc.trill | 46.1.3 | en |');
  });

  it('never tap a point on their own: no fallback without a positional step, toggles for likes and follows', () => {
    for (const { file, recipe } of shipped) {
      const text = JSON.stringify(recipe);
      expect(text, file).not.toContain('"fallback"');
      expect(text, file).not.toContain('"point"');
      expect(text.match(/"do":"tap"[^{}]*"counts":"(like|follow)"/g), file).toBeNull();
    }
  });

  it('cover every routine type on Instagram and TikTok', () => {
    for (const platform of ['instagram', 'tiktok'] as const) {
      for (const routine of routineTypes) expect(resolveRecipe({ routine, platform })?.recipe.platform).toBe(platform);
    }
    expect(resolveRecipe({ routine: 'create_post', platform: 'instagram' })?.recipe.id).toBe('instagram.post');
    expect(resolveRecipe({ routine: 'doom_scroll', platform: 'tiktok' })?.recipe.id).toBe('tiktok.scroll');
    expect(resolveRecipe({ routine: 'warmup', platform: 'tinder' })).toBeNull();
  });
});

describe('the recipe schema', () => {
  it('accepts a minimal recipe and fills its defaults', () => {
    const parsed = parseRecipe(minimal());
    expect(parsed).toMatchObject({ ok: true, recipe: { verified: false } });
  });

  it('refuses a recipe that would type comment text, and takes a hand-over in its place', () => {
    const typing = parseRecipe(
      minimal({
        steps: [{ do: 'repeat', times: 1, needs: ['comments'], steps: [{ do: 'type', text: '{{comments|pick}}', counts: 'comment' }] }],
      }),
    );
    expect(typing).toEqual({ ok: false, errors: [`steps.0.needs: ${COMMENTS_REFUSED}`, `steps.0.steps.0.text: ${COMMENTS_REFUSED}`] });
    expect(parseRecipe(minimal({ steps: [{ do: 'hand_over', kind: 'comment', authorIs: '{{accounts|first}}' }] })).ok).toBe(true);
    expect(parseRecipe(minimal({ steps: [{ do: 'hand_over', kind: 'comment' }] }))).toEqual({
      ok: false,
      errors: ['steps.0: A hand_over needs author (an element to read) or authorIs.'],
    });
    expect(parseRecipe(minimal({ steps: [{ do: 'hand_over', kind: 'like', authorIs: 'x' } as never] })).ok).toBe(false);
    // The shipped engage recipes hand comments over and type none.
    for (const { file, recipe } of loadRecipeFiles()) {
      const text = JSON.stringify(recipe);
      expect(text, file).not.toContain('{{comments');
      if (file.endsWith('engage.json')) expect(text, file).toContain('"do":"hand_over"');
    }
  });

  it('refuses unknown elements, parameters, filters and stray braces with readable paths', () => {
    const parsed = parseRecipe(
      minimal({
        steps: [
          { do: 'tap', target: 'like_buton' },
          { do: 'type', text: '{{captoin}} {{hashtags|shout}}' },
          { do: 'type', text: '{{ caption }' },
          { do: 'repeat', each: 'keywords', as: 'keyword', steps: [{ do: 'type', text: '{{keyword}} {{account}}' }] },
          { do: 'type', text: '{{keyword}}' },
        ],
      }),
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors).toEqual([
      'steps.0.target: No element named "like_buton" in this recipe\'s elements.',
      'steps.1.text: "{{captoin}}" is not a parameter or a variable here (parameters: caption, hashtags, media, keywords, accounts, count, minutes, engagement).',
      'steps.1.text: "shout" is not a template filter (use join, lines, first, pick, count).',
      'steps.2.text: "{{ caption }" has a {{ or }} that is not a placeholder like {{caption}}.',
      'steps.3.steps.0.text: "{{account}}" is not a parameter or a variable here (parameters: caption, hashtags, media, keywords, accounts, count, minutes, engagement).',
      'steps.4.text: "{{keyword}}" is not a parameter or a variable here (parameters: caption, hashtags, media, keywords, accounts, count, minutes, engagement).',
    ]);
  });

  it('refuses bad counts, durations, points, reason codes and empty selectors', () => {
    const parsed = parseRecipe(
      minimal({
        steps: [
          { do: 'swipe', direction: 'up', count: '5-12', pause: '2..6 sec' },
          { do: 'tap', target: { point: { x: 1.4, y: 0.5 } } },
          { do: 'expect', target: { id: 'x' }, reason: 'device_offline' as never },
          { do: 'tap', target: { index: 2 } },
          { do: 'repeat', steps: [{ do: 'key', key: 'back' }] },
        ],
      }),
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors).toContain('steps.0.count: Write a count as 5, 5..12 or {{count}}.');
    expect(parsed.errors).toContain('steps.0.pause: Write a duration as 800ms, 2s, 2..6s or 1..3m.');
    expect(parsed.errors.some((error) => error.startsWith('steps.1.target'))).toBe(true);
    expect(parsed.errors.some((error) => error.startsWith('steps.2.reason'))).toBe(true);
    expect(parsed.errors.some((error) => error.startsWith('steps.3.target'))).toBe(true);
    expect(parsed.errors).toContain('steps.4: A repeat needs times, minutes, each or until_spent.');
  });
});

describe('positional steps', () => {
  const errorsOf = (steps: RecipeInput['steps'], extra: Partial<RecipeInput> = {}) => {
    const parsed = parseRecipe(minimal({ steps, ...extra }));
    return parsed.ok ? [] : parsed.errors;
  };
  const point = { x: 0.5, y: 0.5 };

  it('take a point only on a positional tap, long press or type that counts nothing', () => {
    expect(
      errorsOf([
        { do: 'tap', target: { point }, positional: true },
        { do: 'long_press', target: { point }, positional: true },
        { do: 'type', text: 'hi', target: { point }, positional: true },
        { do: 'tap', target: { id: 'feed_tab', fallback: point }, positional: true },
        // A fallback on a step that is not positional, or counts, is never used: it is left alone.
        { do: 'tap', target: { id: 'row_feed_button_like', fallback: point }, counts: 'like' },
      ]),
    ).toEqual([]);
  });

  it('refuses a point on a step that counts, naming the field', () => {
    expect(
      errorsOf(
        [
          { do: 'tap', target: { point }, counts: 'like' },
          { do: 'tap', target: { point }, positional: true, counts: 'follow' },
          { do: 'tap', target: { id: 'row_feed_button_like', fallback: point }, positional: true, counts: 'like' },
          { do: 'type', text: 'Nice', target: { point }, positional: true, counts: 'comment' },
          { do: 'repeat', times: 3, steps: [{ do: 'tap', target: 'like', positional: true, counts: 'like' }] },
        ],
        { elements: { like: { id: 'row_feed_button_like', fallback: point } } },
      ),
    ).toEqual([
      'steps.0.target.point: A step that counts a like cannot tap a point: give it a selector.',
      'steps.1.positional: A step that counts a follow cannot tap a point: give it a selector and leave out "positional".',
      'steps.1.target.point: A step that counts a follow cannot tap a point: give it a selector.',
      'steps.2.positional: A step that counts a like cannot tap a point: give it a selector and leave out "positional".',
      'steps.3.positional: A step that counts a comment cannot type at a point: give it a selector and leave out "positional".',
      'steps.3.target.point: A step that counts a comment cannot type at a point: give it a selector.',
      'steps.4.steps.0.positional: A step that counts a like cannot tap a point: give it a selector and leave out "positional".',
    ]);
  });

  it('refuses a bare point outside a positional step, and wherever something is looked for', () => {
    expect(
      errorsOf(
        [
          { do: 'tap', target: { point } },
          { do: 'wait_for', target: { point } },
          { do: 'when', present: { point }, steps: [{ do: 'key', key: 'back' }] },
          { do: 'tap', target: { id: 'share' }, confirm: { present: { point } } },
        ],
        { guards: [{ when: { point }, reason: 'rate_limited', message: 'Limited.' }], dismiss: [{ point }] },
      ),
    ).toEqual([
      'guards.0.when.point: A point cannot be looked for on screen: give it a selector (id, text or desc).',
      'dismiss.0.point: A point cannot be looked for on screen: give it a selector (id, text or desc).',
      'steps.0.target.point: A point is tapped only by a step marked "positional": true, and only while the screen cannot be read: give this step a selector, or mark it positional.',
      'steps.1.target.point: A point cannot be looked for on screen: give it a selector (id, text or desc).',
      'steps.2.present.point: A point cannot be looked for on screen: give it a selector (id, text or desc).',
      'steps.3.confirm.present.point: A point cannot be looked for on screen: give it a selector (id, text or desc).',
    ]);
  });
});

describe('templates', () => {
  it('fills parameters, lists and filters without evaluating anything', () => {
    const scope = { caption: 'Pier', hashtags: ['#sunset', '#travel'], comments: ['Nice', 'Wow', 'Great'], count: 3 };
    expect(fillTemplate('{{caption}} {{hashtags}}', scope)).toBe('Pier #sunset #travel');
    expect(fillTemplate('{{hashtags|first}}/{{hashtags|count}}/{{count}}', scope)).toBe('#sunset/2/3');
    const random = seededRandom(3);
    const picks = [1, 2, 3, 4, 5, 6].map(() => fillTemplate('{{comments|pick}}', scope, random));
    expect(new Set(picks).size).toBeGreaterThan(1);
    expect(picks.every((pick) => scope.comments.includes(pick))).toBe(true);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a caption that looks like a template literal must stay text
    expect(fillTemplate('{{caption.constructor}} ${process.exit()}', scope)).toBe('{{caption.constructor}} ${process.exit()}');
    expect(() => fillTemplate('{{media}}', scope)).toThrow('The recipe needs "media", which this work does not give.');
  });
});

describe('the resolver', () => {
  const shippedWarmup = resolveRecipe({ routine: 'warmup', platform: 'instagram' })?.recipe as Recipe;
  const override = (input: Partial<RecipeInput>) => recipeSchema.parse(minimal(input));

  it('prefers a workspace recipe that fits over the shipped one', () => {
    const ours = override({});
    expect(resolveRecipe({ routine: 'warmup', platform: 'instagram', appVersion: '361.0.0.1' }, [ours])).toEqual({ recipe: ours, source: 'workspace' });
  });

  it('skips recipes written for other app versions and picks the newest fitting one', () => {
    const old = override({ id: 'farm.old', app: { package: 'com.instagram.android', writtenFor: '250.0', minVersion: '200', belowVersion: '300' } });
    const current = override({ id: 'farm.current', app: { package: 'com.instagram.android', writtenFor: '360.0', minVersion: '350' } });
    expect(resolveRecipe({ routine: 'warmup', platform: 'instagram', appVersion: '280.1' }, [old, current])?.recipe.id).toBe('farm.old');
    expect(resolveRecipe({ routine: 'warmup', platform: 'instagram', appVersion: '362.0.0.33.71' }, [old, current])?.recipe.id).toBe('farm.current');
    expect(resolveRecipe({ routine: 'warmup', platform: 'instagram', appVersion: '120.0' }, [old, current])).toBeNull();
    expect(resolveRecipe({ routine: 'warmup', platform: 'instagram', appVersion: '340.0' }, [old, current])).toEqual({
      recipe: shippedWarmup,
      source: 'shipped',
    });
  });

  it('takes the higher version of the same recipe and ignores other routines and platforms', () => {
    const v1 = override({ id: 'farm.warm', version: 1 });
    const v2 = override({ id: 'farm.warm', version: 2 });
    const tiktok = override({ id: 'farm.tt', platform: 'tiktok' });
    const posting = override({ id: 'farm.post', routines: ['create_post'] });
    expect(resolveRecipe({ routine: 'warmup', platform: 'instagram' }, [v1, tiktok, posting, v2])?.recipe.version).toBe(2);
    expect(compareVersions('364.0.0.35.86', '99.1')).toBe(1);
    expect(compareVersions('3.0', '3')).toBe(0);
  });
});

describe('push_media', () => {
  it('refuses a path on the farm PC at save, and takes a placeholder of the task media', () => {
    const literal = recipeSchema.safeParse(minimal({ steps: [{ do: 'push_media', from: '/home/farm/.ssh/id_rsa' }] }));
    expect(literal.success).toBe(false);
    expect(literal.error?.issues[0]).toMatchObject({ path: ['steps', 0, 'from'], message: expect.stringContaining("only the task's media") });
    const mixed = recipeSchema.safeParse(minimal({ steps: [{ do: 'push_media', from: '/tmp/{{caption}}' }] }));
    expect(mixed.success).toBe(false);
    const ok = recipeSchema.safeParse(minimal({ steps: [{ do: 'repeat', each: 'media', as: 'file', steps: [{ do: 'push_media', from: '{{file}}' }] }] }));
    expect(ok.success).toBe(true);
  });
});
