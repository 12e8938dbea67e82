/**
 * Dry runs (the recipe studio): a person runs one workspace recipe on one phone they may control, straight through or
 * a step at a time, with or without effects, and watches its trace. The pre-flight says what the run would touch
 * (the phone's account, its app version and whether the recipe covers it, the counted actions and today's caps);
 * the phone's traces and result come over its socket (dryruns.agent.ts). A run's counted actions count against the
 * account's caps like a task's; an operator's pass with effects (or of a recipe with nothing counted) adds the app
 * version to the versions that recipe row (that one version) is verified on. While a run is under way the phone gets
 * no task (workers' `dryRunUnderWay`, devices/status.ts); a phone that leaves ends its runs, and the sweep ends runs
 * gone silent.
 */
import type { Ack, DryRunStart } from '@farm/agent-protocol';
import { coversApp, recipe as recipeSchema, recipePackages, type Recipe } from '@farm/agent-protocol/recipes';
import { platformNames, type Platform } from '@farm/agent-protocol/values';
import { countedActions, type CountedAction, type CreateDryRunBody, type DryRun, type DryRunPreflight, type TraceStepOut } from '@farm/contracts';
import { isUuid } from '@farm/sql';
import { allowanceOf, capsFor, DRY_RUN_UNDER_WAY, type Outbox, toAppVerification } from '@farm/workers';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, badRequest, conflict, notFound } from '../../errors.ts';
import type { ChangeFeed } from '../../events/changes.ts';
import { write, type WriteContext } from '../../events/write.ts';
import type { Actor, Db, Tx } from '../../shared/types.ts';
import { objectPath, type Storage } from '../../storage/storage.ts';
import { storedObjectId, uploadedObjectsOf } from '../uploads/uploads.service.ts';
import { findWorkspaceRecipe, type WorkspaceRecipeRow } from '../recipes/recipes.queries.ts';
import {
  accountOnDevice,
  deviceApps,
  deviceForRun,
  failSilentRuns,
  findRun,
  insertRun,
  runUnderWay,
  runsWithoutRights,
  setRunStatus,
  taskOut,
  tryUntestedTemplates,
  verificationsOfRow,
  type DryRunRow,
  type TraceStepRow,
} from './dryruns.queries.ts';

/** How long the phone has to say it took a dry run. */
const START_ACK_MS = 15_000;
/** A straight run with no step for this long ended without a word; a step-by-step one may wait longer for "Next step". */
export const SILENT_STRAIGHT_MS = 10 * 60_000;
export const SILENT_STEP_MS = 30 * 60_000;
/** How often the sweep looks for silent runs. */
const SWEEP_MS = 60_000;

const plural: Record<CountedAction, 'likes' | 'follows' | 'comments' | 'posts'> = { like: 'likes', follow: 'follows', comment: 'comments', post: 'posts' };

/** What a dry run asks of the phones' sockets (the `Agents` of agents.socket.ts). */
export interface DryRunPhones {
  dryRunReady(deviceId: string): Promise<'ready' | 'offline' | 'unsupported'>;
  startDryRun(deviceId: string, message: DryRunStart, timeoutMs: number): Promise<Ack | 'offline' | 'unsupported' | 'no answer'>;
  sendDryRun(deviceId: string, event: 'dryrun.next' | 'dryrun.stop', runId: string): Promise<boolean>;
}

interface Context {
  db: Db;
  changes: ChangeFeed;
  storage: Storage;
  agents?: DryRunPhones | undefined;
}

// ── shapes ──────────────────────────────────────────────────────────────────────────────────────────────────

export function toDryRun(row: DryRunRow): DryRun {
  return {
    id: row.id,
    recipeRowId: row.recipeRowId,
    recipeId: row.recipeId,
    recipeVersion: row.recipeVersion,
    recipeName: row.recipeName,
    deviceId: row.deviceId,
    deviceName: row.deviceName ?? null,
    startedById: row.startedById,
    startedByName: row.startedByName ?? null,
    mode: row.mode,
    effects: row.effects,
    status: row.status,
    failure: row.failureCode ? { code: row.failureCode, message: row.failureMessage ?? '' } : null,
    app: row.appPackage && row.appVersion ? { package: row.appPackage, version: row.appVersion, locale: row.locale ?? null } : null,
    actions: JSON.parse(row.actionsText) as DryRun['actions'],
    steps: row.steps,
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt ? row.finishedAt.toISOString() : null,
    verified: row.verified,
  };
}

const json = (text: string | null) => (text ? (JSON.parse(text) as unknown) : null);

export function toStep(row: TraceStepRow): TraceStepOut {
  return {
    seq: row.seq,
    path: row.path,
    do: row.do,
    label: row.label,
    verdict: row.verdict,
    detail: row.detail,
    selector: json(row.selectorText) as TraceStepOut['selector'],
    matched: json(row.matchedText) as TraceStepOut['matched'],
    point: json(row.pointText) as TraceStepOut['point'],
    action: (countedActions as readonly string[]).includes(row.action ?? '') ? (row.action as CountedAction) : null,
    ms: row.ms,
    frameUrl: row.frameKey ? objectPath(row.frameKey) : null,
    frameWidth: row.frameWidth,
    frameHeight: row.frameHeight,
    hasTree: row.hasTree,
  };
}

/** The engagement a recipe's steps count (`counts: like`…), anywhere in its document, in the usual order. */
export function countedActionsOf(body: unknown): CountedAction[] {
  const found = new Set<string>();
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) stack.push(...value);
    else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key === 'counts' && typeof item === 'string') found.add(item);
        else stack.push(item);
      }
    }
  }
  return countedActions.filter((action) => found.has(action));
}

/** Whether a recipe's steps copy files to the phone (`share_media`, `push_media`), anywhere in its document. */
export function copiesFiles(body: unknown): boolean {
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) stack.push(...value);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (record.do === 'share_media' || record.do === 'push_media') return true;
      stack.push(...Object.values(record));
    }
  }
  return false;
}

/**
 * The picked uploads as object keys: each an object id or `/api/objects/<id>`, stored (with its bytes) in the
 * caller's workspace. Anything else is refused naming the entry; the phone then fetches them as a post's media.
 */
async function pickedMedia(db: Db, workspaceId: string, picked: readonly string[]): Promise<string[]> {
  const keys = picked.map((item, index) => {
    const key = isUuid(item.trim()) ? item.trim().toLowerCase() : storedObjectId(item);
    if (!key) throw badRequest(`media.${index}`, 'Media must be files uploaded to this workspace (an object id or /api/objects/<id>), never a path');
    return key;
  });
  const stored = await uploadedObjectsOf(db, workspaceId, keys);
  const missing = keys.findIndex((key) => !stored.has(key));
  if (missing >= 0) throw badRequest(`media.${missing}`, 'Media must be files uploaded to this workspace; this one is not');
  return keys;
}

/** An app as the activity feed names it: `Instagram 312.0 (en_US)`. */
export const appName = (platform: string, app: { package: string; version: string; locale: string | null }) =>
  `${platformNames[platform as Platform] ?? app.package} ${app.version}${app.locale ? ` (${app.locale})` : ''}`;

// ── the pre-flight ──────────────────────────────────────────────────────────────────────────────────────────

interface Checked {
  preflight: DryRunPreflight;
  row: WorkspaceRecipeRow;
  recipe: Recipe;
  device: NonNullable<Awaited<ReturnType<typeof deviceForRun>>>;
  account: Awaited<ReturnType<typeof accountOnDevice>>;
  paused: boolean;
}

/** Everything the browser shows before Start, and what Start checks again; refuses a recipe or phone not the person's. */
export async function preflightOf(ctx: Context, actor: Actor, recipeRowId: string, deviceId: string): Promise<Checked> {
  const { db } = ctx;
  const row = isUuid(recipeRowId) ? await findWorkspaceRecipe(db, actor.workspaceId, recipeRowId) : undefined;
  if (!row) throw badRequest('recipeId', 'That recipe is not in this workspace');
  const device = isUuid(deviceId) ? await deviceForRun(db, actor.workspaceId, deviceId) : undefined;
  if (!device) throw badRequest('deviceId', 'That phone is not in this workspace');
  if (actor.role !== 'operator' && device.assignedToId !== actor.userId)
    throw new AppError(403, 'A VA dry-runs recipes only on the phones assigned to them', [{ field: 'deviceId', message: 'Not assigned to you' }]);
  const parsed = recipeSchema.safeParse(row.body);
  if (!parsed.success) throw badRequest('recipeId', `${row.name} is not valid for the phones' recipe schema; fix it before a dry run`);
  const recipe = parsed.data;

  const [account, apps, verified, workspace, ready, busy, other] = await Promise.all([
    accountOnDevice(db, actor.workspaceId, device.id, row.platform),
    deviceApps(db, device.id),
    verificationsOfRow(db, actor.workspaceId, row.id),
    tryUntestedTemplates(db, actor.workspaceId),
    ctx.agents ? ctx.agents.dryRunReady(device.id) : Promise.resolve('offline' as const),
    taskOut(db, device.id),
    runUnderWay(db, device.id),
  ]);
  const packages = recipePackages(recipe);
  const app = apps.find((one) => packages.includes(one.package)) ?? { package: recipe.app.package, version: null };
  const coverage = app.version
    ? coversApp(
        recipe,
        { package: app.package, version: app.version },
        {
          verifications: verified.map(toAppVerification),
          allowUntested: workspace?.tryUntestedTemplates ?? false,
        },
      )
    : null;
  const caps = capsFor(row.platform);
  const allowance = account ? await allowanceOf(db, actor.workspaceId, account.id, caps) : null;
  const counted = countedActionsOf(row.body).map((action) => ({
    action,
    cap: caps[plural[action]],
    left: allowance ? allowance[plural[action]] : null,
  }));
  const paused = account ? account.status === 'paused' || account.pausedCode !== null : false;

  let blocked: string | null = null;
  if (ready === 'offline') blocked = `${device.name} is offline`;
  else if (ready === 'unsupported') blocked = 'Update farm-agent on this phone to dry-run recipes';
  else if (other) blocked = `Another dry run is under way on ${device.name}`;
  else if (busy) blocked = `${device.name} is busy with "${busy.title}"; try again once it finishes`;
  else if (device.controlledById && device.controlledById !== actor.userId) blocked = `Someone else controls ${device.name}; try again once they release it`;

  return {
    row,
    recipe,
    device,
    account,
    paused,
    preflight: {
      device: { id: device.id, name: device.name, online: ready !== 'offline', canDryRun: ready === 'ready' },
      account: account ? { id: account.id, username: account.username, paused, pausedMessage: account.pausedMessage } : null,
      app: { package: app.package, version: app.version },
      coverage: coverage ? { covered: coverage.covered, by: coverage.covered ? coverage.by : null, reason: coverage.covered ? null : coverage.reason } : null,
      counted,
      blocked,
      needsMedia: copiesFiles(row.body),
    },
  };
}

// ── start, next, stop ───────────────────────────────────────────────────────────────────────────────────────

/** The run as it is now, announced (`dryrun.updated`) once the write commits. */
export async function announceRun(db: Db | Tx, outbox: Outbox, workspaceId: string, id: string): Promise<DryRun | undefined> {
  const row = await findRun(db, workspaceId, id);
  if (!row) return undefined;
  const run = toDryRun(row);
  outbox.add('dryrun.updated', run);
  return run;
}

export async function startDryRun(ctx: Context, actor: Actor, body: CreateDryRunBody): Promise<DryRun> {
  const checked = await preflightOf(ctx, actor, body.recipeId, body.deviceId);
  const { preflight, row, device, account } = checked;
  if (preflight.blocked) {
    throw new AppError(409, preflight.blocked, [{ field: 'deviceId', message: preflight.blocked }]);
  }
  if (checked.paused && body.effects && preflight.counted.length > 0) {
    const message = `@${account!.username} is paused for safety: start a run with no effects, or resume the account first`;
    throw new AppError(409, message, [{ field: 'effects', message }]);
  }
  const mediaKeys = await pickedMedia(ctx.db, actor.workspaceId, body.media ?? []);
  const id = await write(ctx, actor.workspaceId, async (tx, outbox) => {
    const inserted = await insertRun(tx, {
      workspaceId: actor.workspaceId,
      recipeRowId: row.id,
      recipeId: row.recipeId,
      recipeVersion: row.version,
      recipeName: row.name,
      deviceId: device.id,
      startedById: actor.userId,
      accountId: account?.id ?? null,
      mode: body.mode,
      effects: body.effects,
      mediaKeys,
    }).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === '23505') throw conflict(`Another dry run is under way on ${device.name}`);
      throw error;
    });
    await outbox.record(
      {
        userId: actor.userId,
        action: `Dry run of ${row.name} v${row.version} started on ${device.name} (${body.mode === 'step' ? 'step by step' : 'straight through'}, ${body.effects ? 'with effects' : 'no effects'})`,
        deviceId: device.id,
        type: 'info',
      },
      {
        action: 'dryrun.started',
        entityType: 'dry_run',
        entityId: inserted,
        data: { recipeId: row.recipeId, version: row.version, mode: body.mode, effects: body.effects, media: mediaKeys },
      },
    );
    await announceRun(tx, outbox, actor.workspaceId, inserted);
    return inserted;
  });

  // This row's verifications only: the phone matches them by the recipe's id, which other versions share.
  const verified = await verificationsOfRow(ctx.db, actor.workspaceId, row.id);
  const untested = await tryUntestedTemplates(ctx.db, actor.workspaceId);
  // The schema refuses `params.media`; it is left out here as well, so no path ever reaches a phone from a request.
  const { media: _never, ...params } = body.params ?? {};
  const message: DryRunStart = {
    runId: id,
    recipe: row.body,
    params: { caption: 'Dry run', ...(account ? { accounts: [account.username] } : {}), ...params },
    ...(mediaKeys.length > 0 ? { media: mediaKeys.map(objectPath) } : {}),
    mode: body.mode,
    effects: body.effects,
    preflight: {
      account: account?.username ?? null,
      verifiedApps: verified.map(toAppVerification),
      allowUntestedApp: untested?.tryUntestedTemplates ?? false,
    },
  };
  const answer = ctx.agents ? await ctx.agents.startDryRun(device.id, message, START_ACK_MS) : 'offline';
  if (typeof answer === 'object' && answer.ok) {
    await write(ctx, actor.workspaceId, async (tx, outbox) => {
      await setRunStatus(tx, id, ['starting'], { status: 'running' });
      await announceRun(tx, outbox, actor.workspaceId, id);
    });
    return toDryRun((await findRun(ctx.db, actor.workspaceId, id))!);
  }
  const words =
    typeof answer === 'object' && !answer.ok
      ? `${device.name} refused the dry run: ${answer.error}`
      : answer === 'unsupported'
        ? 'Update farm-agent on this phone to dry-run recipes'
        : answer === 'no answer'
          ? `${device.name} did not answer in time; try again`
          : `${device.name} is offline`;
  await write(ctx, actor.workspaceId, async (tx, outbox) => {
    await setRunStatus(tx, id, DRY_RUN_UNDER_WAY, { status: 'failed', failureCode: 'refused', failureMessage: words });
    await announceRun(tx, outbox, actor.workspaceId, id);
    outbox.internal('device.wake', { deviceId: device.id });
  });
  throw new AppError(409, words, [{ field: 'deviceId', message: words }]);
}

/**
 * The run, for the person who started it or an operator, while it is under way and its starter may still control
 * the phone (as live control: an operator, or the VA the phone is assigned to). A run whose starter lost that right
 * (the phone reassigned, the person demoted or removed) ends here, and a VA is refused.
 */
async function runToSteer(ctx: Context, actor: Actor, id: string, verb: string): Promise<DryRunRow> {
  const row = isUuid(id) ? await findRun(ctx.db, actor.workspaceId, id) : undefined;
  if (!row) throw notFound();
  if (actor.role !== 'operator' && row.startedById !== actor.userId)
    throw new AppError(403, `Only the person who started this dry run or an operator can ${verb} it`);
  if (!DRY_RUN_UNDER_WAY.includes(row.status)) throw conflict(`This dry run has ended (${row.status})`);
  // Ended here, or by the rights watcher a moment before (the change that took the right away also wakes it): the
  // second of the two finds nothing to end, so the run is read again rather than taken as still under way.
  const endedHere = (await endRunsWithoutRights(ctx, { workspaceId: actor.workspaceId, runId: row.id })) > 0;
  const now = endedHere ? undefined : await findRun(ctx.db, actor.workspaceId, row.id);
  if (now && !DRY_RUN_UNDER_WAY.includes(now.status) && now.failureCode !== 'access_changed') throw conflict(`This dry run has ended (${now.status})`);
  if (endedHere || (now && !DRY_RUN_UNDER_WAY.includes(now.status))) {
    if (actor.role !== 'operator')
      throw new AppError(
        403,
        `You can ${verb} only dry runs on phones assigned to you; ${row.deviceName ?? 'this phone'} is not any more, and its dry run was ended`,
      );
    throw conflict(`This dry run has ended: ${ACCESS_CHANGED}`);
  }
  return row;
}

export async function nextStep(ctx: Context, actor: Actor, id: string): Promise<DryRun> {
  const row = await runToSteer(ctx, actor, id, 'step through');
  if (row.mode !== 'step') throw conflict('This dry run goes straight through: there is no next step to wait for');
  const heard = row.deviceId && ctx.agents ? await ctx.agents.sendDryRun(row.deviceId, 'dryrun.next', row.id) : false;
  if (!heard) throw conflict(`${row.deviceName ?? 'The phone'} is offline; the dry run will end`);
  return toDryRun(row);
}

export async function stopRun(ctx: Context, actor: Actor, id: string): Promise<DryRun> {
  const row = await runToSteer(ctx, actor, id, 'stop');
  const heard = row.deviceId && ctx.agents ? await ctx.agents.sendDryRun(row.deviceId, 'dryrun.stop', row.id) : false;
  return write(ctx, actor.workspaceId, async (tx, outbox) => {
    // A phone that hears the stop ends the run with its result; one that is gone cannot, so it ends here.
    if (!heard) {
      await setRunStatus(tx, row.id, DRY_RUN_UNDER_WAY, {
        status: 'stopped',
        failureCode: 'stopped',
        failureMessage: 'Stopped by a person; the phone was not connected',
      });
      if (row.deviceId) outbox.internal('device.wake', { deviceId: row.deviceId });
    }
    await outbox.record(
      {
        userId: actor.userId,
        action: `Dry run of ${row.recipeName} v${row.recipeVersion} stopped on ${row.deviceName ?? 'a phone'}`,
        deviceId: row.deviceId,
        type: 'info',
      },
      { action: 'dryrun.stopped', entityType: 'dry_run', entityId: row.id, data: { heard } },
    );
    return (await announceRun(tx, outbox, actor.workspaceId, row.id))!;
  });
}

// ── ends without the phone's word ───────────────────────────────────────────────────────────────────────────

/** Runs ended without the phone's word (it left, or went silent): each shown as it is now, and its phone woken. */
export async function announceEnded(ctx: WriteContext, ended: readonly { id: string; workspaceId: string }[], deviceId?: string): Promise<void> {
  for (const { id, workspaceId } of ended) {
    await write(ctx, workspaceId, async (tx, outbox) => {
      await announceRun(tx, outbox, workspaceId, id);
      const row = await findRun(tx, workspaceId, id);
      if (row?.deviceId ?? deviceId) outbox.internal('device.wake', { deviceId: (row?.deviceId ?? deviceId)! });
    });
  }
}

/** Why a run ended when its starter lost the right to control the phone. */
export const ACCESS_CHANGED = 'the person who started it may no longer control this phone (it was reassigned, or their role changed)';

/**
 * Ends the runs under way (of a workspace, one run, or every one) whose starter may no longer control the phone:
 * stopped with the reason, recorded, announced, and the phone told to stop before its next step. Answers how many.
 */
export async function endRunsWithoutRights(
  ctx: { db: Db; changes: ChangeFeed; agents?: DryRunPhones | undefined },
  scope: { workspaceId?: string; runId?: string },
): Promise<number> {
  const lost = await runsWithoutRights(ctx.db, scope);
  let ended = 0;
  for (const run of lost) {
    const moved = await write(ctx, run.workspaceId, async (tx, outbox) => {
      // Guarded by status: a run the phone or another instance ended meanwhile is left as it is.
      if (
        !(await setRunStatus(tx, run.id, DRY_RUN_UNDER_WAY, { status: 'stopped', failureCode: 'access_changed', failureMessage: `Stopped: ${ACCESS_CHANGED}` }))
      )
        return false;
      await outbox.record(
        {
          userId: null,
          action: `Dry run of ${run.recipeName} v${run.recipeVersion} on ${run.deviceName ?? 'a phone'} stopped: ${ACCESS_CHANGED}`,
          deviceId: run.deviceId,
          type: 'warning',
        },
        { action: 'dryrun.access_ended', entityType: 'dry_run', entityId: run.id, data: { startedById: run.startedById, deviceId: run.deviceId } },
      );
      await announceRun(tx, outbox, run.workspaceId, run.id);
      if (run.deviceId) outbox.internal('device.wake', { deviceId: run.deviceId });
      return true;
    });
    if (!moved) continue;
    ended += 1;
    // The phone stops before its next step; one that is gone has nothing to stop, and its steps are refused anyway.
    if (run.deviceId && ctx.agents) await ctx.agents.sendDryRun(run.deviceId, 'dryrun.stop', run.id).catch(() => false);
  }
  return ended;
}

/** The changes after which someone may have lost the right to control a phone: a person's role, a phone's assignee. */
const RIGHTS_EVENTS = new Set(['user.updated', 'device.updated', 'device.deleted', 'auth.revoked']);
/** Changes of one workspace are gathered this long before its runs are checked. */
const RIGHTS_DEBOUNCE_MS = 50;

/** Checks a workspace's runs under way again whenever a change may have taken a right away; answers the unsubscribe. */
export function watchRights(ctx: { db: Db; changes: ChangeFeed; agents?: DryRunPhones | undefined }, log: FastifyBaseLogger): () => void {
  const pending = new Map<string, NodeJS.Timeout>();
  const unsubscribe = ctx.changes.subscribe((change) => {
    if (!RIGHTS_EVENTS.has(change.event) || pending.has(change.workspaceId)) return;
    const timer = setTimeout(() => {
      pending.delete(change.workspaceId);
      endRunsWithoutRights(ctx, { workspaceId: change.workspaceId }).catch((error: unknown) => log.warn({ err: error }, 'dry run rights check failed'));
    }, RIGHTS_DEBOUNCE_MS);
    timer.unref();
    pending.set(change.workspaceId, timer);
  });
  return () => {
    unsubscribe();
    for (const timer of pending.values()) clearTimeout(timer);
    pending.clear();
  };
}

/** Ends runs with no step for too long (10 minutes straight through, 30 waiting step by step). */
export async function sweepSilentRuns(ctx: { db: Db; changes: ChangeFeed }): Promise<number> {
  const ended = await failSilentRuns(ctx.db, SILENT_STRAIGHT_MS, SILENT_STEP_MS, 'The phone sent nothing for too long; the dry run was ended');
  await announceEnded(ctx, ended);
  return ended.length;
}

/**
 * Runs the sweep every minute while the app is up: silent runs end, and so do runs whose starter lost the right to
 * control the phone (a change heard on another instance, or lost with Redis, is made good here).
 */
export function startSweep(ctx: { db: Db; changes: ChangeFeed; agents?: DryRunPhones | undefined }, log: FastifyBaseLogger): () => void {
  const timer = setInterval(() => {
    sweepSilentRuns(ctx).catch((error: unknown) => log.warn({ err: error }, 'dry run sweep failed'));
    endRunsWithoutRights(ctx, {}).catch((error: unknown) => log.warn({ err: error }, 'dry run rights sweep failed'));
  }, SWEEP_MS);
  timer.unref();
  return () => clearInterval(timer);
}
