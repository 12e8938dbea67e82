/**
 * A failed run's evidence: the failed step a phone sends in its result's `failure.trace` is kept once per attempt —
 * its frame a stored object and its tree a text, both counted in the workspace's storage quota under the quota's lock
 * (over it, the step is kept without them and says why). A trace that does not fit the schema is dropped and logged:
 * the result it came with is taken all the same, since a result must never be lost.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { agentMessages, failure, failureTrace, type AgentMessage, type FailureTrace } from '@farm/agent-protocol';
import type { FailureEvidence } from '@farm/contracts';
import type { Db } from '../../shared/types.ts';
import { objectPath, type Storage } from '../../storage/storage.ts';
import { lockQuota } from '../uploads/uploads.queries.ts';
import { attemptOfDevice, insertFrameObject, insertTrace, traceExists, type EvidenceRow } from './evidence.queries.ts';

/** Said on a step whose screen and elements did not fit the workspace's storage. */
export const TRACE_DROPPED = "The screen and its elements were not kept: this workspace's storage was full.";

/** `task.result` as the server reads it: the failure's trace is read on its own, after the rest. */
const serverTaskResult = agentMessages['task.result'].extend({ failure: failure.extend({ trace: z.unknown().optional() }).optional() });

export type ParsedTaskResult = { success: true; data: AgentMessage<'task.result'>; droppedTrace?: z.ZodError } | { success: false; error: z.ZodError };

/** Parses a result; a trace that does not fit its schema is left out (`droppedTrace` says why), never the result. */
export function parseTaskResult(raw: unknown): ParsedTaskResult {
  const parsed = serverTaskResult.safeParse(raw);
  if (!parsed.success) return { success: false, error: parsed.error };
  const { failure: given, ...rest } = parsed.data;
  if (!given) return { success: true, data: rest };
  const { trace, ...failureRest } = given;
  if (trace === undefined) return { success: true, data: { ...rest, failure: failureRest } };
  const checked = failureTrace.safeParse(trace);
  if (checked.success) return { success: true, data: { ...rest, failure: { ...failureRest, trace: checked.data } } };
  return { success: true, data: { ...rest, failure: failureRest }, droppedTrace: checked.error };
}

export interface GivenTrace {
  workspaceId: string;
  deviceId: string;
  taskId: string;
  attempt: number;
  trace: FailureTrace;
  recipe?: { id: string; version: number } | undefined;
  app?: { package: string; version: string } | undefined;
}

export type TraceOutcome = 'stored' | 'stored-without-screen' | 'exists' | 'not-given';

class AlreadyKept extends Error {}

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/**
 * Keeps a failed attempt's trace, once: a copy sent again (or racing the first) changes nothing. The frame is written
 * while its rows are held, so a failed write leaves neither.
 */
export async function storeFailureTrace(db: Db, storage: Storage, given: GivenTrace, quotaBytes: number): Promise<TraceOutcome> {
  if (await traceExists(db, given.taskId, given.attempt)) return 'exists';
  if (!(await attemptOfDevice(db, given.workspaceId, given.taskId, given.attempt, given.deviceId))) return 'not-given';
  const { trace } = given;
  const frame = trace.frame ? Buffer.from(trace.frame.data.buffer, trace.frame.data.byteOffset, trace.frame.data.byteLength) : null;
  const tree = trace.tree ? JSON.stringify(trace.tree) : null;
  const treeBytes = tree ? Buffer.byteLength(tree) : 0;
  const size = (frame?.length ?? 0) + treeBytes;
  try {
    return await db.transaction().execute(async (tx) => {
      // Under the workspace's lock even when nothing is counted: two copies of one result are kept one after the other.
      const room = await lockQuota(tx, given.workspaceId, size, quotaBytes);
      const keep = size > 0 && room.fits;
      const frameKey = keep && frame ? randomUUID() : null;
      if (frameKey && frame && trace.frame) {
        await insertFrameObject(tx, { key: frameKey, workspaceId: given.workspaceId, contentType: trace.frame.mime, size: frame.length });
      }
      const inserted = await insertTrace(tx, {
        taskId: given.taskId,
        attempt: given.attempt,
        workspaceId: given.workspaceId,
        deviceId: given.deviceId,
        recipeId: given.recipe?.id ?? null,
        recipeVersion: given.recipe?.version ?? null,
        package: given.app?.package || null,
        appVersion: given.app?.version || null,
        seq: trace.seq,
        stepPath: trace.path,
        label: trace.label,
        do: trace.do,
        detail: trace.detail ?? null,
        selector: json(trace.selector),
        matched: json(trace.matched),
        point: json(trace.point),
        ms: trace.ms,
        frameKey,
        frameSize: frameKey ? (frame?.length ?? null) : null,
        frameWidth: frameKey ? (trace.frame?.width ?? null) : null,
        frameHeight: frameKey ? (trace.frame?.height ?? null) : null,
        tree: keep ? tree : null,
        treeBytes: keep ? treeBytes : 0,
        dropped: size > 0 && !keep ? TRACE_DROPPED : null,
      });
      if (!inserted) throw new AlreadyKept();
      if (frameKey && frame) await storage.write(frameKey, frame);
      return keep || size === 0 ? 'stored' : 'stored-without-screen';
    });
  } catch (error) {
    if (error instanceof AlreadyKept) return 'exists';
    throw error;
  }
}

const asObject = <T>(value: unknown): T | null =>
  value === null || value === undefined ? null : ((typeof value === 'string' ? JSON.parse(value) : value) as T);

export function toEvidence(row: EvidenceRow): FailureEvidence {
  return {
    taskId: row.taskId,
    attempt: row.attempt,
    taskTitle: row.taskTitle,
    failureCode: row.failureCode ?? null,
    failureMessage: row.failureMessage ?? null,
    step: { seq: row.seq, path: row.stepPath, do: row.do, label: row.label, detail: row.detail, ms: row.ms },
    selector: asObject<FailureEvidence['selector']>(row.selector),
    matched: asObject<FailureEvidence['matched']>(row.matched),
    point: asObject<FailureEvidence['point']>(row.point),
    frame: row.frameKey ? { url: objectPath(row.frameKey), width: row.frameWidth ?? 0, height: row.frameHeight ?? 0 } : null,
    hasTree: Boolean(row.hasTree),
    dropped: row.dropped,
    app: row.package ? { package: row.package, version: row.appVersion } : null,
    recipe: row.recipeId ? { id: row.recipeId, version: row.recipeVersion } : null,
    device: row.deviceId ? { id: row.deviceId, name: row.deviceName ?? 'A phone' } : null,
    createdAt: row.createdAt.toISOString(),
  };
}
