import { describe, expect, it } from 'vitest';
import { coversApp, recipeLanguage } from './recipe.coverage.ts';
import { shippedRecipes } from './recipe.resolver.ts';
import type { Recipe } from './recipe.schema.ts';

const post = shippedRecipes().find((recipe) => recipe.id === 'instagram.post')!;
const IG = 'com.instagram.android';

describe('what a recipe covers', () => {
  it('covers versions inside the shipped tested range, both ends included', () => {
    const range = Array.isArray(post.app.tested) ? post.app.tested[0]! : post.app.tested!;
    expect(coversApp(post, { package: IG, version: range.min })).toEqual({ covered: true, by: 'tested' });
    expect(coversApp(post, { package: IG, version: range.max, locale: 'en-US' })).toEqual({ covered: true, by: 'tested' });
  });

  it('refuses a version outside the range unless the workspace verified it, and says why', () => {
    const answer = coversApp(post, { package: IG, version: '999.0.0.1.1' });
    expect(answer).toMatchObject({ covered: false, problem: 'version' });
    expect(answer.covered ? '' : answer.reason).toContain('999.0.0.1.1 is outside the versions');
    const verifications = [{ recipeId: 'instagram.post', package: IG, version: '999.0.0.1.1' }];
    expect(coversApp(post, { package: IG, version: '999.0.0.1.1' }, { verifications })).toEqual({ covered: true, by: 'verified' });
    // Another recipe's verification, another package's or another version's does not count.
    expect(coversApp(post, { package: IG, version: '999.0.0.1.1' }, { verifications: [{ ...verifications[0]!, recipeId: 'instagram.engage' }] }).covered).toBe(
      false,
    );
    expect(coversApp(post, { package: IG, version: '999.0.0.1.2' }, { verifications }).covered).toBe(false);
  });

  it('reads a verification made in one language only for that language', () => {
    const verifications = [{ recipeId: 'instagram.post', package: IG, version: '999.0.0.1.1', locale: 'en-GB' }];
    expect(coversApp(post, { package: IG, version: '999.0.0.1.1', locale: 'en' }, { verifications }).covered).toBe(true);
    expect(coversApp(post, { package: IG, version: '999.0.0.1.1' }, { verifications }).covered).toBe(true);
  });

  it('lets a shipped template run on any version when the workspace allows it, but never a verified recipe', () => {
    expect(coversApp(post, { package: IG, version: '999.0.0.1.1' }, { allowUntested: true })).toEqual({ covered: true, by: 'untested_allowed' });
    const own: Recipe = { ...post, verified: true };
    expect(coversApp(own, { package: IG, version: '999.0.0.1.1' }, { allowUntested: true }).covered).toBe(false);
  });

  it('refuses another package and another language whatever the version', () => {
    expect(coversApp(post, { package: 'com.zhiliaoapp.musically', version: '40.0.0' })).toMatchObject({ covered: false, problem: 'package' });
    expect(coversApp(post, { package: IG, version: '447.0.0.55.81', locale: 'de-DE' }, { allowUntested: true })).toMatchObject({
      covered: false,
      problem: 'locale',
      reason: `The app's language is de-DE; ${post.name} reads screens in en.`,
    });
  });

  it('covers another language where the workspace verified the recipe in it, the version checked as ever', () => {
    const verifications = [{ recipeId: 'instagram.post', package: IG, version: '447.0.0.55.81', locale: 'de' }];
    expect(coversApp(post, { package: IG, version: '447.0.0.55.81', locale: 'de-DE' }, { verifications }).covered).toBe(true);
    expect(coversApp(post, { package: IG, version: '446.0.0.1.1', locale: 'de-AT' }, { verifications })).toEqual({ covered: true, by: 'tested' });
    expect(coversApp(post, { package: IG, version: '447.0.0.55.81', locale: 'fr-FR' }, { verifications })).toMatchObject({ problem: 'locale' });
    expect(coversApp(post, { package: IG, version: '999.0.0.1.1', locale: 'de-DE' }, { verifications })).toMatchObject({ problem: 'version' });
  });

  it('reads a recipe that names no language as English when its guards or popups carry words, else as any', () => {
    expect(recipeLanguage(post)).toBe('en');
    const unnamed: Recipe = { ...post, app: { ...post.app, locale: undefined } };
    expect(recipeLanguage(unnamed)).toBe('en');
    const idsOnly: Recipe = { ...unnamed, guards: [{ when: { id: 'login_form' }, reason: 'login_required', message: 'Signed out' }], dismiss: [] };
    expect(recipeLanguage(idsOnly)).toBeNull();
    expect(coversApp(idsOnly, { package: IG, version: '447.0.0.55.81', locale: 'ja-JP' }).covered).toBe(true);
    const named: Recipe = { ...idsOnly, elements: { ...idsOnly.elements, not_now: { text: 'Not now' } }, dismiss: ['not_now'] };
    expect(recipeLanguage(named)).toBe('en');
  });

  it('covers every version where a recipe states no tested range (recipes written before ranges)', () => {
    const old: Recipe = { ...post, app: { ...post.app, tested: undefined } };
    expect(coversApp(old, { package: IG, version: '1.0' })).toEqual({ covered: true, by: 'tested' });
  });

  it('holds back a template acting on an unverified selector on its tested versions, not one whose unverified selectors only watch', () => {
    const top = Array.isArray(post.app.tested) ? post.app.tested[0]!.max : post.app.tested!.max;
    const unverified = 'No public page source shows it.';
    const elements = post.elements ?? {};
    const [name, spec] = Object.entries(elements).find(([key]) => JSON.stringify(post.steps).includes(`"${key}"`))!;
    const acting: Recipe = { ...post, elements: { ...elements, [name]: { ...spec, unverified } } };
    const answer = coversApp(acting, { package: IG, version: top });
    expect(answer).toMatchObject({ covered: false, problem: 'version' });
    expect(answer.covered ? '' : answer.reason).toContain(`relies on what no public source shows (${name} (`);
    expect(coversApp(acting, { package: IG, version: top }, { allowUntested: true })).toEqual({ covered: true, by: 'untested_allowed' });
    expect(coversApp(acting, { package: IG, version: top }, { verifications: [{ recipeId: post.id, package: IG, version: top }] })).toEqual({
      covered: true,
      by: 'verified',
    });
    // Outside the range the range is the reason, as for any template.
    const outside = coversApp(acting, { package: IG, version: '999.0.0.1.1' });
    expect(outside.covered ? '' : outside.reason).toContain('is outside the versions');
    // A workspace's own checked copy is not held back by the template's notes.
    expect(coversApp({ ...acting, verified: true }, { package: IG, version: top })).toEqual({ covered: true, by: 'tested' });
    // An unverified guard (a marker) leaves the template on.
    const guards = (post.guards ?? []).map((guard, index) =>
      index === 0 && typeof guard.when !== 'string' ? { ...guard, when: { ...guard.when, unverified } } : guard,
    );
    expect(coversApp({ ...post, guards }, { package: IG, version: top })).toEqual({ covered: true, by: 'tested' });
  });
});
