/** A workspace's own step recipes in the database (their bodies validated before they are written). */
import { sql, type Selectable } from 'kysely';
import type { Recipe } from '@farm/agent-protocol/recipes';
import type { WorkspaceRecipesTable } from '@farm/sql';
import type { Db, Tx } from '../../shared/types.ts';

/** A row with its document as written: read as text, since the database layer renames JSON keys to camelCase. */
export type WorkspaceRecipeRow = Omit<Selectable<WorkspaceRecipesTable>, 'body' | 'source' | 'stepShots' | 'stepShotsBytes' | 'rulesChecked'> & {
  body: Record<string, unknown>;
};

const columns = [
  'id',
  'workspaceId',
  'recipeId',
  'version',
  'name',
  'platform',
  'routines',
  'enabled',
  'createdById',
  'createdAt',
  'updatedAt',
  'invalidField',
  'invalidReason',
  'basedOn',
  'basedOnVersion',
  'note',
] as const;
const bodyText = sql<string>`body::text`.as('bodyText');
/**
 * The document as written where it was kept (0045) and still says what the stored jsonb says, else the jsonb (whose
 * keys PostgreSQL reorders): what the editor shows and compares. Phones and the start-up check read `body`.
 */
const documentText = sql<string>`case when source is not null and source::jsonb = body then source else body::text end`.as('bodyText');
const withBody = <R extends { bodyText: string }>(row: R | undefined): (Omit<R, 'bodyText'> & { body: Record<string, unknown> }) | undefined => {
  if (!row) return undefined;
  const { bodyText: text, ...rest } = row;
  return { ...rest, body: JSON.parse(text) as Record<string, unknown> };
};

export async function listWorkspaceRecipes(db: Db, workspaceId: string): Promise<WorkspaceRecipeRow[]> {
  const rows = await db
    .selectFrom('workspaceRecipes')
    .select([...columns, bodyText])
    .where('workspaceId', '=', workspaceId)
    .orderBy('platform')
    .orderBy('recipeId')
    .orderBy('version', 'desc')
    .execute();
  return rows.map((row) => withBody(row)!);
}

export async function findWorkspaceRecipe(db: Db | Tx, workspaceId: string, id: string): Promise<WorkspaceRecipeRow | undefined> {
  return withBody(
    await db
      .selectFrom('workspaceRecipes')
      .select([...columns, documentText])
      .where('workspaceId', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst(),
  );
}

/**
 * Stores a recipe as it was written (`document`, which `recipe` is the validated reading of: phones validate it
 * again with the same schema); answers nothing when the workspace already has this id at this version.
 */
export function insertWorkspaceRecipe(
  tx: Tx,
  workspaceId: string,
  recipe: Recipe,
  document: Record<string, unknown>,
  enabled: boolean,
  userId: string,
  origin: { basedOn?: string | null; basedOnVersion?: number | null; note?: string | null } = {},
): Promise<WorkspaceRecipeRow | undefined> {
  const text = JSON.stringify(document);
  return tx
    .insertInto('workspaceRecipes')
    .values({
      workspaceId,
      recipeId: recipe.id,
      version: recipe.version,
      name: recipe.name,
      platform: recipe.platform,
      routines: recipe.routines,
      body: text,
      source: text,
      enabled,
      createdById: userId,
      basedOn: origin.basedOn ?? null,
      basedOnVersion: origin.basedOnVersion ?? null,
      note: origin.note ?? null,
    })
    .onConflict((oc) => oc.columns(['workspaceId', 'recipeId', 'version']).doNothing())
    .returning([...columns, documentText])
    .executeTakeFirst()
    .then(withBody);
}

/**
 * Locks every version of a recipe id in the workspace (a save or a restore waits for another in flight on the same
 * recipe) and answers the highest version and whether any version is on. A save racing past the lock (a recipe id
 * with no row yet) meets the unique (workspace, recipe id, version) instead and is answered 409.
 */
export async function lockRecipeVersions(tx: Tx, workspaceId: string, recipeId: string): Promise<{ latest: number; anyEnabled: boolean }> {
  const versions = tx.selectFrom('workspaceRecipes').select(['version', 'enabled']).where('workspaceId', '=', workspaceId).where('recipeId', '=', recipeId);
  await versions.forUpdate().execute();
  // Read again after the lock: a save that held it committed a version this statement's snapshot now sees.
  const rows = await versions.execute();
  return { latest: Math.max(0, ...rows.map((row) => row.version)), anyEnabled: rows.some((row) => row.enabled) };
}

/** Turns off every version of a recipe id but `keepId`: one version of a recipe is sent to phones at a time. */
export async function turnOffOtherVersions(tx: Tx, workspaceId: string, recipeId: string, keepId: string): Promise<void> {
  await tx
    .updateTable('workspaceRecipes')
    .set({ enabled: false, updatedAt: new Date() })
    .where('workspaceId', '=', workspaceId)
    .where('recipeId', '=', recipeId)
    .where('id', '!=', keepId)
    .where('enabled', '=', true)
    .execute();
}

/** Every version of a recipe id, the newest first, with the name of who saved it. */
export function listRecipeVersions(db: Db, workspaceId: string, recipeId: string) {
  return db
    .selectFrom('workspaceRecipes as r')
    .leftJoin('users as u', 'u.id', 'r.createdById')
    .select([
      'r.id',
      'r.version',
      'r.name',
      'r.enabled',
      'r.createdAt',
      'u.name as savedBy',
      'r.note',
      'r.basedOn',
      'r.basedOnVersion',
      'r.invalidField',
      'r.invalidReason',
    ])
    .where('r.workspaceId', '=', workspaceId)
    .where('r.recipeId', '=', recipeId)
    .orderBy('r.version', 'desc')
    .execute();
}

export async function setWorkspaceRecipeEnabled(tx: Tx, workspaceId: string, id: string, enabled: boolean): Promise<WorkspaceRecipeRow | undefined> {
  return withBody(
    await tx
      .updateTable('workspaceRecipes')
      .set({ enabled, updatedAt: new Date() })
      .where('workspaceId', '=', workspaceId)
      .where('id', '=', id)
      .returning([...columns, bodyText])
      .executeTakeFirst(),
  );
}

export async function deleteWorkspaceRecipe(tx: Tx, workspaceId: string, id: string): Promise<WorkspaceRecipeRow | undefined> {
  return withBody(
    await tx
      .deleteFrom('workspaceRecipes')
      .where('workspaceId', '=', workspaceId)
      .where('id', '=', id)
      .returning([...columns, bodyText])
      .executeTakeFirst(),
  );
}

/**
 * The stored recipes (across workspaces, or of one) that the rules' current revision has not yet passed, with their
 * documents; `all` reads every one again.
 */
export async function storedRecipesToCheck(
  db: Db,
  revision: number,
  scope: { workspaceId?: string | undefined; all?: boolean | undefined } = {},
): Promise<{ id: string; workspaceId: string; name: string; invalidReason: string | null; body: unknown }[]> {
  let query = db.selectFrom('workspaceRecipes').select(['id', 'workspaceId', 'name', 'invalidReason', bodyText]);
  if (scope.workspaceId) query = query.where('workspaceId', '=', scope.workspaceId);
  if (!scope.all) query = query.where((eb) => eb.or([eb('rulesChecked', 'is', null), eb('rulesChecked', '!=', revision)]));
  const rows = await query.execute();
  return rows.map(({ bodyText: text, ...row }) => ({ ...row, body: JSON.parse(text) as unknown }));
}

/** Turns a stored recipe off as invalid, with where and why; answers nothing when it was already marked so. */
export async function markRecipeInvalid(tx: Tx, id: string, revision: number, field: string, reason: string) {
  const marked = await tx
    .updateTable('workspaceRecipes')
    .set({ enabled: false, invalidField: field, invalidReason: reason, rulesChecked: revision, updatedAt: new Date() })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('invalidReason', 'is', null), eb('invalidReason', '!=', reason)]))
    .returning(['id', 'workspaceId', 'name', 'recipeId', 'version'])
    .executeTakeFirst();
  // Already marked with this very reason: only the revision moves on, so the next start does not read it again.
  if (!marked) await tx.updateTable('workspaceRecipes').set({ rulesChecked: revision }).where('id', '=', id).execute();
  return marked;
}

/**
 * Notes that these recipes pass the rules' revision, clearing the mark of any the rules refused before (an upgrade
 * that relaxed a rule); a recipe turned off stays off until an operator turns it on.
 */
export async function markRecipesChecked(tx: Tx, ids: readonly string[], revision: number): Promise<void> {
  for (let at = 0; at < ids.length; at += 500)
    await tx
      .updateTable('workspaceRecipes')
      .set({ rulesChecked: revision, invalidField: null, invalidReason: null })
      .where('id', 'in', ids.slice(at, at + 500))
      .execute();
}

export async function recipeSettingsOf(db: Db, workspaceId: string): Promise<{ tryUntestedTemplates: boolean }> {
  const row = await db.selectFrom('workspaces').select('tryUntestedTemplates').where('id', '=', workspaceId).executeTakeFirst();
  return { tryUntestedTemplates: row?.tryUntestedTemplates ?? false };
}

export async function setTryUntestedTemplates(tx: Tx, workspaceId: string, on: boolean): Promise<boolean> {
  const before = await tx.selectFrom('workspaces').select('tryUntestedTemplates').where('id', '=', workspaceId).forUpdate().executeTakeFirstOrThrow();
  if (before.tryUntestedTemplates === on) return false;
  await tx.updateTable('workspaces').set({ tryUntestedTemplates: on, updatedAt: new Date() }).where('id', '=', workspaceId).execute();
  return true;
}

/** Keeps a recorded draft's step screenshots with its row (their bytes count in the quota). */
export async function setStepShots(tx: Tx, id: string, shots: readonly { fingerprint: string; image: string }[], bytes: number): Promise<void> {
  await tx
    .updateTable('workspaceRecipes')
    .set({ stepShots: JSON.stringify(shots), stepShotsBytes: bytes })
    .where('id', '=', id)
    .execute();
}

/** A recipe's step screenshots as stored (`[{ fingerprint, image }]`). */
export async function stepShotsOf(db: Db | Tx, workspaceId: string, id: string): Promise<unknown> {
  const row = await db
    .selectFrom('workspaceRecipes')
    .select(sql<string>`step_shots::text`.as('shots'))
    .where('workspaceId', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? (JSON.parse(row.shots) as unknown) : [];
}

/** A new version keeps the screenshots of the version it was saved from. */
export async function copyStepShots(tx: Tx, fromId: string, toId: string): Promise<void> {
  await sql`update workspace_recipes t set step_shots = f.step_shots, step_shots_bytes = f.step_shots_bytes
            from workspace_recipes f where f.id = ${fromId} and t.id = ${toId}`.execute(tx);
}
