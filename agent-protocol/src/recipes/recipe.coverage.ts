/**
 * The one rule for what a recipe covers: an app (package, version, UI language) is covered when the recipe drives that
 * package, speaks the app's language, and the version is inside the recipe's tested range or among the versions the
 * workspace verified it on. A workspace may also let shipped templates run on versions no one verified. A template
 * holding a selector (or a tested range) whose evidence no public source shows counts as tested nowhere: it runs only
 * on a version the workspace verified, or where the workspace lets untested templates run (`try_untested_templates`).
 * The phone's pre-flight gate, the console's warnings and the recipe studio's health board all ask this function.
 */
import type { AppVerification } from '../work.ts';
import { unverifiedClaims } from './recipe.evidence.ts';
import { compareVersions } from './recipe.resolver.ts';
import type { Recipe, Selector, Target } from './recipe.schema.ts';

/** The recipe's packages, its main one first. */
export function recipePackages(recipe: Recipe): string[] {
  return [...new Set([recipe.app.package, ...(recipe.app.packages ?? [])])];
}

/** The tested range for one package: the recipe's range, or the entry naming the package; null when none is given. */
export function testedRange(recipe: Recipe, packageName: string): { min: string; max: string } | null | undefined {
  const tested = recipe.app.tested;
  if (!tested) return undefined;
  if (!Array.isArray(tested)) return tested;
  return tested.find((entry) => entry.package === packageName) ?? null;
}

/**
 * Whether a version of a package is inside the recipe's tested range (both ends inclusive). True when the recipe
 * states no range at all (older workspace recipes); false for a package the ranges leave out.
 */
export function isTestedVersion(recipe: Recipe, packageName: string, version: string): boolean {
  const range = testedRange(recipe, packageName);
  if (range === undefined) return true;
  if (range === null) return false;
  return compareVersions(version, range.min) >= 0 && compareVersions(version, range.max) <= 0;
}

const language = (tag: string) => tag.toLowerCase().split(/[-_]/)[0] ?? '';

/** The words a selector matches on (exact, contained or patterned text and content-desc). */
const wordsOf = (selector: Selector): string[] =>
  [selector.text, selector.textContains, selector.desc, selector.descContains, selector.textMatches, selector.descMatches].filter(
    (value): value is string => value !== undefined,
  );

/**
 * The UI language a recipe's words are written for: its `app.locale`, or, when it says none, English if its guards or
 * popups carry words in Latin letters ("Try Again Later", "Not now"). Every shipped recipe names `en`; a workspace's
 * own recipe that names nothing was recorded on a phone the studio reads, and a guard in Latin letters that says no
 * language is taken at its word as English rather than left to read nothing on a German phone. A recipe whose guards
 * and popups match ids alone (or carry no Latin letters) reads in any language: null, no language is checked.
 */
export function recipeLanguage(recipe: Recipe): string | null {
  if (recipe.app.locale) return recipe.app.locale;
  const elements = recipe.elements ?? {};
  const selectorsOf = (target: Target): Selector[] => {
    const spec = typeof target === 'string' ? elements[target] : 'point' in target ? undefined : target;
    return spec ? [spec, ...(spec.or ?? [])] : [];
  };
  const watched = [...(recipe.guards ?? []).map((guard) => guard.when), ...(recipe.dismiss ?? [])];
  const latin = watched
    .flatMap(selectorsOf)
    .flatMap(wordsOf)
    .some((words) => /[A-Za-z]{2}/.test(words));
  return latin ? 'en' : null;
}

/** Whether a UI language (`de-DE`) is the recipe's (`de`), by its language part; true when either is unknown. */
export function sameLanguage(a: string | null | undefined, b: string | null | undefined): boolean {
  return !a || !b || language(a) === language(b);
}

export interface CoverageQuery {
  package: string;
  version: string;
  /** The phone's (or the app's) UI language, when known. */
  locale?: string | null | undefined;
}

export interface CoverageOptions {
  /** Versions the workspace verified its recipes on. */
  verifications?: readonly AppVerification[];
  /** The workspace lets shipped templates (recipes not marked verified) run on versions no one verified. */
  allowUntested?: boolean;
}

export type Coverage =
  | { covered: true; by: 'tested' | 'verified' | 'untested_allowed' }
  | { covered: false; problem: 'package' | 'locale' | 'version'; reason: string };

/** Whether the recipe covers the app, and by what; when not, which part fails and a sentence saying so. */
export function coversApp(recipe: Recipe, app: CoverageQuery, options: CoverageOptions = {}): Coverage {
  const packages = recipePackages(recipe);
  if (!packages.includes(app.package))
    return { covered: false, problem: 'package', reason: `${recipe.name} drives ${packages.join(' or ')}, not ${app.package}.` };
  const written = recipeLanguage(recipe);
  // Another language is covered where the workspace verified the recipe on it for this package (a dry run on a phone
  // in that language records it); the version is then checked as for any run.
  const verifiedLanguage = (options.verifications ?? []).some(
    (entry) =>
      entry.recipeId === recipe.id && entry.package === app.package && !!entry.locale && !!app.locale && language(entry.locale) === language(app.locale),
  );
  if (!sameLanguage(written, app.locale) && !verifiedLanguage)
    return { covered: false, problem: 'locale', reason: `The app's language is ${app.locale}; ${recipe.name} reads screens in ${written}.` };
  const unverified = recipe.verified ? [] : unverifiedClaims(recipe, app.package);
  if (unverified.length === 0 && isTestedVersion(recipe, app.package, app.version)) return { covered: true, by: 'tested' };
  const verified = (options.verifications ?? []).some(
    (entry) =>
      entry.recipeId === recipe.id &&
      entry.package === app.package &&
      compareVersions(entry.version, app.version) === 0 &&
      (!entry.locale || !app.locale || language(entry.locale) === language(app.locale)),
  );
  if (verified) return { covered: true, by: 'verified' };
  if (options.allowUntested && !recipe.verified) return { covered: true, by: 'untested_allowed' };
  if (unverified.length > 0 && isTestedVersion(recipe, app.package, app.version))
    return {
      covered: false,
      problem: 'version',
      reason: `${recipe.name} relies on what no public source shows (${unverified.slice(0, 3).join('; ')}${unverified.length > 3 ? `; ${unverified.length - 3} more` : ''}): it runs only where this workspace verified ${app.package} ${app.version} or lets untested templates run.`,
    };
  const range = testedRange(recipe, app.package);
  return {
    covered: false,
    problem: 'version',
    reason: `${app.package} ${app.version} is outside the versions ${recipe.name} was tested on (${range ? `${range.min} to ${range.max}` : 'none for this package'}) and this workspace has not verified it there.`,
  };
}
