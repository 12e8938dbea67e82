/**
 * Dry runs of the recipe studio: a person runs one workspace recipe on one phone (straight through or a step at a
 * time, with or without effects) and watches its trace: per step the screenshot, the tree, the node it matched, what
 * it did, its verdict and its time. The pre-flight shows what the run would touch before it starts.
 */
import { z } from 'zod';
import { dryRunModes, dryRunStart, traceVerdicts } from '@farm/agent-protocol/dryrun';
import { selectorSchema, uiTreeSchema } from '@farm/agent-protocol/inspect';
import { id, idFilter, isoTime } from './common.ts';
import { must } from './sentences.ts';

export const dryRunStatuses = ['starting', 'running', 'passed', 'failed', 'stopped'] as const;
export type DryRunStatus = (typeof dryRunStatuses)[number];
/** The engagement a recipe step can count, as the phone names it. */
export const countedActions = ['like', 'follow', 'comment', 'post'] as const;
export type CountedAction = (typeof countedActions)[number];

/** The refusal of `params.media` in a dry run: files come only as picked stored uploads. */
export const DRY_RUN_PARAMS_MEDIA = 'Dry runs take no file paths in params.media: pick stored uploads of this workspace in media';

export const createDryRunBody = z.object({
  /** The workspace recipe (its row id in Settings → Recipes). */
  recipeId: z.uuid({ error: must('be a recipe of this workspace') }),
  deviceId: z.uuid({ error: must('be a phone of this workspace') }),
  mode: z.enum(dryRunModes, { error: must('be straight or step') }),
  /** False: "no effects", the run stops before the first step that likes, follows, comments or posts. */
  effects: z.boolean({ error: must('be true or false') }),
  /**
   * Values for the recipe's parameters; a caption "Dry run" and the phone's account when left out. Never `media`: a
   * path there would name a file of the farm host (farm hosts not yet upgraded copied it to the phone).
   */
  params: dryRunStart.shape.params.extend({ media: z.never({ error: DRY_RUN_PARAMS_MEDIA }).optional() }).optional(),
  /**
   * Stored uploads of this workspace for the run's media (at most 10): object ids or `/api/objects/<id>` addresses.
   * The phone fetches them as it fetches a post's media.
   */
  media: z
    .array(z.string({ error: must('be stored uploads of this workspace') }).max(300), { error: must('be a list of stored uploads') })
    .max(10)
    .optional(),
});
export type CreateDryRunBody = z.infer<typeof createDryRunBody>;

export const dryRunPreflightQuery = z.object({ recipeId: idFilter, deviceId: idFilter });

/** What the pre-flight found: shown before Start, and checked again when the run starts. */
export const dryRunPreflight = z.object({
  device: z.object({ id, name: z.string(), online: z.boolean(), canDryRun: z.boolean() }),
  /** The phone's signed-in account for the recipe's platform (from the accounts linked to the phone). */
  account: z.object({ id, username: z.string(), paused: z.boolean(), pausedMessage: z.string().nullable() }).nullable(),
  /** The app the phone reported in its last hello, and whether the recipe covers it. */
  app: z.object({ package: z.string(), version: z.string().nullable() }),
  coverage: z.object({ covered: z.boolean(), by: z.string().nullable(), reason: z.string().nullable() }).nullable(),
  /** The counted actions the recipe can perform, each with today's cap and what is left of it for the account. */
  counted: z.array(z.object({ action: z.enum(countedActions), cap: z.number().int().nullable(), left: z.number().int().nullable() })),
  /** Why a run cannot start now (offline, agent too old, busy, controlled by someone else), or null. */
  blocked: z.string().nullable(),
  /** The recipe copies files to the phone (share_media, push_media): the run wants picked uploads as its media. */
  needsMedia: z.boolean(),
});
export type DryRunPreflight = z.infer<typeof dryRunPreflight>;

export const dryRun = z.object({
  id,
  recipeRowId: id,
  recipeId: z.string(),
  recipeVersion: z.number().int(),
  recipeName: z.string(),
  deviceId: id.nullable(),
  deviceName: z.string().nullable(),
  startedById: id.nullable(),
  startedByName: z.string().nullable(),
  mode: z.enum(dryRunModes),
  effects: z.boolean(),
  status: z.enum(dryRunStatuses),
  failure: z.object({ code: z.string(), message: z.string() }).nullable(),
  app: z.object({ package: z.string(), version: z.string(), locale: z.string().nullable() }).nullable(),
  actions: z.partialRecord(z.enum(countedActions), z.number().int()),
  steps: z.number().int(),
  startedAt: isoTime,
  finishedAt: isoTime.nullable(),
  verified: z.boolean(),
});
export type DryRun = z.infer<typeof dryRun>;

const bounds = z.object({ left: z.number(), top: z.number(), right: z.number(), bottom: z.number() });

/** One step of a trace; its tree is read on its own (`GET /api/dry-runs/{id}/steps/{seq}/tree`). */
export const traceStepOut = z.object({
  seq: z.number().int(),
  path: z.string(),
  do: z.string(),
  label: z.string(),
  verdict: z.enum(traceVerdicts),
  detail: z.string().nullable(),
  selector: selectorSchema.nullable(),
  matched: z.object({ node: z.number().int().nullable(), bounds }).nullable(),
  point: z.object({ x: z.number(), y: z.number() }).nullable(),
  action: z.enum(countedActions).nullable(),
  ms: z.number().int(),
  /** The screenshot: `/api/objects/<id>`. */
  frameUrl: z.string().nullable(),
  frameWidth: z.number().int().nullable(),
  frameHeight: z.number().int().nullable(),
  hasTree: z.boolean(),
});
export type TraceStepOut = z.infer<typeof traceStepOut>;

export const dryRunDetail = dryRun.extend({ trace: z.array(traceStepOut) });
export type DryRunDetail = z.infer<typeof dryRunDetail>;

export const dryRunListQuery = z.object({ recipeId: idFilter });

/** A step by its run and its place in the trace (`1`, `2`…); anything else names no step (404). */
export const traceStepParams = z.object({ id, seq: z.string() });
export const traceTree = uiTreeSchema;

/** `dryrun.step` on the browser's socket: a step of a run, as soon as the phone sent it. */
export const dryRunStepEvent = z.object({ runId: id, step: traceStepOut });
