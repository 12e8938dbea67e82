/**
 * Checks on workspace recipes beyond one request: at start, every stored recipe is read again with the current
 * (stricter) schema, and one that fails is turned off with the field and the reason, never dropped — the farm sees
 * it in Settings → Recipes, mends it and adds it again.
 */
import type { FastifyBaseLogger } from 'fastify';
import { RECIPE_RULES_REVISION, recipe as recipeSchema } from '@farm/agent-protocol/recipes';
import { write, writeAcross, type WriteContext } from '../../events/write.ts';
import { markRecipeInvalid, markRecipesChecked, storedRecipesToCheck } from './recipes.queries.ts';

/** The first problem the schema finds: where (dotted, from the document's root) and why. */
export function firstRecipeProblem(input: unknown): { field: string; reason: string } | null {
  const parsed = recipeSchema.safeParse(input);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  return { field: issue.path.map(String).join('.') || 'the document', reason: issue.message };
}

/**
 * Reads the stored recipes again with the current schema and turns off, with the field and the reason, each one it
 * now refuses (a pattern RE2 cannot run, media in defaults, an activity that is not a class name); each turned off
 * leaves a warning in the feed and a `recipe.invalid` entry in the audit log. Run once at start, and by anything that
 * tightens the rules at run time. Idempotent: a recipe already marked for the same reason is not written again, and
 * a recipe the current rules' revision passed is not read again (so a restart with nothing changed reads no
 * document); `all` reads every one regardless. Answers how many were turned off now.
 */
export async function checkStoredRecipes(
  ctx: WriteContext,
  log: FastifyBaseLogger,
  scope: { workspaceId?: string | undefined; all?: boolean | undefined } = {},
): Promise<number> {
  const stored = await storedRecipesToCheck(ctx.db, RECIPE_RULES_REVISION, scope);
  const passed: string[] = [];
  let disabled = 0;
  for (const row of stored) {
    const problem = firstRecipeProblem(row.body);
    if (!problem) {
      passed.push(row.id);
      continue;
    }
    const marked = await write(ctx, row.workspaceId, async (tx, outbox) => {
      const done = await markRecipeInvalid(tx, row.id, RECIPE_RULES_REVISION, problem.field, problem.reason);
      if (done)
        await outbox.record(
          {
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
  if (passed.length > 0) await writeAcross(ctx, (tx) => markRecipesChecked(tx, passed, RECIPE_RULES_REVISION));
  return disabled;
}
