/**
 * A failed run's evidence (the recipe studio): the step a real run failed on as its phone saw it — the selector that
 * missed, the screen it missed on and that screen's elements — shown on the task, the post and the phone's history,
 * with the phones a person may re-record the routine on (online now, with the same app version).
 */
import { z } from 'zod';
import { failureCode } from '@farm/agent-protocol/failures';
import { uiTreeSchema } from '@farm/agent-protocol/inspect';
import { id, isoTime } from './common.ts';

const bounds = z.object({ left: z.number(), top: z.number(), right: z.number(), bottom: z.number() });

export const failureEvidence = z.object({
  taskId: id,
  attempt: z.number().int(),
  taskTitle: z.string(),
  /** Why the attempt failed, as the phone said it. */
  failureCode: failureCode.nullable(),
  failureMessage: z.string().nullable(),
  step: z.object({
    /** 1, 2, 3… in the order the run's steps ran. */
    seq: z.number().int(),
    /** Where the step sits in the recipe (`3`, `3.1`, 0-based; `start` for the pre-flight). */
    path: z.string(),
    do: z.string(),
    label: z.string(),
    detail: z.string().nullable(),
    ms: z.number().int(),
  }),
  /** The selector the step looked for (the one that missed), its parameters filled in. */
  selector: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullable(),
  /** The node it matched (its place in the tree and its bounds in screen pixels), if any. */
  matched: z.object({ node: z.number().int().nullable(), bounds }).nullable(),
  /** Where it touched, in screen pixels. */
  point: z.object({ x: z.number(), y: z.number() }).nullable(),
  /** The screen it failed on: `/api/objects/<id>`, with its size in pixels. */
  frame: z.object({ url: z.string(), width: z.number().int(), height: z.number().int() }).nullable(),
  /** The screen's elements are kept: `GET /api/tasks/{id}/evidence/tree`. */
  hasTree: z.boolean(),
  /** Why the screen and its elements were not kept (the workspace's storage was full), in a sentence. */
  dropped: z.string().nullable(),
  /** The app the run drove, as the phone's pre-flight read it. */
  app: z.object({ package: z.string(), version: z.string().nullable() }).nullable(),
  recipe: z.object({ id: z.string(), version: z.number().int().nullable() }).nullable(),
  /** The phone it failed on (null once the phone was removed). */
  device: z.object({ id, name: z.string() }).nullable(),
  createdAt: isoTime,
});
export type FailureEvidence = z.infer<typeof failureEvidence>;

/** The elements of the screen a run failed on. */
export const failureEvidenceTree = uiTreeSchema;

export const rerecordQuery = z.object({
  package: z.string().trim().min(1, { message: 'Package is required' }).max(200, { message: 'Package must be at most 200 characters' }),
  version: z.string().trim().min(1, { message: 'Version is required' }).max(100, { message: 'Version must be at most 100 characters' }),
  /** The phone the run failed on: listed first when it qualifies. */
  deviceId: id.max(64).optional(),
});
export type RerecordQuery = z.infer<typeof rerecordQuery>;

/** A phone a person may re-record on now: online, with the app at that version, theirs to control. */
export const rerecordPhone = z.object({ id, name: z.string(), status: z.string(), failedHere: z.boolean() });
export type RerecordPhone = z.infer<typeof rerecordPhone>;
