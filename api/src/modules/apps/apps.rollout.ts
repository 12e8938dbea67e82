/**
 * Staged rollouts (issue #42): an app installed, updated or removed on chosen phones or a group, a first stage of a
 * few phones first, the rest only once every phone of the first stage succeeded; any failure there stops the rollout
 * and the rest are skipped, said in words. Each phone is reached through its farm host (`app.run`, only to hosts
 * whose hello listed the `apps` feature); the host reports each phone's result (`host.app`) with the package
 * manager's code and its meaning. A group's pinned version is never passed: such a rollout is refused whole.
 */
import type { AppJob, AppJobStage } from '@farm/agent-protocol';
import { appMessages, DEFAULT_FIRST_STAGE, type AppRollout, type CreateAppRolloutBody } from '@farm/contracts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { write, type WriteContext, type WriteOutbox } from '../../events/write.ts';
import type { Actor, Db, Tx } from '../../shared/types.ts';
import { devicesOfWorkspace, lockGroup, memberDeviceIds } from '../groups/groups.queries.ts';
import {
  findRollout,
  findVersion,
  insertRollout,
  insertRolloutPhones,
  lockRollout,
  phonesOfWorkspace,
  pinsOfPhones,
  overdueAppJobs,
  sentJobsOfHost,
  setPhoneResult,
  setRolloutStatus,
  skipWaiting,
  stageCounts,
  versionFileRows,
  waitingPhones,
  type RolloutRow,
} from './apps.queries.ts';

/** How the console reaches farm hosts for app jobs (the agents' socket side provides it). */
export interface AppHosts {
  /** Hands the job to the host: `taken`, or `outdated` (its agent cannot install apps), or `offline`. */
  sendAppJob(hostId: string, job: AppJob): Promise<'taken' | 'outdated' | 'offline'>;
}

/** Results the console gives a phone itself, beside the package manager's codes. */
export const rolloutWords = {
  not_on_host: 'This phone is not on a farm host: apps are installed through a host’s adb.',
  host_offline: 'The phone’s farm host is not connected.',
  host_outdated: 'The phone’s farm host runs an agent too old to install apps: update it.',
  no_answer: 'The farm host took the job and did not answer within 30 minutes: check the phone, then roll out again.',
  stage_failed: (failed: number) => `Not sent: ${failed === 1 ? 'a phone' : `${failed} phones`} of the first stage failed.`,
} as const;

/** A running job's stage on its phone (`host.app-progress`) in words, with the time it has been at it. */
export const progressWords: Record<AppJobStage, (elapsed: string) => string> = {
  waiting_for_task: (elapsed) => `Waiting for the phone’s task to end… ${elapsed}`,
  downloading: (elapsed) => `Downloading the APK to the farm host… ${elapsed}`,
  installing: (elapsed) => `Installing on the phone… ${elapsed}`,
};

/** 40 s, 3 min 05 s: how long a stage has run. */
export function elapsedWords(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

export function toRollout(row: RolloutRow): AppRollout {
  return {
    id: row.id,
    action: row.action,
    package: row.package,
    versionId: row.versionId,
    versionCode: row.versionCode,
    versionName: row.versionName,
    firstStageSize: row.firstStageSize,
    allowDowngrade: row.allowDowngrade,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
    phones: row.phones.map((phone) => ({ ...phone, updatedAt: new Date(phone.updatedAt).toISOString() })),
  };
}

async function announce(tx: Tx, workspaceId: string, id: string, outbox: WriteOutbox): Promise<AppRollout> {
  const row = await findRollout(tx, workspaceId, id);
  if (!row) throw notFound();
  const rollout = toRollout(row);
  outbox.add('app.rollout', rollout);
  return rollout;
}

/** The phones asked for: the chosen ones first, then the group's, each once; any not of the workspace refuses all. */
async function targetPhones(tx: Tx, actor: Actor, body: CreateAppRolloutBody): Promise<{ id: string; name: string }[]> {
  const chosen = [...new Set(body.deviceIds ?? [])];
  const known = await devicesOfWorkspace(tx, actor.workspaceId, chosen);
  const missing = chosen.filter((id) => !known.has(id));
  if (missing.length > 0)
    throw badRequest(
      'deviceIds',
      `${missing.length === 1 ? 'A phone was' : 'Some phones were'} not found in this workspace: ${missing.slice(0, 3).join(', ')}`,
    );
  let ids = chosen;
  if (body.groupId) {
    if (!(await lockGroup(tx, actor.workspaceId, body.groupId))) throw badRequest('groupId', 'The group was not found in this workspace');
    const members = await memberDeviceIds(tx, body.groupId);
    if (members.length === 0 && chosen.length === 0) throw badRequest('groupId', appMessages.noPhones);
    ids = [...new Set([...chosen, ...members])];
  }
  const rows = await phonesOfWorkspace(tx, actor.workspaceId, ids);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [row] : [];
  });
}

/** Creates the rollout (refused whole when a phone's group pins the app below the version) and sends its first stage. */
export async function startRollout(ctx: WriteContext, hosts: AppHosts | undefined, actor: Actor, body: CreateAppRolloutBody): Promise<AppRollout> {
  const id = await write(ctx, actor.workspaceId, async (tx, outbox) => {
    let target: { package: string; versionId: string | null; versionCode: number | null; versionName: string | null };
    if (body.action === 'remove') target = { package: body.package ?? '', versionId: null, versionCode: null, versionName: null };
    else {
      const version = await findVersion(tx, actor.workspaceId, body.versionId ?? '');
      if (!version) throw badRequest('versionId', 'The version was not found in this workspace’s app library');
      target = { package: version.package, versionId: version.id, versionCode: version.versionCode, versionName: version.versionName };
    }
    const phones = await targetPhones(tx, actor, body);
    if (phones.length === 0) throw badRequest('deviceIds', 'Choose phones or a group');
    if (target.versionCode !== null) {
      const pins = await pinsOfPhones(
        tx,
        actor.workspaceId,
        target.package,
        phones.map((phone) => phone.id),
      );
      const past = pins.find((pin) => pin.versionCode < (target.versionCode ?? 0));
      if (past) {
        const phone = phones.find((item) => item.id === past.deviceId);
        throw conflict(
          appMessages.pinnedPast(phone?.name ?? 'A phone', past.groupName, target.package, past.versionName ?? `version code ${past.versionCode}`),
        );
      }
    }
    const firstStageSize = body.firstStageSize ?? DEFAULT_FIRST_STAGE;
    const { id: rolloutId } = await insertRollout(tx, {
      workspaceId: actor.workspaceId,
      action: body.action,
      ...target,
      firstStageSize,
      allowDowngrade: body.allowDowngrade ?? false,
      createdById: actor.userId,
    });
    await insertRolloutPhones(
      tx,
      actor.workspaceId,
      rolloutId,
      phones.map((phone, index) => ({ deviceId: phone.id, stage: index < firstStageSize ? 1 : 2 })),
    );
    const what = `${body.action === 'remove' ? 'Removal' : body.action === 'update' ? 'Update' : 'Install'} of ${target.package}${target.versionName ? ` ${target.versionName}` : ''}`;
    await outbox.record(
      { userId: actor.userId, action: `${what} started on ${phones.length} phone(s), ${Math.min(firstStageSize, phones.length)} first`, type: 'info' },
      {
        action: 'app.rollout',
        entityType: 'app_rollout',
        entityId: rolloutId,
        data: { action: body.action, package: target.package, versionCode: target.versionCode, phones: phones.length, firstStageSize },
      },
    );
    await announce(tx, actor.workspaceId, rolloutId, outbox);
    return rolloutId;
  });
  await dispatchStage(ctx, hosts, actor.workspaceId, id, 1);
  const row = await findRollout(ctx.db, actor.workspaceId, id);
  if (!row) throw notFound();
  return toRollout(row);
}

/**
 * Sends a stage's waiting phones their job: each is marked sent first (so a quick answer finds it), then handed to its
 * host; a phone no host takes fails at once with the reason. Then the rollout moves on if the stage is settled.
 */
export async function dispatchStage(ctx: WriteContext, hosts: AppHosts | undefined, workspaceId: string, rolloutId: string, stage: number): Promise<void> {
  const rollout = await findRollout(ctx.db, workspaceId, rolloutId);
  if (!rollout) return;
  const files = rollout.versionId ? await versionFileRows(ctx.db, rollout.versionId) : [];
  const phones = await write(ctx, workspaceId, async (tx, outbox) => {
    const waiting = await waitingPhones(tx, rolloutId, stage);
    for (const phone of waiting) {
      const reachable = phone.hostId !== null && phone.serial !== null;
      await setPhoneResult(
        tx,
        rolloutId,
        phone.deviceId,
        ['waiting'],
        reachable ? { status: 'sent', code: null, reason: null } : { status: 'failed', code: 'not_on_host', reason: rolloutWords.not_on_host },
      );
    }
    await announce(tx, workspaceId, rolloutId, outbox);
    return waiting;
  });
  await Promise.all(
    phones.map(async (phone) => {
      if (phone.hostId === null || phone.serial === null) return;
      const job: AppJob = {
        jobId: rolloutId,
        serial: phone.serial,
        action: rollout.action === 'remove' ? 'remove' : 'install',
        package: rollout.package,
        files: files.map((file) => ({ objectKey: file.objectKey, name: file.name, size: Number(file.size) })),
        allowDowngrade: rollout.allowDowngrade,
      };
      const answer = hosts ? await hosts.sendAppJob(phone.hostId, job).catch(() => 'offline' as const) : 'offline';
      if (answer === 'taken') return;
      const code = answer === 'outdated' ? 'host_outdated' : 'host_offline';
      await write(ctx, workspaceId, (tx) => setPhoneResult(tx, rolloutId, phone.deviceId, ['sent'], { status: 'failed', code, reason: rolloutWords[code] }));
    }),
  );
  await settle(ctx, hosts, workspaceId, rolloutId);
}

/** A phone's result from its host; a result for a phone not waiting for one (late, repeated) changes nothing. */
export async function recordPhoneResult(
  ctx: WriteContext,
  hosts: AppHosts | undefined,
  phone: { workspaceId: string; deviceId: string },
  result: { jobId: string; ok: boolean; code: string | null; reason: string | null },
): Promise<void> {
  const changed = await write(ctx, phone.workspaceId, async (tx) => {
    const rollout = await lockRollout(tx, result.jobId);
    if (!rollout || rollout.workspaceId !== phone.workspaceId) return false;
    return setPhoneResult(
      tx,
      result.jobId,
      phone.deviceId,
      ['sent'],
      result.ok
        ? { status: 'succeeded', code: null, reason: null }
        : { status: 'failed', code: result.code ?? 'pm_failed', reason: result.reason ?? 'The phone refused.' },
    );
  });
  if (changed) await settle(ctx, hosts, phone.workspaceId, result.jobId);
}

/**
 * A running job's stage on a phone still waiting for its result: shown on the phone's row of the rollout ("Installing
 * on the phone… 40 s"), and it keeps the job from expiring (`expireAppJobs` counts silence from the last word). A
 * word for a phone whose result is in (late, out of order) changes nothing.
 */
export async function recordPhoneProgress(
  ctx: WriteContext,
  phone: { workspaceId: string; deviceId: string },
  progress: { jobId: string; stage: AppJobStage; elapsedMs: number },
): Promise<void> {
  await write(ctx, phone.workspaceId, async (tx, outbox) => {
    const rollout = await lockRollout(tx, progress.jobId);
    if (!rollout || rollout.workspaceId !== phone.workspaceId) return;
    const reason = progressWords[progress.stage](elapsedWords(progress.elapsedMs));
    if (await setPhoneResult(tx, progress.jobId, phone.deviceId, ['sent'], { status: 'sent', code: progress.stage, reason }))
      await announce(tx, phone.workspaceId, progress.jobId, outbox);
  });
}

/**
 * Moves the rollout on when its stage is settled: the first stage all succeeded → the rest are sent; anything
 * failed → stopped, the rest skipped; the rest settled → done. Under the rollout's lock, so answers arriving
 * together move it once.
 */
async function settle(ctx: WriteContext, hosts: AppHosts | undefined, workspaceId: string, rolloutId: string): Promise<void> {
  const next = await write(ctx, workspaceId, async (tx, outbox) => {
    const rollout = await lockRollout(tx, rolloutId);
    if (!rollout || (rollout.status !== 'first_stage' && rollout.status !== 'rest')) return null;
    const stage = rollout.status === 'first_stage' ? 1 : 2;
    const counts = await stageCounts(tx, rolloutId, stage);
    let sendRest = false;
    if (counts.waiting + counts.sent === 0) {
      if (stage === 1 && counts.failed > 0) {
        await skipWaiting(tx, rolloutId, rolloutWords.stage_failed(counts.failed));
        await setRolloutStatus(tx, rolloutId, 'stopped');
      } else if (stage === 1 && (await stageCounts(tx, rolloutId, 2)).waiting > 0) {
        await setRolloutStatus(tx, rolloutId, 'rest');
        sendRest = true;
      } else await setRolloutStatus(tx, rolloutId, 'done');
    }
    const answer = await announce(tx, workspaceId, rolloutId, outbox);
    if (answer.status === 'done' || answer.status === 'stopped') await recordEnd(answer, outbox);
    return sendRest;
  });
  if (next) await dispatchStage(ctx, hosts, workspaceId, rolloutId, 2);
}

async function recordEnd(rollout: AppRollout, outbox: WriteOutbox): Promise<void> {
  const succeeded = rollout.phones.filter((phone) => phone.status === 'succeeded').length;
  const failed = rollout.phones.filter((phone) => phone.status === 'failed').length;
  const what = `${rollout.package}${rollout.versionName ? ` ${rollout.versionName}` : ''}`;
  const action =
    rollout.status === 'done'
      ? `Rollout of ${what} finished: ${succeeded} of ${rollout.phones.length} phone(s) succeeded`
      : `Rollout of ${what} stopped after its first stage: ${failed} phone(s) failed, the rest were not sent`;
  await outbox.record({ userId: null, action, type: rollout.status === 'done' && failed === 0 ? 'success' : 'warning' });
}

/**
 * How long a host may hold a job it took without a word before the phone is failed: downloading 500 MiB over a slow
 * link and installing it on an old phone takes minutes, and a host says where its job stands every few seconds
 * (`recordPhoneProgress`), so half an hour of silence is a host that lost the job. A host that reconnects meanwhile
 * is sent the job again (`resendAppJobs`) without resetting this.
 */
export const APP_JOB_TIMEOUT_MS = 30 * 60_000;

/**
 * Fails the phones whose host took a job and never answered (it crashed for good, or lost the phone mid-install), so
 * no phone stays "Installing" and the rollout moves on or stops. Run by every API instance now and then: the
 * conditional update lets one of them fail each phone once, and `settle` moves the rollout under its lock.
 */
export async function expireAppJobs(ctx: WriteContext, hosts: AppHosts | undefined, now = new Date()): Promise<number> {
  const overdue = await overdueAppJobs(ctx.db, new Date(now.getTime() - APP_JOB_TIMEOUT_MS));
  let failed = 0;
  for (const job of overdue) {
    const changed = await write(ctx, job.workspaceId, (tx) =>
      setPhoneResult(tx, job.rolloutId, job.deviceId, ['sent'], { status: 'failed', code: 'no_answer', reason: rolloutWords.no_answer }),
    );
    if (!changed) continue;
    failed += 1;
    await settle(ctx, hosts, job.workspaceId, job.rolloutId);
  }
  return failed;
}

/**
 * A host that (re)connects is sent again the jobs it took and did not answer: a host that restarted lost them, and
 * one that did not answers the second time after the first, which changes nothing (an install of the same version is
 * the same install).
 */
export async function resendAppJobs(db: Db, hosts: AppHosts, host: { id: string; workspaceId: string }): Promise<number> {
  const jobs = await sentJobsOfHost(db, host);
  const files = new Map<string, Awaited<ReturnType<typeof versionFileRows>>>();
  for (const job of jobs) {
    if (job.serial === null) continue;
    if (job.versionId && !files.has(job.versionId)) files.set(job.versionId, await versionFileRows(db, job.versionId));
    await hosts.sendAppJob(host.id, {
      jobId: job.rolloutId,
      serial: job.serial,
      action: job.action === 'remove' ? 'remove' : 'install',
      package: job.package,
      files: (job.versionId ? (files.get(job.versionId) ?? []) : []).map((file) => ({ objectKey: file.objectKey, name: file.name, size: Number(file.size) })),
      allowDowngrade: job.allowDowngrade,
    });
  }
  return jobs.length;
}

export async function rolloutOf(db: Db, workspaceId: string, id: string): Promise<AppRollout> {
  const row = await findRollout(db, workspaceId, id);
  if (!row) throw notFound();
  return toRollout(row);
}
