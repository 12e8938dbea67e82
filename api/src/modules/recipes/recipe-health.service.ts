/**
 * The recipe health board (Campaigns → Recipes, GET /api/recipes/health): each recipe by app version over a window of
 * workspace days — runs, success rate, failure reasons, median duration, the phones it ran on, its last failures with
 * the phones' words, and its breaker — and the app versions the fleet has that no recipe covers. Runs are read from
 * the day rows the workers keep as results arrive (workers/src/tasks/runs.ts), never counted from every attempt.
 */
import { coversApp, parseRecipe, recipePackages, shippedRecipes } from '@farm/agent-protocol/recipes';
import { failureLabels, type FailureCode, type Range, type RecipeBreakerState, type RecipeHealth, type RecipeHealthRow } from '@farm/contracts';
import { medianOf, weighedRecipes, type WeighedRecipe } from '@farm/workers';
import { successRate } from '../analytics/analytics.queries.ts';
import type { Db } from '../../shared/types.ts';
import { listWorkspaceRecipes, recipeSettingsOf } from './recipes.queries.ts';
import {
  breakerFacts,
  healthWindow,
  installedVersions,
  lastFailedRuns,
  runPhones,
  runTotals,
  verificationsOf,
  type BreakerFacts,
  type InstalledVersion,
} from './recipe-health.queries.ts';

/** Days counted per range; 24h counts yesterday and today (runs are kept per day), its failures the last 24 hours. */
const RANGE_DAYS: Record<Range, number> = { '24h': 2, '7d': 7, '30d': 30, '90d': 90 };

const keyOf = (recipeId: string, pkg: string, version: string) => JSON.stringify([recipeId, pkg, version]);

function breakerState(breaker: BreakerFacts | undefined): RecipeBreakerState {
  if (!breaker) return { state: 'on', breakerId: null, trippedAt: null, phones: 0, resumedAt: null, resumedBy: null };
  return {
    state: breaker.paused ? 'tripped' : 'resumed',
    breakerId: breaker.id,
    trippedAt: breaker.trippedAt.toISOString(),
    phones: breaker.phones,
    resumedAt: breaker.paused ? null : (breaker.resumedAt?.toISOString() ?? null),
    resumedBy: !breaker.paused && breaker.resumedById ? { id: breaker.resumedById, name: breaker.resumedByName ?? 'Removed user' } : null,
  };
}

const label = (code: string) => failureLabels[code as FailureCode] ?? code.replace(/_/g, ' ');

/**
 * The app versions phones have that some routine of their app has no covering recipe for (tested range or the
 * verifications of that recipe row; shipped templates on untested versions do not count as covered, but say whether
 * the workspace lets them be tried).
 */
export function uncoveredVersions(
  installed: readonly InstalledVersion[],
  recipes: readonly WeighedRecipe[],
  untestedAllowed: boolean,
): RecipeHealth['uncovered'] {
  return installed.flatMap((app) => {
    const driving = recipes.filter(({ recipe }) => recipePackages(recipe).includes(app.package));
    if (driving.length === 0) return [];
    const offered = new Set(driving.flatMap(({ recipe }) => recipe.routines));
    for (const { recipe, verifications } of driving) {
      if (coversApp(recipe, { package: app.package, version: app.version }, { verifications }).covered)
        for (const routine of recipe.routines) offered.delete(routine);
    }
    if (offered.size === 0) return [];
    return [
      {
        appPackage: app.package,
        appVersion: app.version,
        platform: driving[0]!.recipe.platform,
        routines: [...offered].sort(),
        phones: { count: app.count, names: app.names },
        untestedAllowed,
      },
    ];
  });
}

/** The whole board for a workspace over a range. */
export async function recipeHealthOf(db: Db, workspaceId: string, range: Range): Promise<RecipeHealth | undefined> {
  const window = await healthWindow(db, workspaceId, RANGE_DAYS[range], range === '24h' ? 24 : null);
  if (!window) return undefined;
  const [totals, phones, failures, breakers, stored, verified, installed, settings] = await Promise.all([
    runTotals(db, workspaceId, window),
    runPhones(db, workspaceId, window),
    lastFailedRuns(db, workspaceId, window),
    breakerFacts(db, workspaceId),
    listWorkspaceRecipes(db, workspaceId),
    verificationsOf(db, workspaceId),
    installedVersions(db, workspaceId),
    recipeSettingsOf(db, workspaceId),
  ]);
  const own = stored.flatMap((row) => {
    const parsed = row.enabled ? parseRecipe(row.body) : null;
    return parsed?.ok ? [{ rowId: row.id, recipe: parsed.recipe }] : [];
  });
  // A recipe's name and platform: the workspace's newest version of it, else the shipped one, else a breaker's word.
  const names = new Map<string, { name: string; platform: string }>();
  for (const breaker of breakers) names.set(breaker.recipeId, { name: breaker.recipeName, platform: breaker.platform });
  for (const recipe of shippedRecipes()) names.set(recipe.id, { name: recipe.name, platform: recipe.platform });
  for (const row of [...stored].reverse()) names.set(row.recipeId, { name: row.name, platform: row.platform });

  const phonesBy = new Map(phones.map((row) => [keyOf(row.recipeId, row.package, row.appVersion), row]));
  const breakerBy = new Map(breakers.map((row) => [keyOf(row.recipeId, row.package, row.appVersion), row]));
  const failuresBy = new Map<string, RecipeHealthRow['lastFailures']>();
  for (const failure of failures) {
    const key = keyOf(failure.recipeId, failure.package, failure.appVersion);
    const list = failuresBy.get(key) ?? [];
    list.push({
      taskId: failure.taskId,
      taskTitle: failure.taskTitle,
      deviceId: failure.deviceId,
      deviceName: failure.deviceName,
      at: failure.at.toISOString(),
      code: failure.code as FailureCode,
      message: failure.message,
      recipeVersion: failure.recipeVersion,
    });
    failuresBy.set(key, list);
  }

  const row = (
    recipeId: string,
    pkg: string,
    version: string,
    counts: Pick<RecipeHealthRow, 'runs' | 'succeeded' | 'failed'>,
    codes: Record<string, number>,
    buckets: number[],
  ) => {
    const key = keyOf(recipeId, pkg, version);
    const found = phonesBy.get(key);
    const named = names.get(recipeId);
    return {
      recipeId,
      recipeName: named?.name ?? recipeId,
      platform: named?.platform ?? 'unknown',
      appPackage: pkg,
      appVersion: version,
      ...counts,
      successRate: successRate(counts.succeeded, counts.runs),
      failureReasons: Object.entries(codes)
        .filter(([, count]) => count > 0)
        .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
        .map(([code, count]) => ({ code, label: label(code), count })),
      medianDurationMs: medianOf(buckets),
      phones: { count: found?.count ?? 0, names: found?.names ?? [] },
      lastFailures: failuresBy.get(key) ?? [],
      breaker: breakerState(breakerBy.get(key)),
    } satisfies RecipeHealthRow;
  };

  const rows: RecipeHealthRow[] = totals.map((total) =>
    row(total.recipeId, total.package, total.appVersion, total, JSON.parse(total.codes) as Record<string, number>, total.buckets),
  );
  // A tripped breaker stops the runs it counts: its recipe and version stay on the board with nothing in the window.
  const listed = new Set(rows.map((item) => keyOf(item.recipeId, item.appPackage, item.appVersion)));
  for (const breaker of breakers) {
    if (breaker.paused && !listed.has(keyOf(breaker.recipeId, breaker.package, breaker.appVersion)))
      rows.push(row(breaker.recipeId, breaker.package, breaker.appVersion, { runs: 0, succeeded: 0, failed: 0 }, {}, []));
  }
  rows.sort(
    (a, b) => a.recipeName.localeCompare(b.recipeName) || a.recipeId.localeCompare(b.recipeId) || b.runs - a.runs || a.appVersion.localeCompare(b.appVersion),
  );

  return {
    range,
    timeZone: window.timeZone,
    from: window.from,
    to: window.to,
    recipes: rows,
    uncovered: uncoveredVersions(installed, weighedRecipes(own, verified), settings.tryUntestedTemplates),
  };
}
