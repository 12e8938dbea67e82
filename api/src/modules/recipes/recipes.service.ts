/**
 * Checks on workspace recipes beyond one request: at start, every stored recipe is read again with the current
 * (stricter) schema, and one that fails is turned off with the field and the reason, never dropped — the farm sees
 * it in Settings → Recipes, mends it and adds it again.
 */
import type { FastifyBaseLogger } from 'fastify';
import { parseRecipe, recipe as recipeSchema } from '@farm/agent-protocol/recipes';
import { recordActivity } from '@farm/workers';
import type { Db } from '../../shared/types.ts';
import { allStoredRecipes, clearRecipeInvalid, markRecipeInvalid } from './recipes.queries.ts';

/** The first problem the schema finds: where (dotted, from the document's root) and why. */
export function firstRecipeProblem(input: unknown): { field: string; reason: string } | null {
  const parsed = recipeSchema.safeParse(input);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  return { field: issue.path.map(String).join('.') || 'the document', reason: issue.message };
}

/** Reads every stored recipe with the current schema; answers how many were turned off now. */
export async function checkStoredRecipes(db: Db, log: FastifyBaseLogger): Promise<number> {
  const stored = await allStoredRecipes(db);
  let disabled = 0;
  for (const row of stored) {
    const problem = parseRecipe(row.body).ok ? null : firstRecipeProblem(row.body);
    if (!problem) {
      if (row.invalidReason) await db.transaction().execute((tx) => clearRecipeInvalid(tx, row.id));
      continue;
    }
    const marked = await db.transaction().execute(async (tx) => {
      const done = await markRecipeInvalid(tx, row.id, problem.field, problem.reason);
      if (done)
        await recordActivity(
          tx,
          {
            workspaceId: done.workspaceId,
            userId: null,
            action: `Recipe "${done.name}" (${done.recipeId} v${done.version}) turned off: this version of the console refuses it at ${problem.field}: ${problem.reason}`,
            type: 'warning',
          },
          { action: 'recipe.invalid', entityType: 'recipe', entityId: done.id, data: problem },
        );
      return done;
    });
    if (marked) {
      disabled += 1;
      log.warn({ recipe: row.id, field: problem.field }, 'stored recipe fails the schema: turned off');
    }
  }
  return disabled;
}
