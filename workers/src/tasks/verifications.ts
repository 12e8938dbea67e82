/**
 * Verifications: the app versions an operator's passing dry run proved one stored recipe row on (one version of a
 * workspace recipe). They add to that row's tested range and to nothing else: not to its other versions, not to a
 * shipped template of the same id. The phone's gate (`coversApp`) matches a verification by the recipe's document id,
 * so what a phone is sent is narrowed here to the verifications of the rows it may run, and only where the row it
 * would pick for that app version among those of the same id is the verified one.
 */
import { resolveRecipe, shippedRecipes, type Recipe, type RecipePlatform, type RoutineType } from '@farm/agent-protocol/recipes';
import type { AppVerification } from '@farm/agent-protocol/work';
import type { Db } from '../db.ts';

/** At most this many verified app versions travel with one piece of work (the newest; the protocol's cap). */
export const MAX_VERIFICATIONS_PER_WORK = 200;

/** A stored workspace recipe as dispatch and coverage weigh it: its row and its document. */
export interface CarriedRecipe {
  rowId: string;
  recipe: Recipe;
}

/** A recipe whose coverage the server weighs, with the verifications that count for it (none for a shipped one). */
export interface WeighedRecipe {
  recipe: Recipe;
  verifications: AppVerification[];
}

/** A verification as stored, with the row it belongs to. */
export interface RowVerification {
  recipeRowId: string;
  recipeId: string;
  package: string;
  appVersion: string;
  locale: string;
}

/** A verification as the phone's protocol carries it. */
export function toAppVerification(row: Pick<RowVerification, 'recipeId' | 'package' | 'appVersion' | 'locale'>): AppVerification {
  return { recipeId: row.recipeId, package: row.package, version: row.appVersion, ...(row.locale ? { locale: row.locale } : {}) };
}

/** Records that an operator's run (or their word on someone's passing run) verified a recipe row on an app version. */
export async function addRecipeVerification(
  db: Db,
  entry: {
    workspaceId: string;
    recipeRowId: string;
    recipeId: string;
    recipeVersion: number;
    package: string;
    appVersion: string;
    locale?: string | null;
    source: 'dry_run' | 'confirmed';
    dryRunId: string | null;
    verifiedBy: string;
  },
): Promise<void> {
  await db
    .insertInto('recipeVerifications')
    .values({
      workspaceId: entry.workspaceId,
      recipeRowId: entry.recipeRowId,
      recipeId: entry.recipeId,
      recipeVersion: entry.recipeVersion,
      package: entry.package,
      appVersion: entry.appVersion,
      locale: entry.locale ?? '',
      source: entry.source,
      dryRunId: entry.dryRunId,
      verifiedBy: entry.verifiedBy,
    })
    .onConflict((oc) => oc.columns(['recipeRowId', 'package', 'appVersion', 'locale']).doNothing())
    .execute();
}

/** The workspace's own rows, each with its own verifications, then the shipped templates with none. */
export function weighedRecipes(own: readonly CarriedRecipe[], verifications: readonly RowVerification[]): WeighedRecipe[] {
  return [
    ...own.map((row) => ({ recipe: row.recipe, verifications: verifications.filter((entry) => entry.recipeRowId === row.rowId).map(toAppVerification) })),
    ...shippedRecipes().map((recipe) => ({ recipe, verifications: [] })),
  ];
}

/** The verifications of these recipe rows of the workspace, newest first. */
export function verificationsOfRows(db: Db, workspaceId: string, rowIds: readonly string[]): Promise<RowVerification[]> {
  if (rowIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('recipeVerifications')
    .select(['recipeRowId', 'recipeId', 'package', 'appVersion', 'locale'])
    .where('workspaceId', '=', workspaceId)
    .where('recipeRowId', 'in', [...rowIds])
    .orderBy('createdAt', 'desc')
    .execute();
}

/**
 * The verifications a phone may be sent with work that carries these recipe rows (the phone runs one of them, or a
 * shipped recipe): a row's verification of app version V goes only when, among the carried rows and shipped recipes of
 * the same id, the phone would pick that very row on V, so the id it matches by cannot reach another version or a
 * template.
 */
export function verificationsForWork(
  target: { routine: RoutineType; platform: string },
  carried: readonly { rowId: string; recipe: Recipe }[],
  verifications: readonly RowVerification[],
): AppVerification[] {
  const byRow = new Map(carried.map((row) => [row.rowId, row.recipe]));
  const recipes = carried.map((row) => row.recipe);
  const shipped = shippedRecipes();
  const sent: AppVerification[] = [];
  for (const entry of verifications) {
    const recipe = byRow.get(entry.recipeRowId);
    if (!recipe) continue;
    const sameId = (one: Recipe) => one.id === recipe.id;
    const picked = resolveRecipe(
      { routine: target.routine, platform: target.platform as RecipePlatform, appVersion: entry.appVersion },
      recipes.filter(sameId),
      shipped.filter(sameId),
    );
    if (picked?.recipe !== recipe) continue;
    sent.push(toAppVerification(entry));
    if (sent.length >= MAX_VERIFICATIONS_PER_WORK) break;
  }
  return sent;
}
