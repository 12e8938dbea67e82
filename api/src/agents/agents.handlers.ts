/**
 * What the server does with each message a phone sends, in a few lines each: the task lifecycle and the device
 * queries do the work. Each handler answers the message's ack.
 */
import { storageFullMessage } from '../modules/uploads/uploads.service.ts';
import type { FastifyBaseLogger } from 'fastify';
import { MAX_SCREENSHOT_BYTES, SUPPORTED_PROTOCOLS, type Ack, type AgentMessage, type AgentMessageName, type ProtocolVersion } from '@farm/agent-protocol';
import { serialize, type TaskRow } from '@farm/sql';
import { acceptResults, automation, failureText, Outbox, type PhoneAck, type PhoneResult, type ResultVerdict } from '@farm/workers';
import { type AuditFact, type NewActivity, recordActivities, recordActivity, writeAcross } from '../events/write.ts';
import type { ChangeFeed } from '../events/changes.ts';
import type { Dispatcher } from './dispatcher.ts';
import type { Gathered } from './gathered.ts';
import type { ProgressGate } from './progress.ts';
import type { Pulse } from './pulse.ts';
import type { Db } from '../shared/types.ts';
import type { Storage } from '../storage/storage.ts';
import { objectPath } from '../storage/storage.ts';
import { toSession } from '../modules/sessions/sessions.service.ts';
import { storeFailureTrace, TRACE_DROPPED } from '../modules/evidence/evidence.service.ts';
import { acceptDryRunResult, acceptTraceStep } from '../modules/dryruns/dryruns.service.ts';
import { markHello, recordSoftware, newObjectKey, recordScreenshot, type AgentDevice } from './agents.queries.ts';

export interface AgentContext {
  db: Db;
  changes: ChangeFeed;
  storage: Storage;
  dispatcher: Dispatcher;
  pulse: Pulse;
  /** Progress reports, written at most about once a second per attempt (see progress.ts). */
  progress: ProgressGate;
  /** Acks, written together with those that come while one is written: the task each moved, if any. */
  acks: Gathered<PhoneAck, TaskRow | undefined>;
  /** Results, written together with those that come while one is written (see `writeResults`). */
  results: Gathered<DeviceResult, ResultAnswer>;
  log: FastifyBaseLogger;
}

/** One connected phone as the handlers see it. */
export interface AgentPeer {
  device: AgentDevice;
  socketId: string;
  protocol: ProtocolVersion;
  send: Parameters<Dispatcher['attach']>[0]['send'];
}

type Handler<N extends AgentMessageName> = (peer: AgentPeer, message: AgentMessage<N>) => Promise<Ack>;
/** Every message but the live screen's frames and packets, which the live hub takes (see realtime/live.ts). */
export type AgentHandlers = { [N in Exclude<AgentMessageName, 'live.frame' | 'live.video'>]: Handler<N> };

const ok: Ack = { ok: true };

/**
 * Screenshots being stored at once by this process. Beyond this, a new one is skipped (the phone sends another at
 * its next interval) rather than queued: under overload a queue of 60 KB images grows the process by gigabytes and
 * delays heartbeats and work with it (bench/agents: 4,000 phones on one process).
 */
export const MAX_SCREENSHOTS_IN_FLIGHT = 64;
/** How long a protocol 2 phone holds its screenshots after one was refused for a full workspace storage. */
export const STORAGE_FULL_WAIT_MS = 5 * 60_000;
export const SCREENSHOT_SKIPPED = 'The server is busy: this screenshot was skipped';

/**
 * Screenshots per phone in the last minute (a phone's socket lives on one process, so a process counts its own): one
 * phone sending without pause would otherwise fill the workspace's storage and take the in-flight slots of every
 * other workspace's phones. Live streams are frames, not screenshots, and are not counted.
 */
export class ScreenshotRate {
  private readonly sent = new Map<string, number[]>();

  /** Answers 0 when this phone may send one now (and counts it), else how long until it may. */
  take(deviceId: string, perMinute: number, now = Date.now()): number {
    const recent = (this.sent.get(deviceId) ?? []).filter((at) => at > now - 60_000);
    if (recent.length >= perMinute) {
      this.sent.set(deviceId, recent);
      return recent[0]! + 60_000 - now;
    }
    recent.push(now);
    this.sent.set(deviceId, recent);
    return 0;
  }

  forget(deviceId: string): void {
    this.sent.delete(deviceId);
  }
}

/**
 * The in-flight slots, shared fairly: while several workspaces store screenshots, none holds more than its share
 * (the slots divided by the workspaces using them now), so one workspace's phones cannot take every slot while
 * another's wait. A workspace alone may use them all.
 */
export class FairSlots {
  private readonly held = new Map<string, number>();
  private total = 0;

  constructor(private readonly size: number) {}

  /** Takes a slot for the workspace, or answers false. */
  take(workspaceId: string): boolean {
    if (this.total >= this.size) return false;
    const mine = this.held.get(workspaceId) ?? 0;
    const sharing = this.held.size + (mine === 0 ? 1 : 0);
    if (mine >= Math.max(1, Math.floor(this.size / sharing))) return false;
    this.held.set(workspaceId, mine + 1);
    this.total += 1;
    return true;
  }

  give(workspaceId: string): void {
    const mine = this.held.get(workspaceId) ?? 0;
    if (mine <= 1) this.held.delete(workspaceId);
    else this.held.set(workspaceId, mine - 1);
    this.total -= 1;
  }
}

export function agentHandlers(ctx: AgentContext): AgentHandlers {
  const { db, changes } = ctx;
  const slots = new FairSlots(MAX_SCREENSHOTS_IN_FLIGHT);
  const rate = new ScreenshotRate();

  async function storeScreenshot(peer: AgentPeer, message: AgentMessage<'agent.screenshot'>): Promise<Ack> {
    const bytes = Buffer.from(message.data, 'base64');
    if (bytes.length === 0 || bytes.length > MAX_SCREENSHOT_BYTES) return { ok: false, error: `A screenshot must be 1 to ${MAX_SCREENSHOT_BYTES} bytes` };
    const key = newObjectKey();
    await ctx.storage.write(key, bytes);
    const capturedAt = message.capturedAt && !Number.isNaN(Date.parse(message.capturedAt)) ? new Date(message.capturedAt) : new Date();
    const quota = automation().storageQuotaBytes;
    const shot = await recordScreenshot(db, peer.device, { key, mime: message.mime, size: bytes.length, capturedAt }, quota);
    if ('full' in shot) {
      // Over the workspace's storage quota: acknowledged and dropped, the reason logged; a protocol 2 phone is told why
      // and holds its screenshots a while (a protocol 1 phone knows no waiting).
      await ctx.storage.remove([key]);
      const reason = storageFullMessage(shot.used, bytes.length, quota);
      ctx.log.warn({ deviceId: peer.device.id, workspaceId: peer.device.workspaceId, used: shot.used, quota }, `screenshot dropped: ${reason}`);
      return peer.protocol === 1 ? ok : { ok: false, error: `Screenshot not stored: ${reason}`, retryAfterMs: STORAGE_FULL_WAIT_MS };
    }
    const outbox = new Outbox(peer.device.workspaceId);
    if (shot.session) outbox.add('session.updated', toSession(shot.session));
    outbox.add('screenshot.added', { deviceId: peer.device.id, sessionId: shot.sessionId, url: objectPath(key), capturedAt: shot.capturedAt.toISOString() });
    outbox.flush(changes);
    return ok;
  }

  /** The failed step's evidence, once the result is written; a trace that cannot be kept is logged, never the result's loss. */
  async function keepTrace(peer: AgentPeer, failure: NonNullable<AgentMessage<'task.result'>['failure']>, taskId: string, attempt: number): Promise<void> {
    if (!failure.trace) return;
    const given = {
      workspaceId: peer.device.workspaceId,
      deviceId: peer.device.id,
      taskId,
      attempt,
      trace: failure.trace,
      recipe: failure.recipe,
      app: failure.app,
    };
    try {
      const kept = await storeFailureTrace(db, ctx.storage, given, automation().storageQuotaBytes);
      if (kept === 'stored-without-screen')
        ctx.log.warn({ deviceId: peer.device.id, workspaceId: peer.device.workspaceId, taskId }, `failure trace kept without its screen: ${TRACE_DROPPED}`);
    } catch (error) {
      ctx.log.warn({ err: error, deviceId: peer.device.id, workspaceId: peer.device.workspaceId, taskId }, 'failure trace not kept');
    }
  }

  return {
    async 'agent.hello'(peer, hello) {
      if (!(SUPPORTED_PROTOCOLS as readonly number[]).includes(hello.protocol)) {
        return {
          ok: false,
          error: `This server speaks agent protocols ${SUPPORTED_PROTOCOLS.join(' and ')}; this agent speaks ${hello.protocol}. Update the server, or run an agent that speaks one of those.`,
        };
      }
      peer.protocol = hello.protocol as ProtocolVersion;
      const outbox = new Outbox(peer.device.workspaceId);
      const device = await markHello(db, peer.device, hello);
      await recordSoftware(db, peer.device, hello);
      if (device) outbox.add('device.updated', serialize(device));
      await recordActivity(
        db,
        { workspaceId: peer.device.workspaceId, userId: null, action: `${peer.device.name} connected`, deviceId: peer.device.id, type: 'success' },
        undefined,
        outbox,
      );
      outbox.flush(changes);
      ctx.dispatcher.attach({
        ...peer.device,
        deviceId: peer.device.id,
        deviceName: peer.device.name,
        socketId: peer.socketId,
        protocol: peer.protocol,
        heardAt: Date.now(),
        ...(hello.holding ? { holding: true } : {}),
        send: peer.send,
      });
      // Work is handed over once the phone has its answer (and, speaking protocol 2, has sent what it kept).
      setImmediate(() => void ctx.dispatcher.wake(peer.device.id));
      return { ok: true, protocol: peer.protocol, heartbeatMs: automation().heartbeatMs, deviceId: peer.device.id, deviceName: peer.device.name };
    },

    async 'agent.hold'(peer, message) {
      ctx.dispatcher.heard(peer.device.id);
      ctx.dispatcher.hold(peer.device.id, message.holding);
      return ok;
    },

    async 'agent.heartbeat'(peer, beat) {
      ctx.dispatcher.heard(peer.device.id);
      ctx.pulse.beat(peer.device.workspaceId, {
        id: peer.device.id,
        status: beat.status,
        battery: beat.battery,
        screenOn: beat.screenOn,
        foregroundApp: beat.foregroundApp,
      });
      return ok;
    },

    async 'agent.screenshot'(peer, message) {
      const waitMs = rate.take(peer.device.id, automation().screenshotsPerMinute);
      if (waitMs > 0) {
        // A protocol 1 phone knows no waiting: its extra screenshot is acknowledged and dropped.
        if (peer.protocol === 1) return ok;
        const seconds = Math.ceil(waitMs / 1000);
        return { ok: false, error: `Too many screenshots from this phone: send the next in ${seconds} s`, retryAfterMs: waitMs };
      }
      const workspaceId = peer.device.workspaceId;
      if (!slots.take(workspaceId)) return { ok: false, error: SCREENSHOT_SKIPPED };
      try {
        return await storeScreenshot(peer, message);
      } finally {
        slots.give(workspaceId);
      }
    },

    async 'task.ack'(peer, message) {
      ctx.dispatcher.heard(peer.device.id);
      const acked = await ctx.acks.run({ deviceId: peer.device.id, taskId: message.taskId, attempt: message.attempt });
      if (acked) ctx.progress.acked(peer.device, message.taskId, message.attempt);
      return ok;
    },

    async 'task.progress'(peer, message) {
      ctx.dispatcher.heard(peer.device.id);
      await ctx.progress.report(peer.device, {
        taskId: message.taskId,
        attempt: message.attempt,
        percent: message.percent,
        note: message.step ?? message.note,
      });
      return ok;
    },

    /** A dry run's step and its end (agents that listed `dryrun`), in order with the phone's other messages. */
    async 'dryrun.step'(peer, message) {
      ctx.dispatcher.heard(peer.device.id);
      return acceptTraceStep(ctx, peer.device, message);
    },

    async 'dryrun.result'(peer, message) {
      ctx.dispatcher.heard(peer.device.id);
      return acceptDryRunResult(ctx, peer.device, message);
    },

    async 'task.result'(peer, message) {
      ctx.dispatcher.heard(peer.device.id);
      ctx.progress.settle(message.taskId, peer.device.id);
      // Protocol 1 tells a failure in words only: its reason is unknown, and trying again may help.
      const failure =
        message.status === 'failed' ? (message.failure ?? { code: 'unknown' as const, ...(message.error ? { message: message.error } : {}) }) : undefined;
      const finishedAt = message.finishedAt && !Number.isNaN(Date.parse(message.finishedAt)) ? new Date(message.finishedAt) : undefined;
      const answer = await ctx.results.run({
        device: peer.device,
        result: {
          taskId: message.taskId,
          attempt: message.attempt,
          status: message.status,
          failure,
          engagement: message.engagement,
          finishedAt,
          run: message.run,
        },
      });
      if ('error' in answer) throw answer.error;
      if (answer.verdict.kind !== 'unknown' && message.status === 'failed' && message.failure?.trace)
        await keepTrace(peer, message.failure, message.taskId, message.attempt);
      // Its next task, once it has this answer (trigger 2 of the dispatcher's header, dispatcher.ts).
      setImmediate(() => void ctx.dispatcher.finished(peer.device.id));
      if (answer.verdict.kind === 'unknown') return { ok: false, error: `This phone was not given attempt ${message.attempt} of task ${message.taskId}` };
      return ok;
    },
  };
}

/** A phone's result as its handler passes it on to be written. */
export interface DeviceResult {
  device: AgentDevice;
  result: PhoneResult;
}

/** What became of a result, or why it could not be written. */
export type ResultAnswer = { verdict: ResultVerdict } | { error: unknown };

/**
 * Writes phones' results (those gathered while the last batch was written): all in one transaction, or, when that
 * fails, each in its own, so a result the database refuses does not hold up the others. A phone is answered once its
 * result is committed; one whose result failed sends it again.
 */
export async function writeResults(db: Db, changes: ChangeFeed, given: readonly DeviceResult[]): Promise<ResultAnswer[]> {
  try {
    return (await settleResults(db, changes, given)).map((verdict) => ({ verdict }));
  } catch (error) {
    if (given.length === 1) return [{ error }];
    const answers: ResultAnswer[] = [];
    for (const one of given) {
      answers.push(
        await settleResults(db, changes, [one]).then(
          ([verdict]) => ({ verdict: verdict! }),
          (error: unknown) => ({ error }),
        ),
      );
    }
    return answers;
  }
}

async function settleResults(db: Db, changes: ChangeFeed, given: readonly DeviceResult[]): Promise<ResultVerdict[]> {
  return writeAcross({ db, changes }, async (tx, outboxes) => {
    const verdicts = await acceptResults(
      tx,
      given.map(({ device, result }) => ({ deviceId: device.id, workspaceId: device.workspaceId, result })),
      outboxes,
    );
    await recordActivities(
      tx,
      given.flatMap((one, i) => resultActivity(one, verdicts[i]!)),
      outboxes,
    );
    return verdicts;
  });
}

/** What the activity feed says of a result: a task done or failed, an attempt to be tried again, a late report. */
function resultActivity({ device, result }: DeviceResult, verdict: ResultVerdict): { activity: NewActivity; audit?: AuditFact }[] {
  const who = { workspaceId: device.workspaceId, userId: null, deviceId: device.id };
  if (verdict.kind === 'settled') {
    const task = verdict.task;
    return [
      {
        activity: {
          ...who,
          action:
            task.status === 'completed'
              ? `${device.name} completed "${task.title}"`
              : `${device.name} failed "${task.title}": ${task.failureMessage ?? 'no reason given'}`,
          type: task.status === 'completed' ? 'success' : 'error',
        },
        audit: { action: `task.${task.status}`, entityType: 'task', entityId: task.id, data: { attempt: result.attempt, failureCode: task.failureCode } },
      },
    ];
  }
  if (verdict.kind === 'retrying' && result.failure) {
    return [
      {
        activity: {
          ...who,
          action: `${device.name} failed attempt ${result.attempt} of "${verdict.task.title}": ${failureText(result.failure)}. Trying again.`,
          type: 'warning',
        },
      },
    ];
  }
  if (verdict.kind === 'ignored' && verdict.late) {
    return [{ activity: { ...who, action: `${device.name} reported "${verdict.task.title}" done after it was cancelled`, type: 'warning' } }];
  }
  return [];
}
