import { describe, expect, it } from 'vitest';
import { coversApp, recipeLanguage } from './recipe.coverage.ts';
import { shippedRecipes } from './recipe.resolver.ts';
import type { Recipe } from './recipe.schema.ts';

const engage = shippedRecipes().find((recipe) => recipe.id === 'instagram.engage')!;
const IG = 'com.instagram.android';

describe('what a recipe covers', () => {
  it('covers versions inside the shipped tested range, both ends included', () => {
    const range = Array.isArray(engage.app.tested) ? engage.app.tested[0]! : engage.app.tested!;
    expect(coversApp(engage, { package: IG, version: range.min })).toEqual({ covered: true, by: 'tested' });
    expect(coversApp(engage, { package: IG, version: range.max, locale: 'en-US' })).toEqual({ covered: true, by: 'tested' });
  });

  it('refuses a version outside the range unless the workspace verified it, and says why', () => {
    const answer = coversApp(engage, { package: IG, version: '999.0.0.1.1' });
    expect(answer).toMatchObject({ covered: false, problem: 'version' });
    expect(answer.covered ? '' : answer.reason).toContain('999.0.0.1.1 is outside the versions');
    const verifications = [{ recipeId: 'instagram.engage', package: IG, version: '999.0.0.1.1' }];
    expect(coversApp(engage, { package: IG, version: '999.0.0.1.1' }, { verifications })).toEqual({ covered: true, by: 'verified' });
    // Another recipe's verification, another package's or another version's does not count.
    expect(coversApp(engage, { package: IG, version: '999.0.0.1.1' }, { verifications: [{ ...verifications[0]!, recipeId: 'instagram.post' }] }).covered).toBe(
      false,
    );
    expect(coversApp(engage, { package: IG, version: '999.0.0.1.2' }, { verifications }).covered).toBe(false);
  });

  it('reads a verification made in one language only for that language', () => {
    const verifications = [{ recipeId: 'instagram.engage', package: IG, version: '999.0.0.1.1', locale: 'en-GB' }];
    expect(coversApp(engage, { package: IG, version: '999.0.0.1.1', locale: 'en' }, { verifications }).covered).toBe(true);
    expect(coversApp(engage, { package: IG, version: '999.0.0.1.1' }, { verifications }).covered).toBe(true);
  });

  it('lets a shipped template run on any version when the workspace allows it, but never a verified recipe', () => {
    expect(coversApp(engage, { package: IG, version: '999.0.0.1.1' }, { allowUntested: true })).toEqual({ covered: true, by: 'untested_allowed' });
    const own: Recipe = { ...engage, verified: true };
    expect(coversApp(own, { package: IG, version: '999.0.0.1.1' }, { allowUntested: true }).covered).toBe(false);
  });

  it('refuses another package and another language whatever the version', () => {
    expect(coversApp(engage, { package: 'com.zhiliaoapp.musically', version: '40.0.0' })).toMatchObject({ covered: false, problem: 'package' });
    expect(coversApp(engage, { package: IG, version: '447.0.0.55.81', locale: 'de-DE' }, { allowUntested: true })).toMatchObject({
      covered: false,
      problem: 'locale',
      reason: `The app's language is de-DE; ${engage.name} reads screens in en.`,
    });
  });

  it('covers another language where the workspace verified the recipe in it, the version checked as ever', () => {
    const verifications = [{ recipeId: 'instagram.engage', package: IG, version: '447.0.0.55.81', locale: 'de' }];
    expect(coversApp(engage, { package: IG, version: '447.0.0.55.81', locale: 'de-DE' }, { verifications }).covered).toBe(true);
    expect(coversApp(engage, { package: IG, version: '446.0.0.1.1', locale: 'de-AT' }, { verifications })).toEqual({ covered: true, by: 'tested' });
    expect(coversApp(engage, { package: IG, version: '447.0.0.55.81', locale: 'fr-FR' }, { verifications })).toMatchObject({ problem: 'locale' });
    expect(coversApp(engage, { package: IG, version: '999.0.0.1.1', locale: 'de-DE' }, { verifications })).toMatchObject({ problem: 'version' });
  });

  it('reads a recipe that names no language as English when its guards or popups carry words, else as any', () => {
    expect(recipeLanguage(engage)).toBe('en');
    const unnamed: Recipe = { ...engage, app: { ...engage.app, locale: undefined } };
    expect(recipeLanguage(unnamed)).toBe('en');
    const idsOnly: Recipe = { ...unnamed, guards: [{ when: { id: 'login_form' }, reason: 'login_required', message: 'Signed out' }], dismiss: [] };
    expect(recipeLanguage(idsOnly)).toBeNull();
    expect(coversApp(idsOnly, { package: IG, version: '447.0.0.55.81', locale: 'ja-JP' }).covered).toBe(true);
    const named: Recipe = { ...idsOnly, elements: { ...idsOnly.elements, not_now: { text: 'Not now' } }, dismiss: ['not_now'] };
    expect(recipeLanguage(named)).toBe('en');
  });

  it('covers every version where a recipe states no tested range (recipes written before ranges)', () => {
    const old: Recipe = { ...engage, app: { ...engage.app, tested: undefined } };
    expect(coversApp(old, { package: IG, version: '1.0' })).toEqual({ covered: true, by: 'tested' });
  });

  it('holds back a template acting on an unverified selector on its tested versions, not one whose unverified selectors only watch', () => {
    const top = Array.isArray(engage.app.tested) ? engage.app.tested[0]!.max : engage.app.tested!.max;
    const unverified = 'No public page source shows it.';
    const elements = engage.elements ?? {};
    const [name, spec] = Object.entries(elements).find(([key]) => JSON.stringify(engage.steps).includes(`"${key}"`))!;
    const acting: Recipe = { ...engage, elements: { ...elements, [name]: { ...spec, unverified } } };
    const answer = coversApp(acting, { package: IG, version: top });
    expect(answer).toMatchObject({ covered: false, problem: 'version' });
    expect(answer.covered ? '' : answer.reason).toContain(`relies on what no public source shows (${name} (`);
    expect(coversApp(acting, { package: IG, version: top }, { allowUntested: true })).toEqual({ covered: true, by: 'untested_allowed' });
    expect(coversApp(acting, { package: IG, version: top }, { verifications: [{ recipeId: engage.id, package: IG, version: top }] })).toEqual({
      covered: true,
      by: 'verified',
    });
    // Outside the range the range is the reason, as for any template.
    const outside = coversApp(acting, { package: IG, version: '999.0.0.1.1' });
    expect(outside.covered ? '' : outside.reason).toContain('is outside the versions');
    // A workspace's own checked copy is not held back by the template's notes.
    expect(coversApp({ ...acting, verified: true }, { package: IG, version: top })).toEqual({ covered: true, by: 'tested' });
    // An unverified guard (a marker) leaves the template on.
    const guards = (engage.guards ?? []).map((guard, index) =>
      index === 0 && typeof guard.when !== 'string' ? { ...guard, when: { ...guard.when, unverified } } : guard,
    );
    expect(coversApp({ ...engage, guards }, { package: IG, version: top })).toEqual({ covered: true, by: 'tested' });
    // An unverified popup button is tapped, not only watched: it holds the template back.
    const dismiss = (engage.dismiss ?? []).map((entry, index) => (index === 0 && typeof entry === 'object' ? { ...entry, unverified } : entry));
    const tapped = coversApp({ ...engage, dismiss }, { package: IG, version: top });
    expect(tapped.covered ? '' : tapped.reason).toContain('relies on what no public source shows (dismiss[0] (text=Not now))');
  });

  it('holds back the post templates on their tested versions: what confirms a post or clears an old banner has no public source', () => {
    const top = (recipe: Recipe) => (Array.isArray(recipe.app.tested) ? recipe.app.tested[0]!.max : recipe.app.tested!.max);
    const instagram = shippedRecipes().find((recipe) => recipe.id === 'instagram.post')!;
    const tiktok = shippedRecipes().find((recipe) => recipe.id === 'tiktok.post')!;
    const held = coversApp(instagram, { package: IG, version: top(instagram) });
    expect(held.covered ? '' : held.reason).toContain('failed_discard (id=row_pending_media_discard_button)');
    const musically = 'com.zhiliaoapp.musically';
    const toast = coversApp(tiktok, { package: musically, version: top(tiktok) });
    expect(toast.covered ? '' : toast.reason).toContain('posted_toast (textContains=video posted, class=Toast)');
    expect(coversApp(tiktok, { package: musically, version: top(tiktok) }, { allowUntested: true })).toEqual({ covered: true, by: 'untested_allowed' });
  });
});
