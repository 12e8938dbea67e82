/**
 * Every verified selector of a shipped recipe is true of a real screen: a fixture under `fixtures/real/` of the
 * recipe's app carries a node it matches. A selector no fixture carries must be marked `unverified` with why, which
 * keeps its recipe off unless the workspace opts in. Templates (`{{account}}`, `{{typed}}`) name the run's own words
 * and are matched with the fixture's words in their place.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { coversApp } from '../../src/recipes/recipe.coverage.ts';
import { recipeEvidence, type SelectorEvidence, unverifiedClaims } from '../../src/recipes/recipe.evidence.ts';
import { nodeMatches } from '../../src/recipes/recipe.inspect.ts';
import { loadRecipeFiles } from '../../src/recipes/recipe.resolver.ts';
import type { Selector } from '../../src/recipes/recipe.schema.ts';
import { parseUiXml, type UiScreen } from '../../src/recipes/recipe.ui.ts';
import { fixture, fixturesDir } from '../fake-android.ts';

/** The recipes whose notes were reviewed: every shipped recipe. */
const REVIEWED = [
  'instagram/engage.json',
  'instagram/post.json',
  'instagram/scroll.json',
  'instagram/warmup.json',
  'tiktok/engage.json',
  'tiktok/post.json',
  'tiktok/scroll.json',
  'tiktok/warmup.json',
];

const screensOf = (folders: readonly string[]): { file: string; screen: UiScreen }[] =>
  folders.flatMap((folder) =>
    readdirSync(`${fixturesDir}real/${folder}`)
      .filter((name) => name.endsWith('.xml'))
      .map((name) => ({ file: `${folder}/${name}`, screen: parseUiXml(fixture(`real/${folder}/${name}`)) })),
  );
const screens = { instagram: screensOf(['instagram']), tiktok: screensOf(['tiktok-musically', 'tiktok-trill']) };

/** The selector as the runner matches it, a template standing for any words. */
function asSelector(entry: SelectorEvidence): Selector | null {
  const fields = Object.fromEntries(Object.entries(entry.fields).filter(([key]) => key !== 'index' && key !== 'checked'));
  if (Object.values(fields).some((value) => typeof value === 'string' && value.includes('{{'))) return null;
  return fields as Selector;
}

/**
 * Whether a note names a repository at a commit (`owner/name@commit`) and a file in it: a fixture alone says what the
 * tree shows, not where the tree was read.
 */
const cited = (evidence: string): boolean =>
  /[\w.-]+\/[\w.-]+@[0-9a-f]{7,40}\b/.test(evidence) && /\b[\w./-]+\.(py|xml|md|js|jsonl|json)\b/.test(evidence.replace(/fixture real\/\S+/g, ''));

/** The fixtures carrying a node the selector matches (anywhere in the tree: a preloaded button counts as shown). */
function carriers(entry: SelectorEvidence, app: 'instagram' | 'tiktok'): string[] {
  const selector = asSelector(entry);
  if (!selector) return ['(a template: the run fills it)'];
  return screens[app].filter(({ screen }) => screen.nodes.some((node) => nodeMatches(node, selector))).map(({ file }) => file);
}

const recipes = loadRecipeFiles().filter(({ file }) => REVIEWED.includes(file));

describe('the evidence of the shipped recipes', () => {
  it('reviews every shipped recipe', () => {
    expect(recipes.map(({ file }) => file).sort()).toEqual([...REVIEWED].sort());
  });

  it.each(recipes.map(({ file, recipe }) => [file, recipe] as const))('%s: every selector names its source or says why it is unverified', (_file, recipe) => {
    const bare = recipeEvidence(recipe).filter((entry) => !entry.evidence && !entry.unverified);
    expect(bare.map((entry) => `${entry.path} (${entry.match})`)).toEqual([]);
  });

  it.each(recipes.map(({ file, recipe }) => [file, recipe] as const))('%s: a fixture of a real screen carries every verified selector', (_file, recipe) => {
    const app = recipe.platform === 'instagram' ? 'instagram' : 'tiktok';
    const missing = recipeEvidence(recipe)
      .filter((entry) => !entry.unverified)
      .filter((entry) => carriers(entry, app).length === 0)
      .map((entry) => `${entry.path} (${entry.match})`);
    expect(missing).toEqual([]);
  });

  it.each(recipes.map(({ file, recipe }) => [file, recipe] as const))(
    '%s: cited verified sources name a repository at a commit and a path',
    (_file, recipe) => {
      const vague = recipeEvidence(recipe)
        .filter((entry) => !entry.unverified && entry.evidence)
        .filter((entry) => !cited(entry.evidence ?? ''))
        .map((entry) => `${entry.path}: ${entry.evidence}`);
      expect(vague).toEqual([]);
      // The tested ranges too: each names where the version was read, or says why it could not be.
      const ranges = (Array.isArray(recipe.app.tested) ? recipe.app.tested : [])
        .filter((range) => !range.unverified && !cited(range.evidence ?? ''))
        .map((range) => `${range.min}..${range.max}: ${range.evidence}`);
      expect(ranges).toEqual([]);
    },
  );

  it('keeps a template holding an unverified selector off unless the workspace opts in', () => {
    for (const { recipe } of recipes) {
      const claims = unverifiedClaims(recipe);
      const range = Array.isArray(recipe.app.tested) ? recipe.app.tested[0] : undefined;
      if (!range) continue;
      const app = { package: range.package, version: range.max };
      const plain = coversApp(recipe, app);
      if (claims.length === 0) {
        expect(plain).toEqual({ covered: true, by: 'tested' });
        continue;
      }
      expect(plain.covered).toBe(false);
      if (!plain.covered) expect(plain.reason).toContain('relies on what no public source shows');
      expect(coversApp(recipe, app, { allowUntested: true })).toEqual({ covered: true, by: 'untested_allowed' });
    }
  });
});
