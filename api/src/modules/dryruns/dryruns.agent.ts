/**
 * Dry runs on the phone side of /agent: the steps a phone traces (`dryrun.step`) and the run's end (`dryrun.result`),
 * answered in order with the phone's other messages, from agents that listed `dryrun`; and a phone that leaves (on
 * every instance) ends its runs under way as failed. Starting, steering and sweeping runs are the service's
 * (dryruns.service.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Ack, AgentMessage } from '@farm/agent-protocol';
import { isUuid } from '@farm/sql';
import { addRecipeVerification, automation, countDailyActions, DRY_RUN_UNDER_WAY } from '@farm/workers';
import type { AgentHooks, FeatureMessages } from '../../agents/agents.features.ts';
import { write, type WriteContext } from '../../events/write.ts';
import type { Storage } from '../../storage/storage.ts';
import { findWorkspaceRecipe } from '../recipes/recipes.queries.ts';
import { lockQuota } from '../uploads/uploads.queries.ts';
import { storageFullMessage } from '../uploads/uploads.service.ts';
import {
  failRunsOfDevice,
  insertFrameObject,
  insertStep,
  isOperatorNow,
  markVerified,
  runOfDevice,
  screenViewersOf,
  setRunStatus,
  stepOf,
} from './dryruns.queries.ts';
import { announceEnded, announceRun, appName, countedActionsOf, toStep } from './dryruns.service.ts';

/** The dry runs' answers to phone messages, and what they do when a phone leaves. */
export function dryRunsAgent(ctx: WriteContext & { storage: Storage }): { messages: Pick<FeatureMessages, 'dryrun.step' | 'dryrun.result'> } & AgentHooks {
  return {
    messages: {
      'dryrun.step': (peer, message) => acceptTraceStep(ctx, peer.device, message),
      'dryrun.result': (peer, message) => acceptDryRunResult(ctx, peer.device, message),
    },
    phoneGone: async (device) => {
      await endRunsOfGonePhone(ctx, device);
    },
  };
}

const NOT_UNDER_WAY: Ack = { ok: false, error: 'No dry run of this phone is under way with that id' };

/** Said of a pass that would verify an app version had an operator started it. */
export const NOT_AN_OPERATOR = "not verified: only an operator's run verifies an app version";

/** A step of a run: kept with its frame and tree when they fit the storage quota, and shown at once. */
export async function acceptTraceStep(
  ctx: WriteContext & { storage: Storage },
  device: { id: string; workspaceId: string },
  message: AgentMessage<'dryrun.step'>,
): Promise<Ack> {
  const run = isUuid(message.runId) ? await runOfDevice(ctx.db, device.id, message.runId) : undefined;
  if (!run || !DRY_RUN_UNDER_WAY.includes(run.status)) return NOT_UNDER_WAY;
  const { step } = message;
  const frame = step.frame ? Buffer.from(step.frame.data) : null;
  const tree = step.tree ? JSON.stringify(step.tree) : null;
  const treeBytes = tree ? Buffer.byteLength(tree) : 0;
  let frameKey: string | null = null;
  await write(ctx, run.workspaceId, async (tx, outbox) => {
    if ((await stepOf(tx, run.workspaceId, run.id, step.seq)) !== undefined) return;
    const size = (frame?.length ?? 0) + treeBytes;
    const quota = automation().storageQuotaBytes;
    const room = size > 0 ? await lockQuota(tx, run.workspaceId, size, quota) : { fits: true, used: 0 };
    const keep = room.fits;
    let detail = step.detail ?? null;
    if (!keep) detail = `${detail ? `${detail} ` : ''}(Screenshot and tree not kept: ${storageFullMessage(room.used, size, quota)})`.slice(0, 2000);
    if (keep && frame) {
      frameKey = randomUUID();
      await insertFrameObject(tx, { key: frameKey, workspaceId: run.workspaceId, contentType: step.frame!.mime, size: frame.length });
    }
    await insertStep(tx, {
      dryRunId: run.id,
      workspaceId: run.workspaceId,
      seq: step.seq,
      path: step.path,
      do: step.do,
      label: step.label,
      verdict: step.verdict,
      detail,
      selector: step.selector ? JSON.stringify(step.selector) : null,
      matched: step.matched ? JSON.stringify(step.matched) : null,
      point: step.point ? JSON.stringify(step.point) : null,
      action: step.action ?? null,
      ms: step.ms,
      frameKey,
      frameMime: frameKey ? step.frame!.mime : null,
      frameSize: frameKey ? frame!.length : 0,
      frameWidth: keep && step.frame ? step.frame.width : (step.tree?.width ?? null),
      frameHeight: keep && step.frame ? step.frame.height : (step.tree?.height ?? null),
      tree: keep ? tree : null,
      treeBytes: keep ? treeBytes : 0,
    });
    // Written while the rows are held: if writing fails, nothing of the step stays and the phone sends it again.
    if (frameKey && frame) await ctx.storage.write(frameKey, frame);
    const row = await stepOf(tx, run.workspaceId, run.id, step.seq);
    // A step holds what the screen showed: pushed to those who may see the phone's screens only, as it is read.
    if (row)
      for (const userId of await screenViewersOf(tx, run.workspaceId, run.deviceId)) outbox.add('dryrun.step', { runId: run.id, step: toStep(row) }, userId);
    if (run.status === 'starting') await announceRun(tx, outbox, run.workspaceId, run.id);
  });
  return { ok: true };
}

/** The end of a run: its outcome kept, its actions counted, a pass recorded as a verification. */
export async function acceptDryRunResult(
  ctx: WriteContext,
  device: { id: string; workspaceId: string; name: string },
  result: AgentMessage<'dryrun.result'>,
): Promise<Ack> {
  const run = isUuid(result.runId) ? await runOfDevice(ctx.db, device.id, result.runId) : undefined;
  if (!run || !DRY_RUN_UNDER_WAY.includes(run.status)) return NOT_UNDER_WAY;
  const recipeRow = await findWorkspaceRecipe(ctx.db, run.workspaceId, run.recipeRowId);
  const counted = recipeRow ? countedActionsOf(recipeRow.body) : [];
  const actions = Object.fromEntries(Object.entries(result.actions ?? {}).filter(([, count]) => (count ?? 0) > 0));
  const app =
    result.app?.package && result.app.version ? { package: result.app.package, version: result.app.version, locale: result.app.locale ?? null } : null;
  await write(ctx, run.workspaceId, async (tx, outbox) => {
    const moved = await setRunStatus(tx, run.id, DRY_RUN_UNDER_WAY, {
      status: result.outcome,
      failureCode: result.failure?.code ?? (result.outcome === 'stopped' ? 'stopped' : null),
      failureMessage: result.failure?.message ?? null,
      appPackage: app?.package ?? null,
      appVersion: app?.version ?? null,
      locale: app?.locale ?? null,
      actions: JSON.stringify(actions),
      steps: result.steps,
    });
    if (!moved) return;
    if (run.effects) {
      await countDailyActions(tx, [
        {
          accountId: run.accountId,
          workspaceId: run.workspaceId,
          likes: actions.like ?? 0,
          follows: actions.follow ?? 0,
          comments: actions.comment ?? 0,
          posts: actions.post ?? 0,
        },
      ]);
    }
    // A no-effects run stopped before its counted steps: it proves the recipe in full only when there are none.
    const provesRecipe = result.outcome === 'passed' && app !== null && recipeRow !== undefined && (run.effects || counted.length === 0);
    // Only an operator's run verifies (a VA's draft run must not widen what the fleet runs on), and only this row.
    const byOperator = provesRecipe && (await isOperatorNow(tx, run.workspaceId, run.startedById));
    const proves = provesRecipe && byOperator;
    const platform = recipeRow?.platform ?? '';
    const what = `Dry run of ${run.recipeName} v${run.recipeVersion} on ${device.name}`;
    if (proves) {
      await addRecipeVerification(tx, {
        workspaceId: run.workspaceId,
        recipeRowId: run.recipeRowId,
        recipeId: run.recipeId,
        recipeVersion: run.recipeVersion,
        package: app.package,
        appVersion: app.version,
        locale: app.locale,
        source: 'dry_run',
        dryRunId: run.id,
        verifiedBy: run.startedById!,
      });
      await markVerified(tx, run.id);
    }
    const sentence =
      result.outcome === 'passed'
        ? `${what} passed${proves ? `; ${appName(platform, app)} verified` : provesRecipe ? `; ${NOT_AN_OPERATOR}` : ''}`
        : result.outcome === 'failed'
          ? `${what} failed: ${result.failure?.message ?? result.failure?.code ?? 'no reason given'}`
          : `${what} stopped${result.failure?.message ? `: ${result.failure.message}` : ''}`;
    await outbox.record(
      { userId: null, action: sentence, deviceId: device.id, type: result.outcome === 'failed' ? 'error' : result.outcome === 'passed' ? 'success' : 'info' },
      {
        action: `dryrun.${result.outcome}`,
        entityType: 'dry_run',
        entityId: run.id,
        data: { recipeId: run.recipeId, version: run.recipeVersion, app, actions, verified: proves, failureCode: result.failure?.code ?? null },
      },
    );
    await announceRun(tx, outbox, run.workspaceId, run.id);
    outbox.internal('device.wake', { deviceId: device.id });
  });
  return { ok: true };
}

/** The phone left (on every instance): its runs under way end as failed, `device_offline`. */
export async function endRunsOfGonePhone(ctx: WriteContext, device: { id: string; name: string }): Promise<number> {
  const ended = await failRunsOfDevice(ctx.db, device.id, 'device_offline', `${device.name} disconnected during the dry run`);
  await announceEnded(ctx, ended, device.id);
  return ended.length;
}
