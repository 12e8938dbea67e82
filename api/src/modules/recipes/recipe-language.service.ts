/**
 * The phones held back by their language (Campaigns → Recipes, GET /api/recipes/held-by-language): a phone whose app
 * shows a language no recipe for it reads ends its runs `language_untested` before it acts (the phone's pre-flight,
 * agent-protocol/src/recipes/recipe.preflight.ts). Each is listed with the recipe, the languages it covers (the one it
 * is written for, `recipeLanguage`, and those the workspace verified it in) and a sentence of what to do.
 */
import { parseRecipe, recipeLanguage, shippedRecipes, type Recipe } from '@farm/agent-protocol/recipes';
import type { LanguageHeldPhone, LanguageHeldPhones } from '@farm/contracts';
import type { Db } from '../../shared/types.ts';
import { verificationsOf } from './recipe-health.queries.ts';
import { languageHeldRows } from './recipe-language.queries.ts';
import { listWorkspaceRecipes } from './recipes.queries.ts';

/** How far back a run that ended `language_untested` still holds its phone on the list. */
export const LANGUAGE_HELD_DAYS = 7;

const languagePart = (tag: string) => tag.toLowerCase().split(/[-_]/)[0] ?? '';

/** "German (de-DE)": the language's English name and its tag, or the tag alone where the name is not known. */
export function languageName(tag: string): string {
  try {
    const part = languagePart(tag);
    const name = new Intl.DisplayNames(['en'], { type: 'language' }).of(part);
    return name && name !== part ? `${name} (${tag})` : tag;
  } catch {
    return tag;
  }
}

/** Names joined for a sentence: "English (en)", "English (en) or German (de)", "A, B or C". */
const either = (items: readonly string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`);

/** What an operator does for one held phone, in a sentence. */
export function whatToDo(phone: { deviceName: string; locale: string | null; recipeName: string; covered: readonly string[] }): string {
  const covered = phone.covered.length > 0 ? either(phone.covered.map(languageName)) : 'the language the recipe is written for';
  const own = phone.locale ? languageName(phone.locale) : "the phone's language";
  return `Set ${phone.deviceName}'s language to ${covered} in the phone's Settings (on Android 13 and later, the app's own language in Settings › Apps), or verify ${phone.recipeName} on ${own} with a dry run.`;
}

/** The held phones of a workspace over the last LANGUAGE_HELD_DAYS days, the newest first. */
export async function languageHeldPhones(db: Db, workspaceId: string): Promise<LanguageHeldPhones> {
  const rows = await languageHeldRows(db, workspaceId, LANGUAGE_HELD_DAYS);
  if (rows.length === 0) return { days: LANGUAGE_HELD_DAYS, phones: [] };
  const [stored, verified] = await Promise.all([listWorkspaceRecipes(db, workspaceId), verificationsOf(db, workspaceId)]);
  // A recipe by id: the workspace's newest version of it (rows come newest first), else the shipped one.
  const recipes = new Map<string, Recipe>();
  for (const recipe of shippedRecipes()) recipes.set(recipe.id, recipe);
  const seen = new Set<string>();
  for (const row of stored) {
    if (seen.has(row.recipeId)) continue;
    seen.add(row.recipeId);
    const parsed = parseRecipe(row.body);
    if (parsed.ok) recipes.set(row.recipeId, parsed.recipe);
  }
  const phones: LanguageHeldPhone[] = rows.map((row) => {
    const recipe = recipes.get(row.recipeId);
    const written = recipe ? recipeLanguage(recipe) : null;
    const covered: string[] = [];
    for (const tag of [
      ...(written ? [written] : []),
      ...verified.filter((entry) => entry.recipeId === row.recipeId && entry.package === row.appPackage && entry.locale !== '').map((entry) => entry.locale),
    ])
      if (!covered.some((known) => languagePart(known) === languagePart(tag))) covered.push(tag);
    const recipeName = recipe?.name ?? row.recipeId;
    return {
      deviceId: row.deviceId,
      deviceName: row.deviceName,
      locale: row.locale,
      recipeId: row.recipeId,
      recipeName,
      appPackage: row.appPackage,
      appVersion: row.appVersion,
      covered,
      at: row.at.toISOString(),
      whatToDo: whatToDo({ deviceName: row.deviceName, locale: row.locale, recipeName, covered }),
    };
  });
  return { days: LANGUAGE_HELD_DAYS, phones };
}
