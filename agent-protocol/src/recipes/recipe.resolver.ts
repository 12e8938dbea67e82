/**
 * Which recipe a phone runs for a piece of work: by routine type, platform and the app version on the phone,
 * choosing among a workspace's own recipes (validated by the same schema; the server stores them) and the
 * shipped ones (agent-protocol/recipes/). A workspace recipe wins over a shipped one; among equals, the one
 * written for the newest app version that still fits, then the highest recipe version.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseRecipe, type Recipe, type RecipePlatform, type RoutineType } from './recipe.schema.ts';

export const SHIPPED_RECIPES_DIR = fileURLToPath(new URL('../../recipes/', import.meta.url));

export interface ShippedRecipe {
  file: string;
  recipe: Recipe;
}

/** Reads and validates every shipped recipe; a file that fails the schema is an error naming it. */
export function loadRecipeFiles(dir = SHIPPED_RECIPES_DIR): ShippedRecipe[] {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .sort();
  return files.map((file) => {
    const parsed = parseRecipe(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    if (!parsed.ok) throw new Error(`The recipe ${file} is not valid: ${parsed.errors.join('; ')}`);
    return { file, recipe: parsed.recipe };
  });
}

let shipped: Recipe[] | null = null;

/** The shipped recipes, read once. */
export function shippedRecipes(): Recipe[] {
  shipped ??= loadRecipeFiles().map((item) => item.recipe);
  return shipped;
}

/** Every app package the shipped recipes drive (Instagram, both TikToks), in a stable order. */
export function recipeApps(recipes: readonly Recipe[] = shippedRecipes()): string[] {
  return [...new Set(recipes.flatMap((recipe) => recipe.app.packages ?? [recipe.app.package]))].sort();
}

/** Compares dotted versions numerically ("364.0.0.35.86" > "99.1"). */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const right = b.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const diff = (left[i] ?? 0) - (right[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return 0;
}

/** Whether the recipe claims this app version (any version when the phone's is unknown). */
export function fitsAppVersion(recipe: Recipe, appVersion: string | null | undefined): boolean {
  if (!appVersion) return true;
  if (recipe.app.minVersion && compareVersions(appVersion, recipe.app.minVersion) < 0) return false;
  if (recipe.app.belowVersion && compareVersions(appVersion, recipe.app.belowVersion) >= 0) return false;
  return true;
}

export interface RecipeQuery {
  routine: RoutineType;
  platform: RecipePlatform;
  /** The app's version on the phone (`phone.appVersion(package)`), when known. */
  appVersion?: string | null;
}

export interface ResolvedRecipe {
  recipe: Recipe;
  source: 'workspace' | 'shipped';
}

/** Picks the recipe for the work, or null when none fits. */
export function resolveRecipe(query: RecipeQuery, overrides: readonly Recipe[] = [], builtIn: readonly Recipe[] = shippedRecipes()): ResolvedRecipe | null {
  const candidates: ResolvedRecipe[] = [
    ...overrides.map((recipe) => ({ recipe, source: 'workspace' as const })),
    ...builtIn.map((recipe) => ({ recipe, source: 'shipped' as const })),
  ].filter(({ recipe }) => recipe.platform === query.platform && recipe.routines.includes(query.routine) && fitsAppVersion(recipe, query.appVersion));
  candidates.sort((a, b) => {
    if (a.source !== b.source) return a.source === 'workspace' ? -1 : 1;
    const byApp = compareVersions(b.recipe.app.minVersion ?? '0', a.recipe.app.minVersion ?? '0');
    if (byApp !== 0) return byApp;
    return b.recipe.version - a.recipe.version;
  });
  return candidates[0] ?? null;
}
