/** Dry runs and their step traces in the database: the run's row, the phone and account it runs on, its steps. */
import { sql } from 'kysely';
import type { TraceVerdict } from '@farm/agent-protocol/dryrun';
import { unsettledTaskStatuses } from '@farm/agent-protocol/values';
import type { DryRunStatus } from '@farm/sql';
// A run under way holds its phone: one rule with the dispatcher's (devices/status.ts there).
import { DRY_RUN_UNDER_WAY, dryRunUnderWay } from '@farm/workers';
import { findMember } from '../../shared/members.queries.ts';
import type { Db, Tx } from '../../shared/types.ts';

export function runQuery(db: Db, workspaceId: string) {
  return db
    .selectFrom('recipeDryRuns as r')
    .leftJoin('devices as d', 'd.id', 'r.deviceId')
    .leftJoin('users as u', 'u.id', 'r.startedById')
    .select([
      'r.id',
      'r.workspaceId',
      'r.recipeRowId',
      'r.recipeId',
      'r.recipeVersion',
      'r.recipeName',
      'r.deviceId',
      'd.name as deviceName',
      // Who may see the run's trace: whoever may control its phone (screens.rules.ts).
      'd.assignedToId as deviceAssignedToId',
      'r.startedById',
      'u.name as startedByName',
      'r.accountId',
      'r.mode',
      'r.effects',
      'r.status',
      'r.failureCode',
      'r.failureMessage',
      'r.appPackage',
      'r.appVersion',
      'r.locale',
      sql<string>`r.actions::text`.as('actionsText'),
      'r.steps',
      'r.startedAt',
      'r.finishedAt',
      'r.verified',
    ])
    .where('r.workspaceId', '=', workspaceId);
}

export type DryRunRow = Awaited<ReturnType<ReturnType<typeof runQuery>['executeTakeFirstOrThrow']>>;

export function findRun(db: Db, workspaceId: string, id: string) {
  return runQuery(db, workspaceId).where('r.id', '=', id).executeTakeFirst();
}

/** A recipe's recent runs; a VA's (`viewer`), those on the phones assigned to them only. */
export function listRuns(db: Db, workspaceId: string, recipeRowId: string, viewer?: string) {
  let query = runQuery(db, workspaceId).where('r.recipeRowId', '=', recipeRowId);
  if (viewer) query = query.where('d.assignedToId', '=', viewer);
  return query.orderBy('r.startedAt', 'desc').limit(50).execute();
}

/** A run as the phone's messages find it: by its id, on that phone. */
export function runOfDevice(db: Db, deviceId: string, runId: string) {
  return db.selectFrom('recipeDryRuns').selectAll().where('id', '=', runId).where('deviceId', '=', deviceId).executeTakeFirst();
}

/** The phone as a dry run needs it: its assignee, who controls it, whether it is online. */
export function deviceForRun(db: Db, workspaceId: string, deviceId: string) {
  return db
    .selectFrom('devices')
    .select(['id', 'name', 'status', 'assignedToId', 'controlledById'])
    .where('workspaceId', '=', workspaceId)
    .where('id', '=', deviceId)
    .executeTakeFirst();
}

/** The apps the phone reported in its last hello (`[{ package, version }]`). */
export async function deviceApps(db: Db, deviceId: string): Promise<{ package: string; version: string | null }[]> {
  const row = await db.selectFrom('deviceSoftware').select(sql<string>`apps::text`.as('apps')).where('deviceId', '=', deviceId).executeTakeFirst();
  if (!row) return [];
  const parsed = JSON.parse(row.apps) as unknown;
  return Array.isArray(parsed) ? (parsed as { package: string; version: string | null }[]) : [];
}

/** The phone's account on a platform (the one it is signed in to), paused ones included. */
export function accountOnDevice(db: Db, workspaceId: string, deviceId: string, platform: string) {
  return db
    .selectFrom('accounts')
    .select(['id', 'username', 'platform', 'status', 'pausedCode', 'pausedMessage'])
    .where('workspaceId', '=', workspaceId)
    .where('deviceId', '=', deviceId)
    .where('platform', '=', platform as never)
    .orderBy(sql`case status when 'active' then 0 when 'warmup' then 1 else 2 end`)
    .orderBy('createdAt')
    .executeTakeFirst();
}

/** A task out on the phone now (dispatched and not settled), if any. */
export function taskOut(db: Db, deviceId: string) {
  return db
    .selectFrom('tasks')
    .select(['id', 'title'])
    .where('deviceId', '=', deviceId)
    .where('dispatchedAt', 'is not', null)
    .where('status', 'in', [...unsettledTaskStatuses])
    .executeTakeFirst();
}

/** Whether a dry run is under way on the phone (the rule the dispatcher holds its tasks by). */
export async function runUnderWay(db: Db, deviceId: string): Promise<boolean> {
  const row = await db.selectNoFrom(dryRunUnderWay(sql<string>`${deviceId}::uuid`).as('underWay')).executeTakeFirstOrThrow();
  return row.underWay;
}

/** The app versions this recipe row was verified on, newest first (the phone's pre-flight coverage gate reads them). */
export function verificationsOfRow(db: Db, workspaceId: string, recipeRowId: string) {
  return db
    .selectFrom('recipeVerifications')
    .select(['recipeId', 'package', 'appVersion', 'locale'])
    .where('workspaceId', '=', workspaceId)
    .where('recipeRowId', '=', recipeRowId)
    .orderBy('createdAt', 'desc')
    .limit(200)
    .execute();
}

/** Whether the person is an active operator of the workspace now (only an operator's run verifies). */
export async function isOperatorNow(db: Db | Tx, workspaceId: string, userId: string | null): Promise<boolean> {
  const member = userId ? await findMember(db, workspaceId, userId) : undefined;
  return member?.role === 'operator' && member.deactivatedAt === null;
}

/**
 * Who may see the phone's screens as they come (screens.rules.ts): the workspace's active operators and the VA the
 * phone is assigned to.
 */
export async function screenViewersOf(db: Db | Tx, workspaceId: string, deviceId: string | null): Promise<string[]> {
  const [operators, device] = await Promise.all([
    db
      .selectFrom('workspaceMembers')
      .select('userId')
      .where('workspaceId', '=', workspaceId)
      .where('role', '=', 'operator')
      .where('deactivatedAt', 'is', null)
      .execute(),
    deviceId
      ? db.selectFrom('devices').select('assignedToId').where('workspaceId', '=', workspaceId).where('id', '=', deviceId).executeTakeFirst()
      : Promise.resolve(undefined),
  ]);
  return [...new Set([...operators.map((row) => row.userId), ...(device?.assignedToId ? [device.assignedToId] : [])])];
}

export function tryUntestedTemplates(db: Db, workspaceId: string) {
  return db.selectFrom('workspaces').select('tryUntestedTemplates').where('id', '=', workspaceId).executeTakeFirst();
}

export async function insertRun(
  tx: Tx,
  values: {
    workspaceId: string;
    recipeRowId: string;
    recipeId: string;
    recipeVersion: number;
    recipeName: string;
    deviceId: string;
    startedById: string;
    accountId: string | null;
    mode: 'straight' | 'step';
    effects: boolean;
    mediaKeys: string[];
  },
): Promise<string> {
  const row = await tx.insertInto('recipeDryRuns').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Moves a run on, only from the statuses given; answers whether it moved. */
export async function setRunStatus(
  db: Db | Tx,
  id: string,
  from: readonly DryRunStatus[],
  set: {
    status: DryRunStatus;
    failureCode?: string | null;
    failureMessage?: string | null;
    appPackage?: string | null;
    appVersion?: string | null;
    locale?: string | null;
    actions?: string;
    steps?: number;
    verified?: boolean;
  },
): Promise<boolean> {
  const ended = !DRY_RUN_UNDER_WAY.includes(set.status);
  const result = await db
    .updateTable('recipeDryRuns')
    .set({ ...set, heardAt: sql<Date>`now()`, ...(ended ? { finishedAt: sql<Date>`now()` } : {}) })
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function markVerified(tx: Tx, id: string): Promise<void> {
  await tx.updateTable('recipeDryRuns').set({ verified: true }).where('id', '=', id).execute();
}

/** Runs under way on the phone, ended as failed with this reason (the phone left); answers their ids and workspaces. */
export function failRunsOfDevice(db: Db, deviceId: string, code: string, message: string) {
  return db
    .updateTable('recipeDryRuns')
    .set({ status: 'failed', failureCode: code, failureMessage: message, finishedAt: sql<Date>`now()` })
    .where('deviceId', '=', deviceId)
    .where('status', 'in', DRY_RUN_UNDER_WAY)
    .returning(['id', 'workspaceId'])
    .execute();
}

/**
 * Runs under way whose starter may no longer control the phone: no longer an active member of the workspace, or not
 * an operator and not the phone's assignee (the phone reassigned or unassigned, the person demoted or removed), or the
 * phone gone. Of one workspace, or of every one (the sweep); of one run when `runId` is given.
 */
export function runsWithoutRights(db: Db | Tx, scope: { workspaceId?: string; runId?: string }) {
  let query = db
    .selectFrom('recipeDryRuns as r')
    .leftJoin('devices as d', 'd.id', 'r.deviceId')
    .select(['r.id', 'r.workspaceId', 'r.deviceId', 'd.name as deviceName', 'r.recipeName', 'r.recipeVersion', 'r.startedById'])
    .where('r.status', 'in', DRY_RUN_UNDER_WAY)
    .where(
      sql<boolean>`NOT EXISTS (
        SELECT 1 FROM workspace_members m
        WHERE m.workspace_id = r.workspace_id AND m.user_id = r.started_by_id AND m.deactivated_at IS NULL
          AND d.id IS NOT NULL AND (m.role = 'operator' OR d.assigned_to_id = r.started_by_id)
      )`,
    );
  if (scope.workspaceId !== undefined) query = query.where('r.workspaceId', '=', scope.workspaceId);
  if (scope.runId !== undefined) query = query.where('r.id', '=', scope.runId);
  return query.execute();
}

/** Runs under way with no sign of life for too long: straight runs after `straightMs`, step-by-step after `stepMs`. */
export function failSilentRuns(db: Db, straightMs: number, stepMs: number, message: string) {
  return db
    .updateTable('recipeDryRuns')
    .set({ status: 'failed', failureCode: 'timeout', failureMessage: message, finishedAt: sql<Date>`now()` })
    .where('status', 'in', DRY_RUN_UNDER_WAY)
    .where((eb) =>
      eb.or([
        eb.and([eb('mode', '=', 'straight'), eb('heardAt', '<', sql<Date>`now() - make_interval(secs => ${straightMs / 1000})`)]),
        eb.and([eb('mode', '=', 'step'), eb('heardAt', '<', sql<Date>`now() - make_interval(secs => ${stepMs / 1000})`)]),
      ]),
    )
    .returning(['id', 'workspaceId'])
    .execute();
}

// ── the trace ───────────────────────────────────────────────────────────────────────────────────────────────

export function stepsOf(db: Db, workspaceId: string, runId: string) {
  return db
    .selectFrom('recipeTraceSteps')
    .select([
      'seq',
      'path',
      'do',
      'label',
      'verdict',
      'detail',
      sql<string | null>`selector::text`.as('selectorText'),
      sql<string | null>`matched::text`.as('matchedText'),
      sql<string | null>`point::text`.as('pointText'),
      'action',
      'ms',
      'frameKey',
      'frameWidth',
      'frameHeight',
      sql<boolean>`tree is not null`.as('hasTree'),
    ])
    .where('workspaceId', '=', workspaceId)
    .where('dryRunId', '=', runId)
    .orderBy('seq')
    .execute();
}

export type TraceStepRow = Awaited<ReturnType<typeof stepsOf>>[number];

export function stepOf(db: Db, workspaceId: string, runId: string, seq: number) {
  return stepsOf(db, workspaceId, runId).then((rows) => rows.find((row) => row.seq === seq));
}

export async function stepTree(db: Db, workspaceId: string, runId: string, seq: number): Promise<unknown> {
  const row = await db
    .selectFrom('recipeTraceSteps')
    .select(sql<string | null>`tree::text`.as('tree'))
    .where('workspaceId', '=', workspaceId)
    .where('dryRunId', '=', runId)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return row?.tree ? (JSON.parse(row.tree) as unknown) : undefined;
}

export async function insertStep(
  tx: Tx,
  values: {
    dryRunId: string;
    workspaceId: string;
    seq: number;
    path: string;
    do: string;
    label: string;
    verdict: TraceVerdict;
    detail: string | null;
    selector: string | null;
    matched: string | null;
    point: string | null;
    action: string | null;
    ms: number;
    frameKey: string | null;
    frameMime: string | null;
    frameSize: number;
    frameWidth: number | null;
    frameHeight: number | null;
    tree: string | null;
    treeBytes: number;
  },
): Promise<boolean> {
  const row = await tx
    .insertInto('recipeTraceSteps')
    .values(values)
    .onConflict((oc) => oc.columns(['dryRunId', 'seq']).doNothing())
    .returning('seq')
    .executeTakeFirst();
  if (!row) return false;
  await tx
    .updateTable('recipeDryRuns')
    .set({ steps: sql<number>`greatest(steps, ${values.seq})`, heardAt: sql<Date>`now()`, status: 'running' })
    .where('id', '=', values.dryRunId)
    .execute();
  return true;
}

export async function insertFrameObject(tx: Tx, values: { key: string; workspaceId: string; contentType: string; size: number }): Promise<void> {
  await tx
    .insertInto('storedObjects')
    .values({ ...values, uploadedAt: new Date() })
    .execute();
}

/**
 * Removes the stored screenshots of a recipe's dry runs (their rows go with the recipe, ON DELETE CASCADE, which
 * would leave the files counted in the quota); answers their keys, for the files to go once the write commits.
 */
export async function removeRecipeTraceFrames(tx: Tx, workspaceId: string, recipeRowId: string): Promise<string[]> {
  const frames = await tx
    .selectFrom('recipeTraceSteps as s')
    .innerJoin('recipeDryRuns as r', 'r.id', 's.dryRunId')
    .select('s.frameKey')
    .where('r.workspaceId', '=', workspaceId)
    .where('r.recipeRowId', '=', recipeRowId)
    .where('s.frameKey', 'is not', null)
    .execute();
  const keys = frames.map((row) => row.frameKey!);
  if (keys.length > 0) await tx.deleteFrom('storedObjects').where('workspaceId', '=', workspaceId).where('key', 'in', keys).execute();
  return keys;
}
