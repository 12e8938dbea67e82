import { z } from 'zod';
import { failureCode } from '@farm/agent-protocol/failures';
import { phoneCommands } from '@farm/agent-protocol/values';
import { id, idFilter, isoTime, nullableTime, range } from './common.ts';
import { device } from './fleet.contract.ts';
import { deviceGroupKind } from './groups.contract.ts';

/** The credential a phone agent connects with; shown once, stored hashed. */
export const deviceCredential = z.object({ deviceId: id, token: z.string(), createdAt: isoTime });

export const screenshot = z.object({ id, deviceId: id, sessionId: id.nullable(), url: z.string(), capturedAt: isoTime });
export type Screenshot = z.infer<typeof screenshot>;

export const commandBody = z.object({ name: z.enum(phoneCommands) });
export const commandAnswer = z.object({ delivered: z.boolean() });

export const wallLink = z.object({ id, name: z.string(), createdAt: isoTime, revokedAt: isoTime.nullable() });
export type WallLink = z.infer<typeof wallLink>;
export const createWallLinkBody = z.object({ name: z.string().trim().min(1, { message: 'Name is required' }).max(80).optional() });
export const createdWallLink = wallLink.extend({ token: z.string(), url: z.string() });

/** One tile of the wall screen: only what a TV on the farm floor needs to show. */
export const wallTile = device.pick({ id: true, name: true, status: true, battery: true, lastActive: true, controlledByName: true }).extend({
  screenshotUrl: z.string().nullable(),
  currentTask: z.string().nullable(),
  vaName: z.string().nullable(),
});
export type WallTile = z.infer<typeof wallTile>;
/** A group or tag the wall may show alone: its name and how many phones it holds. */
export const wallGroup = z.object({ id, name: z.string(), kind: deviceGroupKind, phones: z.number().int() });
export type WallGroup = z.infer<typeof wallGroup>;
export const wallSnapshot = z.object({
  workspaceName: z.string(),
  tiles: z.array(wallTile),
  /** The workspace's groups and tags, for the wall's group filter. */
  groups: z.array(wallGroup),
  /** The group whose phones these tiles are, or null for every phone. */
  groupId: id.nullable(),
});
export type WallSnapshot = z.infer<typeof wallSnapshot>;
export const wallQuery = z.object({
  token: z.string().max(200).optional(),
  /** Only the phones of this group or tag. */
  groupId: idFilter.optional(),
});

/** How an attempt ended: settled by its result, its lease expired, withdrawn by a change, or cancelled with its task. */
export const attemptOutcomeValues = ['completed', 'failed', 'expired', 'withdrawn', 'cancelled'] as const;

/** One hand-over of a task to the phone, and how it ended: the device's history. */
export const deviceHistoryEntry = z.object({
  taskId: id,
  title: z.string(),
  type: z.string(),
  attempt: z.number().int(),
  dispatchedAt: isoTime,
  ackedAt: nullableTime,
  endedAt: nullableTime,
  /** null while the attempt is out on the phone. */
  outcome: z.enum(attemptOutcomeValues).nullable(),
  failureCode: failureCode.nullable(),
  failureMessage: z.string().nullable(),
  /** The failed step's evidence is kept for this attempt: `GET /api/tasks/{taskId}/evidence`. */
  evidence: z.boolean(),
});
export type DeviceHistoryEntry = z.infer<typeof deviceHistoryEntry>;

/** A one-time code a phone (or a farm host) exchanges for its credential; valid 15 minutes, shown once. */
export const enrollmentCode = z.object({ code: z.string(), expiresAt: isoTime });
export type EnrollmentCode = z.infer<typeof enrollmentCode>;
export const ENROLLMENT_MINUTES = 15;

/** The exchange of a code for a credential is part of the agents' contract. */
export { enrollAnswer, enrollBody } from '@farm/agent-protocol/enroll';

/** A farm host: a PC with phones on USB that registers every phone it sees. */
export const host = z.object({
  id,
  name: z.string(),
  enrolledAt: nullableTime,
  lastSeenAt: nullableTime,
  revokedAt: nullableTime,
  /** Its control connection is open now. */
  connected: z.boolean(),
  phones: z.number().int(),
  phonesOnline: z.number().int(),
  createdAt: isoTime,
});
export type Host = z.infer<typeof host>;
export const createHostBody = z.object({
  name: z.string().trim().min(1, { message: 'Name the host' }).max(80, { message: 'A host name is at most 80 characters' }).optional(),
});
export const createdHost = z.object({ host: z.object({ id, name: z.string() }), code: z.string(), expiresAt: isoTime });

// ── a workspace's own step recipes ──────────────────────────────────────────────────────────────────────

/** A recipe as listed: what it is for and which app versions it claims (its steps are in the detail). */
export const recipeSummary = z.object({
  recipeId: z.string(),
  version: z.number().int(),
  name: z.string(),
  platform: z.string(),
  routines: z.array(z.string()),
  appPackage: z.string(),
  writtenFor: z.string(),
  minVersion: z.string().nullable(),
  belowVersion: z.string().nullable(),
  /** The farm ran it on its own phones and app version. */
  verified: z.boolean(),
});
export const workspaceRecipe = recipeSummary.extend({
  id,
  enabled: z.boolean(),
  createdAt: isoTime,
  updatedAt: isoTime,
  /** The stored document fails the current schema: turned off, with where and why (fix it and add it again). */
  invalid: z.object({ field: z.string(), reason: z.string() }).nullable(),
  /** The shipped template it came from (the editor compares against it), if any. */
  basedOn: z.string().nullable(),
});
export type WorkspaceRecipe = z.infer<typeof workspaceRecipe>;
/** The recipe document itself, as validated by the agent's recipe schema. */
const recipeDocument = z.record(z.string(), z.unknown());
export const workspaceRecipeDetail = workspaceRecipe.extend({
  body: recipeDocument,
  /** Each top-level step's recorded screenshot (a `data:` URL), or null; only where the recipe was recorded. */
  stepShots: z.array(z.string().nullable()).optional(),
});
export type WorkspaceRecipeDetail = z.infer<typeof workspaceRecipeDetail>;
/** One selector of a shipped recipe with where its evidence comes from, or why no readable source holds it. */
export const selectorEvidence = z.object({
  /** The element (and alternative) or the part of the recipe: `like_button.or[0]`, `guards[0].when`. */
  where: z.string(),
  /** Its matching fields as written (`id=row_feed_button_like, selected=true`). */
  match: z.string(),
  /** `acts`: the recipe finds, reads or taps it; `marker`: it only stops, skips or clears a popup. */
  role: z.enum(['acts', 'marker']),
  verified: z.boolean(),
  /** The repository, commit, path and line that hold it, and the fixture carrying the node. */
  source: z.string().nullable(),
  /** Why it is unverified; null when verified. */
  unverified: z.string().nullable(),
});
export type SelectorEvidence = z.infer<typeof selectorEvidence>;
export const shippedRecipeDetail = recipeSummary.extend({
  body: recipeDocument,
  /** Each selector the recipe uses, verified or not, and from where. */
  evidence: z.array(selectorEvidence),
  /** The unverified selectors it acts on: while any, it runs only where the workspace verified the version or opts in. */
  heldBack: z.array(z.string()),
});
export type ShippedRecipeDetail = z.infer<typeof shippedRecipeDetail>;
/** The note on a pending task a paused recipe holds back. */
export const RECIPE_PAUSED_NOTE = 'Recipe paused for this app version';

/** A recipe paused for one app version after it stopped matching the app on several phones (the breaker). */
export const recipeBreaker = z.object({
  id,
  recipeId: z.string(),
  recipeName: z.string(),
  platform: z.string(),
  routines: z.array(z.string()),
  appPackage: z.string(),
  appVersion: z.string(),
  paused: z.boolean(),
  /** Distinct phones whose runs ended "app changed" when it tripped. */
  phones: z.number().int(),
  trippedAt: isoTime,
  /** Pending tasks of the paused routines on phones with this app version. */
  waitingTasks: z.number().int(),
});
export type RecipeBreaker = z.infer<typeof recipeBreaker>;
export const recipeSettings = z.object({
  /** Shipped templates may run on app versions no one verified (off by default). */
  tryUntestedTemplates: z.boolean({ message: 'Say whether templates may run on app versions no one verified (true or false)' }),
});
export type RecipeSettings = z.infer<typeof recipeSettings>;
export const recipeSentByHand = z.object({ tasks: z.number().int() });
export const recipeList = z.object({
  recipes: z.array(workspaceRecipe),
  shipped: z.array(recipeSummary),
  breakers: z.array(recipeBreaker),
  settings: recipeSettings,
});
export type RecipeList = z.infer<typeof recipeList>;
// ── the recipe health board ─────────────────────────────────────────────────────────────────────────────

/** A recipe run that failed, with what the phone said: the evidence under "last failures". */
export const recipeRunFailure = z.object({
  taskId: id,
  taskTitle: z.string(),
  deviceId: id.nullable(),
  deviceName: z.string().nullable(),
  at: isoTime,
  code: failureCode,
  message: z.string().nullable(),
  recipeVersion: z.number().int().nullable(),
});
export type RecipeRunFailure = z.infer<typeof recipeRunFailure>;

/**
 * The breaker of a recipe on one app version: `on` (never tripped), `tripped` (paused; `phones` distinct phones saw
 * the app change), or `resumed` (an operator turned it back on: who and when).
 */
export const recipeBreakerState = z.object({
  state: z.enum(['on', 'tripped', 'resumed']),
  breakerId: id.nullable(),
  trippedAt: nullableTime,
  phones: z.number().int(),
  resumedAt: nullableTime,
  resumedBy: z.object({ id, name: z.string() }).nullable(),
});
export type RecipeBreakerState = z.infer<typeof recipeBreakerState>;

/** A recipe's runs on one app version over the window. `appPackage` and `appVersion` are '' for runs that ended before the app was read. */
export const recipeHealthRow = z.object({
  recipeId: z.string(),
  recipeName: z.string(),
  platform: z.string(),
  appPackage: z.string(),
  appVersion: z.string(),
  runs: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  /** Percent of runs that completed, to one decimal (0 without runs). */
  successRate: z.number(),
  /** Failure codes with their counts, the most frequent first. */
  failureReasons: z.array(z.object({ code: z.string(), label: z.string(), count: z.number().int() })),
  /** Estimated from the runs' duration buckets; null when no run said how long it took. */
  medianDurationMs: z.number().int().nullable(),
  /** The phones it ran on: how many, and the first names in alphabetical order (at most 10). */
  phones: z.object({ count: z.number().int(), names: z.array(z.string()) }),
  /** The newest failed runs in the window (at most 5). */
  lastFailures: z.array(recipeRunFailure),
  breaker: recipeBreakerState,
});
export type RecipeHealthRow = z.infer<typeof recipeHealthRow>;

/** An app version phones of the fleet have that no recipe covers, by the coverage rule, for some routine. */
export const uncoveredAppVersion = z.object({
  appPackage: z.string(),
  appVersion: z.string(),
  platform: z.string().nullable(),
  /** The routines recipes do for this app that none covers on this version. */
  routines: z.array(z.string()),
  phones: z.object({ count: z.number().int(), names: z.array(z.string()) }),
  /** This workspace lets shipped templates run on versions no one verified: they will be tried there anyway. */
  untestedAllowed: z.boolean(),
});
export type UncoveredAppVersion = z.infer<typeof uncoveredAppVersion>;

/**
 * GET /api/recipes/health: the window is whole days in the workspace's time zone, `from` to `to` (both included);
 * runs are counted per day, so 24h counts yesterday and today.
 */
export const recipeHealth = z.object({
  range: range,
  timeZone: z.string(),
  from: z.iso.date(),
  to: z.iso.date(),
  recipes: z.array(recipeHealthRow),
  uncovered: z.array(uncoveredAppVersion),
});
export type RecipeHealth = z.infer<typeof recipeHealth>;

/** A phone whose latest run of an app in the window ended `language_untested`, and what to do about it. */
export const languageHeldPhone = z.object({
  deviceId: id,
  deviceName: z.string(),
  /** The UI language the app showed; null from agents that do not say it. */
  locale: z.string().nullable(),
  recipeId: z.string(),
  recipeName: z.string(),
  appPackage: z.string(),
  appVersion: z.string(),
  /** The languages the recipe reads: the one it is written for, then those the workspace verified it in. */
  covered: z.array(z.string()),
  at: isoTime,
  /** What to do, in a sentence: the phone's language set to one the recipe covers, or the recipe verified on it. */
  whatToDo: z.string(),
});
export type LanguageHeldPhone = z.infer<typeof languageHeldPhone>;

/** GET /api/recipes/held-by-language: the phones held back by their language over the last `days` days. */
export const languageHeldPhones = z.object({ days: z.number().int(), phones: z.array(languageHeldPhone) });
export type LanguageHeldPhones = z.infer<typeof languageHeldPhones>;

/** A recorded step's screenshot: the small picture (a JPEG or PNG `data:` URL) of the screen it was made on. */
export const recipeStepShot = z.object({
  /** The step's place among the recipe's top-level steps, 0 first. */
  step: z.number().int().min(0).max(999),
  image: z
    .string()
    .max(24_000, { message: 'A step screenshot is at most 24 KB' })
    .regex(/^data:image\/(jpeg|png);base64,[A-Za-z0-9+/]+={0,2}$/, { message: 'A step screenshot is a JPEG or PNG data: URL' }),
});
export type RecipeStepShot = z.infer<typeof recipeStepShot>;

/**
 * What a recipe step does and to what (its kind, target, text, key, direction, app): a recorded step's screenshot
 * belongs to this, not to the step's place, so a step moved or given a count or a label keeps its picture.
 */
export function stepFingerprint(step: unknown): string {
  if (step === null || typeof step !== 'object') return '';
  const { do: kind, target, text, key, direction, package: app } = step as Record<string, unknown>;
  return JSON.stringify([kind ?? null, target ?? null, text ?? null, key ?? null, direction ?? null, app ?? null]);
}

/** Each of `steps`' picture, from pictures known by fingerprint (two steps alike take one picture each, in order). */
export function picturesOfSteps(steps: readonly unknown[], known: readonly { fingerprint: string; image: string }[]): (string | null)[] {
  const byFingerprint = new Map<string, string[]>();
  for (const shot of known) byFingerprint.set(shot.fingerprint, [...(byFingerprint.get(shot.fingerprint) ?? []), shot.image]);
  return steps.map((step) => byFingerprint.get(stepFingerprint(step))?.shift() ?? null);
}

export const createRecipeBody = z.object({
  recipe: recipeDocument.refine((value) => JSON.stringify(value).length <= 200_000, { message: 'A recipe is at most 200 KB of JSON' }),
  enabled: z.boolean().optional(),
  /** Record's screenshots of its steps, shown beside them in the editor. */
  stepShots: z.array(recipeStepShot).max(200).optional(),
});
export const updateRecipeBody = z.object({ enabled: z.boolean() });
export const shippedRecipeParams = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,79}$/, { message: 'Recipe id is not one of the shipped recipes' }),
});

// ── the recipe editor: versions, diff and restore ───────────────────────────────────────────────────────

/** One saved version of a workspace recipe (every save in the editor adds one). */
export const recipeVersion = z.object({
  id,
  version: z.number().int(),
  name: z.string(),
  enabled: z.boolean(),
  createdAt: isoTime,
  /** Who saved it; null when that member was removed, or for rows saved before versions were kept. */
  savedBy: z.string().nullable(),
  note: z.string().nullable(),
  /** The shipped template it came from, if any. */
  basedOn: z.string().nullable(),
  /** The version it was saved or restored from, if any. */
  basedOnVersion: z.number().int().nullable(),
  invalid: z.object({ field: z.string(), reason: z.string() }).nullable(),
});
export type RecipeVersion = z.infer<typeof recipeVersion>;
export const recipeVersionList = z.object({ recipeId: z.string(), versions: z.array(recipeVersion) });
export type RecipeVersionList = z.infer<typeof recipeVersionList>;

export const saveRecipeVersionBody = z.object({
  recipe: recipeDocument.refine((value) => JSON.stringify(value).length <= 200_000, { message: 'A recipe is at most 200 KB of JSON' }),
  note: z.string({ error: 'Note must be text' }).trim().max(200, { message: 'Note must be at most 200 characters' }).optional(),
});
export type SaveRecipeVersionBody = z.input<typeof saveRecipeVersionBody>;

export const recipeDiffQuery = z.object({
  against: z
    .string({ error: 'Say what to compare against: another version\'s id or "shipped"' })
    .regex(/^(shipped|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i, {
      message: 'Compare against another version\'s id or "shipped"',
    }),
});
/** A line of the compare: kept, removed from the earlier document, or added in this one; line numbers on each side. */
export const recipeDiffLine = z.object({
  kind: z.enum(['same', 'removed', 'added']),
  text: z.string(),
  oldLine: z.number().int().nullable(),
  newLine: z.number().int().nullable(),
});
export type RecipeDiffLine = z.infer<typeof recipeDiffLine>;
/** GET /api/recipes/:id/diff: `from` (the earlier document: a version or the shipped template) to `to` (this version). */
export const recipeDiff = z.object({
  from: z.object({ label: z.string(), id: id.nullable() }),
  to: z.object({ label: z.string(), id }),
  added: z.number().int(),
  removed: z.number().int(),
  lines: z.array(recipeDiffLine),
});
export type RecipeDiff = z.infer<typeof recipeDiff>;
