/**
 * Dry runs and traces (the recipe studio): a person runs one recipe on one phone they control, straight through or a
 * step at a time, and watches a trace of every step — its screenshot, the UI tree it read, the node it matched, what
 * it did, its verdict and its time. Offered only to agents that list `dryrun` in their hello; protocol 1 agents and
 * older protocol 2 agents are never sent these messages.
 *
 * A real (dispatched) run that fails carries the failed step's trace in its result (`failureTrace`), so the console
 * can show the selector that missed with the screen it missed on.
 */
import { z } from 'zod';
import { appVerification } from './work.ts';
import { engagementActions, recipeParams, selector } from './recipes/recipe.schema.ts';
import { captureApp, uiTreeSchema } from './recipes/recipe.inspect.ts';

/** A step's screenshot in a trace: a JPEG or PNG of at most this many bytes (scaled down by the phone if need be). */
export const MAX_TRACE_FRAME_BYTES = 400 * 1024;
/** Steps one dry run may trace; the run stops (`stopped`, "too many steps") past it. */
export const MAX_TRACE_STEPS = 500;

/** How a dry run goes: `straight` through, or `step` by step (the phone waits for `dryrun.next` before each step). */
export const dryRunModes = ['straight', 'step'] as const;
export type DryRunMode = (typeof dryRunModes)[number];

/**
 * What became of a step. `done` it did what it says; `skipped` it was left out (a `when` whose element did not show,
 * ordinary content the recipe skips); `failed` it ended the run; `stopped` the run stopped before it (no-effects mode
 * reached a counted step, or the person stopped the run).
 */
export const traceVerdicts = ['done', 'skipped', 'failed', 'stopped'] as const;
export type TraceVerdict = (typeof traceVerdicts)[number];

/** A screenshot a trace (or a post handed to a VA) carries: JPEG or PNG bytes within MAX_TRACE_FRAME_BYTES. */
export const traceFrame = z.object({
  mime: z.enum(['image/jpeg', 'image/png']),
  data: z.custom<Uint8Array>((value) => value instanceof Uint8Array && value.byteLength > 0 && value.byteLength <= MAX_TRACE_FRAME_BYTES, {
    message: `must be 1 to ${MAX_TRACE_FRAME_BYTES} bytes of image`,
  }),
  width: z.number().int().min(1).max(8192),
  height: z.number().int().min(1).max(8192),
});

/** One step of a trace, as the phone saw and did it. */
export const traceStep = z.object({
  /** 1, 2, 3… in the order steps ran (a repeat's steps count again). */
  seq: z.number().int().min(1).max(MAX_TRACE_STEPS),
  /** Where the step sits in the recipe: `3` or `3.1` (0-based); `start` for the pre-flight. */
  path: z.string().min(1).max(40),
  /** The step's kind (`tap`, `wait_for`…, or `preflight`). */
  do: z.string().min(1).max(40),
  label: z.string().max(200),
  verdict: z.enum(traceVerdicts),
  /** Why it failed, was skipped or stopped; what it found. */
  detail: z.string().max(2000).optional(),
  /** The selector the step looked for, its parameters filled in (the one that missed, on a failed step). */
  selector: selector.optional(),
  /** The node it matched: its place in `tree.nodes` (when the tree is sent) and its bounds in screen pixels. */
  matched: z
    .object({
      node: z.number().int().min(0).max(100_000).nullable(),
      bounds: z.object({ left: z.number().int(), top: z.number().int(), right: z.number().int(), bottom: z.number().int() }),
    })
    .optional(),
  /** Where it touched, in screen pixels. */
  point: z.object({ x: z.number(), y: z.number() }).optional(),
  /** The engagement it performed and counted. */
  action: z.enum(engagementActions).optional(),
  /** How long the step took, in milliseconds. */
  ms: z
    .number()
    .int()
    .min(0)
    .max(24 * 3_600_000),
  /** The screen after the step (before it, for a failed or stopped one). */
  frame: traceFrame.optional(),
  /** The UI tree the step read (the last one, for a step that looked several times). */
  tree: uiTreeSchema.optional(),
});
export type TraceStep = z.infer<typeof traceStep>;

/** What the server asks of the pre-flight: as a dispatched task's (`RecipePreflight`), the account and the coverage. */
export const dryRunPreflight = z.object({
  /** The account the phone must be signed in to (username, without @), where the recipe can read it. */
  account: z.string().max(100).nullable(),
  verifiedApps: z.array(appVerification).max(200).optional(),
  allowUntestedApp: z.boolean().optional(),
});

export const dryRunStart = z.object({
  runId: z.string().min(1).max(64),
  /** The recipe document, as stored (the phone validates it with the same schema). */
  recipe: z.record(z.string(), z.unknown()),
  /**
   * Values for the recipe's parameters (a caption, a hashtag…), as a dispatched task would carry them. A `media` here
   * is never a file to copy: the phone copies only what it fetched from `media` below.
   */
  params: recipeParams,
  /**
   * Stored uploads of the workspace the person picked (`/api/objects/<id>`), fetched by the phone as a task's media
   * are and given to the run as its `media`. Optional: an agent from before it drops the field (zod's objects strip
   * unknown keys) and runs without media, so nothing it would push can come from here.
   */
  media: z.array(z.string().min(1).max(300)).max(10).optional(),
  mode: z.enum(dryRunModes),
  /** False: "no effects" — the run stops before the first step that would count an engagement. */
  effects: z.boolean(),
  preflight: dryRunPreflight,
});
export type DryRunStart = z.infer<typeof dryRunStart>;

/** How a dry run ended. `passed`: every step done; `failed`: a step ended it; `stopped`: no-effects or the person. */
export const dryRunOutcomes = ['passed', 'failed', 'stopped'] as const;
export type DryRunOutcome = (typeof dryRunOutcomes)[number];

export const dryRunResult = z.object({
  runId: z.string().min(1).max(64),
  outcome: z.enum(dryRunOutcomes),
  /** The failure's code (`element_missing`, `app_changed`…) and the phone's words, when it failed. */
  failure: z.object({ code: z.string().max(60), message: z.string().max(2000) }).optional(),
  /** Engagement it performed and confirmed on screen (they count against the account's caps for today). */
  actions: z.partialRecord(z.enum(engagementActions), z.number().int().min(0).max(10_000)).optional(),
  /** The app it drove, with its version and the phone's language, once the pre-flight read them. */
  app: captureApp.optional(),
  steps: z.number().int().min(0).max(MAX_TRACE_STEPS),
  durationMs: z
    .number()
    .int()
    .min(0)
    .max(24 * 3_600_000),
});
export type DryRunResult = z.infer<typeof dryRunResult>;

/**
 * The failed step of a real run, in its `task.result`'s `failure.trace`: the step, the selector that missed, the
 * screen it missed on and its tree. The phone keeps the whole result under Socket.IO's 1 MB message limit: the frame
 * at most MAX_TRACE_FRAME_BYTES, the tree left out when it is too big.
 */
export const failureTrace = traceStep.extend({
  /** A real run is not held to MAX_TRACE_STEPS: its failed step may come after many more (a long warm-up's rounds). */
  seq: z.number().int().min(1).max(1_000_000),
});
export type FailureTrace = z.infer<typeof failureTrace>;

/** Server → agent, for agents that listed `dryrun`. */
export const dryRunServerMessages = {
  /** Run this recipe now as a dry run; answered `{ ok: true }` once it starts, or why not (busy, no such app…). */
  'dryrun.start': dryRunStart,
  /** Step by step: go on with the next step. */
  'dryrun.next': z.object({ runId: z.string().min(1).max(64) }),
  /** Stop the run before its next step (the step under way finishes). */
  'dryrun.stop': z.object({ runId: z.string().min(1).max(64) }),
} as const;

/** Agent → server, during a dry run it started. */
export const dryRunAgentMessages = {
  /** A step's trace, as soon as the step ends (answered, so the phone sends them one at a time, in order). */
  'dryrun.step': z.object({ runId: z.string().min(1).max(64), step: traceStep }),
  /** The run ended; sent once, answered. */
  'dryrun.result': dryRunResult,
} as const;
