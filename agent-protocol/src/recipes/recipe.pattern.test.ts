/**
 * Patterns from recipes and requests as the attacks they are: a catastrophic-backtracking pattern over a long node
 * text ends at once (under JavaScript's RegExp, `(a+)+$` over 1,000 a's and a "!" would not end in a lifetime, so
 * these tests would hang); a pattern RE2 cannot run is refused naming its field; a recipe's defaults name no media;
 * an activity is a class name.
 */
import { describe, expect, it } from 'vitest';
import { FixturePhone } from '../../test/fixture-phone.ts';
import { toUiXml } from '../simphone/simphone.render.ts';
import { checkSelector, findAll } from './recipe.inspect.ts';
import { manualClock } from './recipe.pacing.ts';
import { PATTERN_MAX_PROGRAM, patternFinds, patternProblem } from './recipe.pattern.ts';
import { runRecipe } from './recipe.runner.ts';
import { parseRecipe, recipe as recipeSchema, type RecipeInput } from './recipe.schema.ts';
import { parseUiXml } from './recipe.ui.ts';

const evil = `${'a'.repeat(1000)}!`;

const minimal = (overrides: Partial<RecipeInput> = {}): RecipeInput => ({
  id: 'farm.instagram.like',
  version: 1,
  name: 'Like',
  platform: 'instagram',
  routines: ['basic'],
  app: { package: 'com.instagram.android', writtenFor: '360.0.0.52.192' },
  steps: [{ do: 'open_app' }],
  ...overrides,
});

/** A screen of 200 rows whose text is 1,000 a's and a "!", and one row a pattern finds. */
const longTextScreen = () =>
  toUiXml(
    {
      cls: 'android.widget.FrameLayout',
      bounds: [0, 0, 1080, 2400],
      children: [
        ...Array.from({ length: 200 }, (_, at) => ({
          cls: 'android.widget.TextView',
          text: evil,
          desc: evil,
          bounds: [0, at * 10, 1080, at * 10 + 10] as [number, number, number, number],
        })),
        { cls: 'android.widget.Button', id: 'like', text: 'BAAA', clickable: true, bounds: [0, 2200, 1080, 2300] as [number, number, number, number] },
      ],
    },
    'com.instagram.android',
  );

describe('patterns matched by RE2', () => {
  it('finds anywhere in the text, in any case, and ends at once on a backtracking attack', () => {
    expect(patternFinds('^x[0-9.,]+[kmb]?$', 'X17.6K')).toBe(true);
    expect(patternFinds('like video\\b', 'Like video by @someone')).toBe(true);
    expect(patternFinds('(a+)+$', evil)).toBe(false);
    expect(patternFinds('(a+)+!$', evil)).toBe(true);
    expect(patternFinds('(.*a){20}$', evil)).toBe(false);
  });

  it('says why a pattern cannot run: backreferences, lookaround, bad syntax, too large a program', () => {
    expect(patternProblem('^x[0-9.,]+[kmb]?$')).toBeNull();
    expect(patternProblem('(a)\\1')).toBe(
      'invalid escape sequence: `\\1` (patterns are RE2 syntax: no backreferences such as \\1, no lookaround such as (?=…) or (?<=…))',
    );
    expect(patternProblem('(?=a)')).toMatch(/^invalid or unsupported Perl syntax: `\(\?=` \(patterns are RE2 syntax/);
    expect(patternProblem('[')).toMatch(/^missing closing \]/);
    expect(patternProblem('[a-z]{1000}')).toBe(`it is too complex to match quickly (1002 instructions, at most ${PATTERN_MAX_PROGRAM}): write a simpler one`);
    expect(patternProblem('a'.repeat(201))).toBe('it is longer than 200 characters');
  });

  it('counts a selector with a backtracking pattern over long node texts on a saved screen, at once', () => {
    const screen = parseUiXml(longTextScreen());
    expect(findAll(screen, { textMatches: '(a+)+$' }).map((node) => node.text)).toEqual(['BAAA']);
    expect(checkSelector(screen, { descMatches: '(a+)+$' })).toEqual({ matches: 0, finds: false });
  });
});

describe('the recipe schema refuses what cannot run or must not be carried', () => {
  it('refuses a pattern RE2 cannot run, naming the field', () => {
    const backreference = parseRecipe(minimal({ steps: [{ do: 'tap', target: { textMatches: '(a)\\1' } }] }));
    expect(backreference).toEqual({
      ok: false,
      errors: [
        'steps.0.target.textMatches: The pattern in textMatches cannot run: invalid escape sequence: `\\1` (patterns are RE2 syntax: no backreferences such as \\1, no lookaround such as (?=…) or (?<=…)).',
      ],
    });
    const lookahead = parseRecipe(minimal({ elements: { like: { descMatches: '(?=like)' } }, steps: [{ do: 'tap', target: 'like' }] }));
    expect(lookahead.ok).toBe(false);
    expect(lookahead.ok ? [] : lookahead.errors).toEqual([
      expect.stringMatching(/^elements\.like\.descMatches: The pattern in descMatches cannot run: invalid or unsupported Perl syntax/),
    ]);
  });

  it('refuses media in a recipe’s defaults: a recipe never names a file', () => {
    const parsed = parseRecipe(minimal({ defaults: { media: ['/home/farm/.android/adbkey'] } }));
    expect(parsed).toEqual({
      ok: false,
      errors: ["defaults.media: A recipe carries no media: files come only from the work's own uploads, so remove defaults.media."],
    });
    expect(parseRecipe(minimal({ defaults: { engagement: 30 } })).ok).toBe(true);
  });

  it('refuses a share activity that is not a class name, $ included', () => {
    const share = (activity: string) => minimal({ routines: ['create_post'], steps: [{ do: 'share_media', activity }] });
    for (const activity of ['com.instagram.Share$Handler', 'Share;reboot', 'com.app/.Main', '$(id)', '.Main Activity']) {
      const parsed = parseRecipe(share(activity));
      expect(parsed.ok ? [] : parsed.errors, activity).toEqual([
        'steps.0.activity: An activity is a class name like com.instagram.share.handleractivity.ShareHandlerActivity: letters, digits, _ and dots only.',
      ]);
    }
    expect(parseRecipe(share('com.instagram.share.handleractivity.ShareHandlerActivity')).ok).toBe(true);
    expect(parseRecipe(share('.ShareActivity')).ok).toBe(true);
  });
});

describe('a recipe with a backtracking pattern on the phone', () => {
  it('runs to the end over long node texts without freezing the agent', async () => {
    const phone = new FixturePhone('long', { xml: { long: longTextScreen } });
    const recipe = recipeSchema.parse(
      minimal({
        elements: { like: { textMatches: '(a+)+$' } },
        steps: [
          { do: 'wait_for', target: { descMatches: '(a+)+$' }, timeout: '1s', optional: true },
          { do: 'tap', target: 'like' },
        ],
      }),
    );
    const result = await runRecipe(phone, recipe, {}, { random: () => 0.5, clock: manualClock() });
    expect(result.status).toBe('completed');
    expect(phone.taps).toEqual([{ x: 540, y: 2250 }]);
  });
});
