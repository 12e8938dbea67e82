/**
 * The breaker: when one recipe ends `app_changed` (or, final after its one retry, `screen_unreadable`: a screen the
 * recipe cannot read is as much a changed app to the fleet) on BREAKER_PHONES distinct phones with the same app
 * version within BREAKER_WINDOW_MS, the workspace stops dispatching that recipe's routines to phones with that version. Its tasks
 * stay pending ("Recipe paused for this app version"), an activity and the `recipe.paused` webhook tell the operators,
 * and an operator either sends the waiting work to the phones' VAs by hand or turns the recipe back on (which starts
 * the count again). One app update that breaks a recipe costs three runs, not the whole fleet's.
 *
 * Which recipe a task would run is the phone's to decide; the server pauses by what the recipe drives (its platform
 * and routines) on phones whose hello said they have the paused app version. A phone that never said its versions
 * (agents before 0035) is not held back: its run fails again and stays counted.
 */
import { sql, type RawBuilder } from 'kysely';
import { serialize } from '@farm/sql';
import { RECIPE_PAUSED_NOTE, type RecipeBreaker } from '@farm/contracts';
import { shippedRecipes } from '@farm/agent-protocol/recipes';
import { describeWork, type TaskWork } from '@farm/agent-protocol/work';
import type { TaskRow } from '@farm/sql';
import type { Db, Tx } from '../db.ts';
import { recordActivity } from '../activities.ts';
import { raiseAlert } from '../alerts.ts';
import type { Outbox, Outboxes } from '../outbox.ts';
import { recipeTarget } from './recipes.ts';

/** What the breaker reads of a phone's failure (the lifecycle's `Failure` has these fields). */
interface RunFailure {
  code: string;
  recipe?: { id: string; version: number } | undefined;
  app?: { package: string; version: string } | undefined;
}

export const BREAKER_PHONES = 3;
export const BREAKER_WINDOW_MS = 6 * 60 * 60_000;
export const PAUSED_NOTE = RECIPE_PAUSED_NOTE;

/** The routine a task's work runs, in SQL over `tasks as t`. */
const taskRoutine = sql<string>`(case t.work->>'kind' when 'post.publish' then 'create_post' else t.work->>'routineType' end)`;
const taskPlatform = sql<string>`(case t.work->>'kind' when 'post.publish' then t.work->'account'->>'platform' else t.work->>'platform' end)`;

/** Over `tasks as t` and `recipe_breakers as b`: the task is work of the paused recipe on a phone with the paused version. */
const heldBy = sql<boolean>`(
  t.work->>'kind' in ('post.publish', 'routine.run')
  and ${taskPlatform} = b.platform
  and ${taskRoutine} = any(b.routines)
  and exists (
    select 1 from device_software s
    where s.device_id = t.device_id
      and s.apps @> jsonb_build_array(jsonb_build_object('package', b.package, 'version', b.app_version))
  ))`;

/** For `readyWork`: true when no paused recipe holds the task (`tasks as t`) back. */
export const notHeldByBreaker: RawBuilder<boolean> = sql<boolean>`not exists (
  select 1 from recipe_breakers b where b.workspace_id = t.workspace_id and b.paused and ${heldBy})`;

interface BreakerRow {
  id: string;
  workspaceId: string;
  recipeId: string;
  recipeName: string;
  platform: string;
  routines: string[];
  package: string;
  appVersion: string;
  paused: boolean;
  phones: number;
  trippedAt: Date;
}

async function waitingTasks(db: Db, breakerIds: readonly string[]): Promise<Map<string, number>> {
  if (breakerIds.length === 0) return new Map();
  const { rows } = await sql<{ id: string; n: string }>`
    select b.id, count(t.id) as n
    from recipe_breakers b
    left join tasks t on t.workspace_id = b.workspace_id and t.status = 'pending' and t.dispatched_at is null and ${heldBy}
    where b.id = any(${[...breakerIds]}::uuid[])
    group by b.id`.execute(db);
  return new Map(rows.map((row) => [row.id, Number(row.n)]));
}

function toBreaker(row: BreakerRow, waiting: number): RecipeBreaker {
  return {
    id: row.id,
    recipeId: row.recipeId,
    recipeName: row.recipeName,
    platform: row.platform,
    routines: row.routines,
    appPackage: row.package,
    appVersion: row.appVersion,
    paused: row.paused,
    phones: row.phones,
    trippedAt: row.trippedAt.toISOString(),
    waitingTasks: waiting,
  };
}

const breakerColumns = [
  'id',
  'workspaceId',
  'recipeId',
  'recipeName',
  'platform',
  'routines',
  'package',
  'appVersion',
  'paused',
  'phones',
  'trippedAt',
] as const;

/** The workspace's paused recipes, newest first, each with the tasks it holds back. */
export async function listPausedRecipes(db: Db, workspaceId: string): Promise<RecipeBreaker[]> {
  const rows = await db
    .selectFrom('recipeBreakers')
    .select(breakerColumns)
    .where('workspaceId', '=', workspaceId)
    .where('paused', '=', true)
    .orderBy('trippedAt', 'desc')
    .execute();
  const waiting = await waitingTasks(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toBreaker(row, waiting.get(row.id) ?? 0));
}

/** The recipe's name, platform and routines: a workspace's own version of it, else the shipped one, else the task's. */
async function recipeFacts(tx: Tx, workspaceId: string, recipeId: string, work: TaskWork): Promise<{ name: string; platform: string; routines: string[] }> {
  const own = await tx
    .selectFrom('workspaceRecipes')
    .select(['name', 'platform', 'routines'])
    .where('workspaceId', '=', workspaceId)
    .where('recipeId', '=', recipeId)
    .orderBy('version', 'desc')
    .executeTakeFirst();
  if (own) return { name: own.name, platform: own.platform, routines: own.routines };
  const shipped = shippedRecipes().find((recipe) => recipe.id === recipeId);
  if (shipped) return { name: shipped.name, platform: shipped.platform, routines: [...shipped.routines] };
  const target = recipeTarget(work);
  return { name: recipeId, platform: target?.platform ?? 'unknown', routines: target ? [target.routine] : [] };
}

/** The final failures the breaker counts: a changed app, and an unreadable screen after its one retry. */
const countedCodes: ReadonlySet<string> = new Set(['app_changed', 'screen_unreadable']);

/** True when a task that settled failed with this code counts toward its recipe's breaker. */
export function countsForBreaker(code: string): boolean {
  return countedCodes.has(code);
}

/**
 * Counts a run that ended `app_changed` (or finally `screen_unreadable`, counted alike) and trips the breaker on the
 * BREAKER_PHONES-th distinct phone within the window: once, however many results arrive together (the count and the
 * trip are serialized per recipe and version). Answers the breaker when this result tripped it.
 */
export async function noteAppChanged(tx: Tx, task: TaskRow, failure: RunFailure, outbox: Outbox): Promise<RecipeBreaker | null> {
  if (!countsForBreaker(failure.code) || !failure.recipe || !failure.app || !task.deviceId) return null;
  const { recipe, app } = failure;
  await tx
    .insertInto('recipeFailures')
    .values({ workspaceId: task.workspaceId, recipeId: recipe.id, package: app.package, appVersion: app.version, deviceId: task.deviceId, taskId: task.id })
    .execute();
  // One counter at a time per recipe and version: the third and fourth phones' results racing trip it once.
  await sql`select pg_advisory_xact_lock(hashtext(${`breaker:${task.workspaceId}:${recipe.id}:${app.package}:${app.version}`}))`.execute(tx);
  const known = await tx
    .selectFrom('recipeBreakers')
    .select(['paused', 'countedFrom'])
    .where('workspaceId', '=', task.workspaceId)
    .where('recipeId', '=', recipe.id)
    .where('package', '=', app.package)
    .where('appVersion', '=', app.version)
    .executeTakeFirst();
  if (known?.paused) return null;
  const counted = await tx
    .selectFrom('recipeFailures')
    .select(sql<string>`count(distinct device_id)`.as('phones'))
    .where('workspaceId', '=', task.workspaceId)
    .where('recipeId', '=', recipe.id)
    .where('package', '=', app.package)
    .where('appVersion', '=', app.version)
    .where('at', '>', sql<Date>`now() - (${BREAKER_WINDOW_MS} * interval '1 millisecond')`)
    .$if(known !== undefined, (query) => query.where('at', '>', known!.countedFrom))
    .executeTakeFirstOrThrow();
  const phones = Number(counted.phones);
  if (phones < BREAKER_PHONES) return null;
  const facts = await recipeFacts(tx, task.workspaceId, recipe.id, task.work as TaskWork);
  const tripped = await tx
    .insertInto('recipeBreakers')
    .values({
      workspaceId: task.workspaceId,
      recipeId: recipe.id,
      recipeName: facts.name,
      platform: facts.platform,
      routines: facts.routines,
      package: app.package,
      appVersion: app.version,
      phones,
    })
    .onConflict((oc) =>
      oc
        .columns(['workspaceId', 'recipeId', 'package', 'appVersion'])
        .doUpdateSet({ paused: true, phones, trippedAt: sql<Date>`now()`, recipeName: facts.name, platform: facts.platform, routines: facts.routines })
        .where('recipeBreakers.paused', '=', false),
    )
    .returning(breakerColumns)
    .executeTakeFirst();
  if (!tripped) return null;
  const held = await noteHeldTasks(tx, tripped.id, PAUSED_NOTE, outbox);
  const text = `Recipe "${tripped.recipeName}" paused for ${tripped.package} ${tripped.appVersion}: it no longer matched the app on ${phones} phones within ${BREAKER_WINDOW_MS / 3_600_000} hours. Its work on phones with this version waits; send it to VAs by hand or turn the recipe back on once it is mended.`;
  await recordActivity(
    tx,
    { workspaceId: task.workspaceId, userId: null, action: text, deviceId: task.deviceId, type: 'error' },
    {
      action: 'recipe.paused',
      entityType: 'recipe',
      entityId: tripped.id,
      data: { recipeId: recipe.id, package: app.package, appVersion: app.version, phones },
    },
    outbox,
  );
  await raiseAlert(tx, task.workspaceId, 'recipe.paused', {
    id: tripped.id,
    at: tripped.trippedAt.toISOString(),
    text,
    recipeId: recipe.id,
    recipeName: tripped.recipeName,
    package: app.package,
    appVersion: app.version,
    phones,
  });
  const breaker = toBreaker(tripped, held);
  outbox.add('recipe.breaker', breaker);
  return breaker;
}

/** Writes (or clears, with null) the waiting note on the pending tasks a breaker holds back; answers how many. */
async function noteHeldTasks(tx: Tx, breakerId: string, note: string | null, outbox: Outbox): Promise<number> {
  const { rows } = await sql<{ id: string }>`
    update tasks t set progress_note = ${note}, updated_at = now()
    from recipe_breakers b
    where b.id = ${breakerId} and t.workspace_id = b.workspace_id and t.status = 'pending' and t.dispatched_at is null and ${heldBy}
      and t.progress_note is distinct from ${note}
    returning t.id`.execute(tx);
  if (rows.length === 0) return 0;
  const tasks = await tx
    .selectFrom('tasks')
    .selectAll()
    .where(
      'id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
  for (const task of tasks) outbox.add('task.updated', serialize(task));
  return rows.length;
}

/**
 * New tasks a paused recipe holds back say so from the start (`createTasks` calls this with what it inserted):
 * answers the tasks as they are now, noted or not.
 */
export async function noteNewTasksHeld(tx: Tx, tasks: readonly TaskRow[]): Promise<TaskRow[]> {
  const candidates = tasks.filter((task) => task.deviceId && task.status === 'pending' && (task.work as TaskWork).kind !== 'manual');
  if (candidates.length === 0) return [...tasks];
  const { rows } = await sql<{ id: string }>`
    update tasks t set progress_note = ${PAUSED_NOTE}
    where t.id = any(${candidates.map((task) => task.id)}::uuid[])
      and exists (select 1 from recipe_breakers b where b.workspace_id = t.workspace_id and b.paused and ${heldBy})
    returning t.id`.execute(tx);
  if (rows.length === 0) return [...tasks];
  const noted = new Set(rows.map((row) => row.id));
  return tasks.map((task) => (noted.has(task.id) ? { ...task, progressNote: PAUSED_NOTE } : task));
}

async function pausedBreaker(tx: Tx, workspaceId: string, breakerId: string): Promise<BreakerRow | undefined> {
  return tx
    .selectFrom('recipeBreakers')
    .select(breakerColumns)
    .where('workspaceId', '=', workspaceId)
    .where('id', '=', breakerId)
    .where('paused', '=', true)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * "Turn it back on": dispatch resumes, the waiting notes go, and the count starts again from now. Answers the
 * breaker as it is now, or undefined when it was not paused (already on, or another workspace's).
 */
export async function resumeRecipe(tx: Tx, workspaceId: string, breakerId: string, userId: string, outbox: Outbox): Promise<RecipeBreaker | undefined> {
  const found = await pausedBreaker(tx, workspaceId, breakerId);
  if (!found) return undefined;
  await noteHeldTasks(tx, found.id, null, outbox);
  const row = await tx
    .updateTable('recipeBreakers')
    .set({ paused: false, countedFrom: sql<Date>`now()`, resumedAt: sql<Date>`now()`, resumedBy: userId })
    .where('id', '=', found.id)
    .returning(breakerColumns)
    .executeTakeFirstOrThrow();
  // The phones that waited take their work now.
  const devices = await tx
    .selectFrom('deviceSoftware as s')
    .select('s.deviceId')
    .where('s.workspaceId', '=', workspaceId)
    .where(sql<boolean>`s.apps @> jsonb_build_array(jsonb_build_object('package', ${row.package}::text, 'version', ${row.appVersion}::text))`)
    .execute();
  for (const device of devices) outbox.internal('device.wake', { deviceId: device.deviceId });
  await recordActivity(
    tx,
    { workspaceId, userId, action: `Recipe "${row.recipeName}" turned back on for ${row.package} ${row.appVersion}`, type: 'info' },
    { action: 'recipe.resumed', entityType: 'recipe', entityId: row.id, data: { recipeId: row.recipeId, package: row.package, appVersion: row.appVersion } },
    outbox,
  );
  const breaker = toBreaker(row, 0);
  outbox.add('recipe.breaker', breaker);
  return breaker;
}

/**
 * "Send this work to VAs by hand": each pending task the breaker holds back becomes its phone's VA's, told in words
 * (as work no recipe can do is). The recipe stays paused for what comes next. Answers how many tasks moved, or
 * undefined when the breaker is not paused.
 */
export async function sendPausedWorkToVAs(tx: Tx, workspaceId: string, breakerId: string, userId: string, outboxes: Outboxes): Promise<number | undefined> {
  const found = await pausedBreaker(tx, workspaceId, breakerId);
  if (!found) return undefined;
  const outbox = outboxes.for(workspaceId);
  const { rows: held } = await sql<{ id: string }>`
    select t.id from tasks t join recipe_breakers b on b.id = ${found.id}
    where t.workspace_id = b.workspace_id and t.status = 'pending' and t.dispatched_at is null and ${heldBy}
    for update of t`.execute(tx);
  let moved = 0;
  for (const { id } of held) {
    const task = await tx.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const device = task.deviceId ? await tx.selectFrom('devices').select(['assignedToId']).where('id', '=', task.deviceId).executeTakeFirst() : undefined;
    const description = [
      `Recipe "${found.recipeName}" is paused for ${found.package} ${found.appVersion}, the version on this phone: do this on the phone by hand, then mark the task done.`,
      describeWork(task.work as TaskWork),
    ]
      .filter(Boolean)
      .join('\n\n');
    const updated = await tx
      .updateTable('tasks')
      .set({
        title: task.title.endsWith('(by hand)') ? task.title : `${task.title} (by hand)`,
        description,
        work: JSON.stringify({ kind: 'manual', description }),
        assignedToId: task.assignedToId ?? device?.assignedToId ?? null,
        progressNote: null,
        updatedAt: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    if (!updated) continue;
    moved += 1;
    outbox.add('task.updated', serialize(updated));
    if (updated.assignedToId) outbox.add('task.assigned', serialize(updated), updated.assignedToId);
  }
  await recordActivity(
    tx,
    {
      workspaceId,
      userId,
      action: `${moved} task${moved === 1 ? '' : 's'} of recipe "${found.recipeName}" (${found.package} ${found.appVersion}) sent to VAs by hand`,
      type: 'info',
    },
    { action: 'recipe.sent_by_hand', entityType: 'recipe', entityId: found.id, data: { tasks: moved } },
    outbox,
  );
  outbox.add('recipe.breaker', toBreaker(found, 0));
  return moved;
}
