/**
 * What the transport answers itself, in a few lines each: a phone's hello (who it is, what it runs, and its work), its
 * hold and heartbeats, and the task lifecycle's moves (ack, progress, result), which the lifecycle in @farm/workers
 * does. Heartbeats, acks, progress and results are written in batches (the pulse, `Gathered`, the progress gate)
 * held here with the dispatcher. Every other message is a feature's (agents.features.ts). Each handler answers the
 * message's ack.
 */
import type { FastifyBaseLogger } from 'fastify';
import { SUPPORTED_PROTOCOLS, type Ack, type AgentMessage, type ProtocolVersion } from '@farm/agent-protocol';
import { isUuid, serialize, type TaskRow } from '@farm/sql';
import { acceptResults, ackTasks, automation, failureText, type PhoneAck, type PhoneResult, progressTask, type ResultVerdict } from '@farm/workers';
import type { ChangeFeed } from '../events/changes.ts';
import { type AuditFact, type NewActivity, recordActivities, write, writeAcross, writeStatement, type WriteContext } from '../events/write.ts';
import type { Db } from '../shared/types.ts';
import type { AgentHooks, AgentPeer, PhoneHandler, TransportMessageName } from './agents.features.ts';
import { type AgentDevice, markHello, recordSoftware } from './agents.queries.ts';
import { Dispatcher } from './dispatcher.ts';
import { Gathered } from './gathered.ts';
import { PROGRESS_MS, ProgressGate, type ProgressReport } from './progress.ts';
import { Pulse } from './pulse.ts';

export interface AgentContext {
  db: Db;
  changes: ChangeFeed;
  dispatcher: Dispatcher;
  pulse: Pulse;
  /** Progress reports, written at most about once a second per attempt (see progress.ts). */
  progress: ProgressGate;
  /** Acks, written together with those that come while one is written: the task each moved, if any. */
  acks: Gathered<PhoneAck, TaskRow | undefined>;
  /** Results, written together with those that come while one is written (see `writeResults`). */
  results: Gathered<DeviceResult, ResultAnswer>;
  /** The features' hooks: what they keep of a result is kept before the phone is answered. */
  hooks: readonly AgentHooks[];
  log: FastifyBaseLogger;
}

/** This instance's dispatcher and batches of the phones' writes. */
export function openAgentContext(deps: { db: Db; changes: ChangeFeed; log: FastifyBaseLogger }, hooks: readonly AgentHooks[]): AgentContext {
  const { db, changes, log } = deps;
  return {
    db,
    changes,
    hooks,
    log,
    dispatcher: new Dispatcher(db, changes, log),
    pulse: new Pulse(db, changes, (error) => log.warn({ err: error }, 'heartbeat batch failed')),
    progress: new ProgressGate(
      (device, report) => writeProgress(deps, device, report),
      (error) => log.warn({ err: error }, 'task progress write failed'),
      // A quarter of the lease's window at most, so a waiting report cannot let the lease lapse.
      () => Math.min(PROGRESS_MS, automation().progressWindowMs / 4),
    ),
    acks: new Gathered((given: PhoneAck[]) => writeAcks(deps, given)),
    results: new Gathered((given: DeviceResult[]) => writeResults(db, changes, given)),
  };
}

/** Stops the dispatcher and writes what the batches still hold. */
export async function closeAgentContext(ctx: AgentContext): Promise<void> {
  await ctx.dispatcher.close();
  await ctx.pulse.close().catch(() => undefined);
  await ctx.progress.close().catch(() => undefined);
  await ctx.acks.close();
  await ctx.results.close();
}

export type TransportHandlers = { [N in TransportMessageName]: PhoneHandler<N> };

const ok: Ack = { ok: true };

export function transportHandlers(ctx: AgentContext): TransportHandlers {
  return {
    'agent.hello': (peer, hello) => sayHello(ctx, peer, hello),

    async 'agent.hold'(peer, message) {
      ctx.dispatcher.hold(peer.device.id, message.holding);
      return ok;
    },

    async 'agent.heartbeat'(peer, beat) {
      const { status, battery, screenOn, foregroundApp } = beat;
      ctx.pulse.beat(peer.device.workspaceId, { id: peer.device.id, status, battery, screenOn, foregroundApp });
      return ok;
    },

    async 'task.ack'(peer, message) {
      const acked = await ctx.acks.run({ deviceId: peer.device.id, taskId: message.taskId, attempt: message.attempt });
      if (acked) ctx.progress.acked(peer.device, message.taskId, message.attempt);
      return ok;
    },

    async 'task.progress'(peer, message) {
      const { taskId, attempt, percent } = message;
      await ctx.progress.report(peer.device, { taskId, attempt, percent, note: message.step ?? message.note });
      return ok;
    },

    'task.result': (peer, message) => takeResult(ctx, peer, message),
  };
}

/** The phone says who it is and what it runs: online, said in the feed, and given its work once it has the answer. */
async function sayHello(ctx: AgentContext, peer: AgentPeer, hello: AgentMessage<'agent.hello'>): Promise<Ack> {
  if (!(SUPPORTED_PROTOCOLS as readonly number[]).includes(hello.protocol)) {
    return {
      ok: false,
      error: `This server speaks agent protocols ${SUPPORTED_PROTOCOLS.join(' and ')}; this agent speaks ${hello.protocol}. Update the server, or run an agent that speaks one of those.`,
    };
  }
  peer.protocol = hello.protocol as ProtocolVersion;
  const { device } = peer;
  await write(ctx, device.workspaceId, async (tx, outbox) => {
    const row = await markHello(tx, device, hello);
    await recordSoftware(tx, device, hello);
    if (row) outbox.add('device.updated', serialize(row));
    await outbox.record({ userId: null, action: `${device.name} connected`, deviceId: device.id, type: 'success' });
  });
  ctx.dispatcher.attach({
    ...device,
    deviceId: device.id,
    deviceName: device.name,
    socketId: peer.socketId,
    protocol: peer.protocol,
    heardAt: Date.now(),
    ...(hello.holding ? { holding: true } : {}),
    send: peer.send,
  });
  // Work is handed over once the phone has its answer (and, speaking protocol 2, has sent what it kept).
  setImmediate(() => void ctx.dispatcher.wake(device.id));
  return { ok: true, protocol: peer.protocol, heartbeatMs: automation().heartbeatMs, deviceId: device.id, deviceName: device.name };
}

/** The end of an attempt: settled once by the lifecycle (in a batch), kept from by the features, and the next task handed over. */
async function takeResult(ctx: AgentContext, peer: AgentPeer, message: AgentMessage<'task.result'>): Promise<Ack> {
  ctx.progress.settle(message.taskId, peer.device.id);
  // Protocol 1 tells a failure in words only: its reason is unknown, and trying again may help.
  const failure =
    message.status === 'failed' ? (message.failure ?? { code: 'unknown' as const, ...(message.error ? { message: message.error } : {}) }) : undefined;
  const finishedAt = message.finishedAt && !Number.isNaN(Date.parse(message.finishedAt)) ? new Date(message.finishedAt) : undefined;
  const { taskId, attempt, status, engagement, run } = message;
  const answer = await ctx.results.run({ device: peer.device, result: { taskId, attempt, status, failure, engagement, finishedAt, run } });
  if ('error' in answer) throw answer.error;
  if (answer.verdict.kind !== 'unknown') {
    for (const hooks of ctx.hooks) {
      // What a feature keeps of a result (a failure's evidence) is never the result's loss.
      await hooks.resultTaken?.(peer, message).catch((error: unknown) => {
        ctx.log.warn({ err: error, deviceId: peer.device.id, workspaceId: peer.device.workspaceId, taskId }, 'a feature failed on a result');
      });
    }
  }
  // Its next task, once it has this answer (trigger 2 of the dispatcher's header, dispatcher.ts).
  setImmediate(() => void ctx.dispatcher.finished(peer.device.id));
  if (answer.verdict.kind === 'unknown') return { ok: false, error: `This phone was not given attempt ${attempt} of task ${taskId}` };
  return ok;
}

/** A progress report: one statement, announced once written. */
function writeProgress(ctx: WriteContext, device: AgentDevice, report: ProgressReport): Promise<void> {
  return writeStatement(ctx, async (db, outboxes) => {
    await progressTask(db, device.id, report, outboxes.for(device.workspaceId));
  });
}

/** Acks gathered while the last batch was written, in one statement: for each, the task it moved, if any. */
async function writeAcks(ctx: WriteContext, given: PhoneAck[]): Promise<(TaskRow | undefined)[]> {
  // An id that is no UUID names no task: it is answered without the statement, which it would fail for all.
  const acked = await writeStatement(ctx, (db, outboxes) =>
    ackTasks(
      db,
      given.filter((ack) => isUuid(ack.taskId)),
      outboxes,
    ),
  );
  return given.map((ack) => acked.find((task) => task.id === ack.taskId && task.deviceId === ack.deviceId && task.attempt === ack.attempt));
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
