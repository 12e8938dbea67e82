import { z } from 'zod';
import { taskStatuses } from '@farm/agent-protocol/values';
import { failureCode } from '@farm/agent-protocol/failures';
import { routineTypes } from '@farm/agent-protocol/routines';
import { id, idFilter, isoTime, nullableTime, pageQuery, shortText } from './common.ts';
import { messages } from './messages.ts';
import { must } from './sentences.ts';

export const campaignPlatformValues = ['instagram', 'tiktok', 'tinder'] as const;
export const campaignPlatform = z.enum(campaignPlatformValues);
export const campaignStatusValues = ['draft', 'active', 'paused', 'completed'] as const;
export const campaignStatus = z.enum(campaignStatusValues);
export type CampaignStatus = z.infer<typeof campaignStatus>;
export const engagementActionValues = ['like', 'comment', 'follow'] as const;
const engagementAction = z.enum(engagementActionValues);
export const swipeGenderValues = ['men', 'women', 'everyone'] as const;
/** Whose list a campaign follows from a reference account: its followers, or those it follows. */
export const followTypeValues = ['followers', 'following'] as const;

/** Per-account daily caps of engagement actions; a missing one uses the platform's default. */
const capCount = z
  .number({ error: 'Daily caps must be whole numbers from 0 to 100000' })
  .int({ message: 'Daily caps must be whole numbers from 0 to 100000' })
  .min(0, { message: 'Daily caps must be whole numbers from 0 to 100000' })
  .max(100_000, { message: 'Daily caps must be whole numbers from 0 to 100000' });
/** Default daily caps per account, by platform: what a careful agency lets one account do in a day. */
export const platformDailyCaps: Record<
  'instagram' | 'tiktok' | 'tinder' | 'default',
  Required<{ likes: number; follows: number; comments: number; posts: number }>
> = {
  instagram: { likes: 300, follows: 100, comments: 40, posts: 5 },
  tiktok: { likes: 400, follows: 120, comments: 50, posts: 5 },
  tinder: { likes: 200, follows: 0, comments: 0, posts: 0 },
  default: { likes: 200, follows: 80, comments: 30, posts: 3 },
};
export const dailyCaps = z
  .object({ likes: capCount.optional(), follows: capCount.optional(), comments: capCount.optional(), posts: capCount.optional() })
  .strict();
export type DailyCaps = z.infer<typeof dailyCaps>;

const listOf = (emptyMessage: string) =>
  z
    .array(z.string().max(500))
    .max(200)
    .refine((items) => items.every((item) => item.trim().length > 0), { message: emptyMessage })
    .transform((items) => items.map((item) => item.trim()));
const plainList = z
  .array(z.string().trim().max(500))
  .max(200)
  .transform((items) => items.filter((item) => item.length > 0));

/**
 * The create form names the tinder swipe settings one way and the stored record another;
 * both are accepted and the stored names win. Answers always use the stored names.
 */
export const swipeSpellings = {
  swipeGender: 'autoswipeGenderPreference',
  swipeAgeMin: 'autoswipeAgeMin',
  swipeAgeMax: 'autoswipeAgeMax',
  swipeDistance: 'autoswipeDistanceMax',
  swipeBioKeywords: 'autoswipeBioKeywords',
  autoSwipeEnabled: 'autoswipeEnabled',
} as const;

function normaliseSwipeSpelling(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const out: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const [formName, storedName] of Object.entries(swipeSpellings)) {
    if (formName in out) {
      if (!(storedName in out)) out[storedName] = out[formName];
      delete out[formName];
    }
  }
  return out;
}

const campaignFields = z.object({
  name: shortText.min(1, { message: 'Name is required' }),
  platform: campaignPlatform,
  niche: shortText.min(1, { message: 'Niche is required' }),
  keywords: listOf(messages.keywordsEmpty).default([]),
  referenceAccounts: listOf(messages.referenceAccountsEmpty).default([]),
  engagementTarget: z
    .number({ error: messages.engagementTarget })
    .int({ message: messages.engagementTarget })
    .gt(0, { message: messages.engagementTarget })
    .max(1_000_000, { error: must('be at most 1000000') })
    .default(100),
  status: campaignStatus.optional(),
  customLore: z.string().max(10_000).nullable().optional(),
  guidelines: z.string().max(10_000).nullable().optional(),
  searchAndLike: z.boolean().optional(),
  followAccountList: z.boolean().optional(),
  followFromAccount: z.boolean().optional(),
  searchKeywords: plainList.optional(),
  searchAndLikeActions: z.array(engagementAction).max(3).optional(),
  accountsToFollow: plainList.optional(),
  followTargetAccounts: plainList.optional(),
  followType: z.enum(followTypeValues).nullable().optional(),
  engageCommenters: z.boolean().optional(),
  engageCommentersActions: z.array(engagementAction).max(3).optional(),
  autoLikeEnabled: z.boolean().optional(),
  autoLikeReferenceImages: z.array(z.string().max(2000)).max(5, { message: 'You can only upload 5 file(s)' }).optional(),
  autoLikeGuidelines: z.string().max(10_000).nullable().optional(),
  autoswipeEnabled: z.boolean().optional(),
  autoswipeGenderPreference: z.enum(swipeGenderValues).nullable().optional(),
  autoswipeAgeMin: z
    .number({ error: messages.swipeAgeMin })
    .int({ message: messages.swipeAgeMin })
    .min(18, { message: messages.swipeAgeMin })
    .max(100, { message: messages.swipeAgeMin })
    .optional(),
  autoswipeAgeMax: z
    .number({ error: messages.swipeAgeMax })
    .int({ message: messages.swipeAgeMax })
    .min(18, { message: messages.swipeAgeMax })
    .max(100, { message: messages.swipeAgeMax })
    .optional(),
  autoswipeDistanceMax: z
    .number({ error: messages.swipeDistance })
    .int({ message: messages.swipeDistance })
    .min(1, { message: messages.swipeDistance })
    .max(160, { message: messages.swipeDistance })
    .optional(),
  autoswipeBioKeywords: plainList.optional(),
  activeHoursStart: z
    .number({ error: messages.activeHours })
    .int({ message: messages.activeHours })
    .min(0, { message: messages.activeHours })
    .max(23, { message: messages.activeHours })
    .optional(),
  activeHoursEnd: z
    .number({ error: messages.activeHours })
    .int({ message: messages.activeHours })
    .min(1, { message: messages.activeHours })
    .max(24, { message: messages.activeHours })
    .optional(),
  cooldownMinutes: z
    .number({ error: messages.cooldown })
    .int({ message: messages.cooldown })
    .min(0, { message: messages.cooldown })
    .max(1440, { message: messages.cooldown })
    .optional(),
  dailyCaps: dailyCaps.optional(),
  /** Every account on this group's phones takes the campaign's group routines, kept in step with the group. */
  groupId: id.nullable().optional(),
});

const agesInOrder = (body: { autoswipeAgeMin?: number | undefined; autoswipeAgeMax?: number | undefined }) =>
  body.autoswipeAgeMin === undefined || body.autoswipeAgeMax === undefined || body.autoswipeAgeMin <= body.autoswipeAgeMax;
const hoursInOrder = (body: { activeHoursStart?: number | undefined; activeHoursEnd?: number | undefined }) =>
  body.activeHoursStart === undefined || body.activeHoursEnd === undefined || body.activeHoursStart < body.activeHoursEnd;

export const createCampaignBody = z.preprocess(
  normaliseSwipeSpelling,
  campaignFields
    .refine((body) => body.keywords.length + body.referenceAccounts.length > 0, {
      message: messages.keywordOrReference,
      path: ['keywords'],
    })
    .refine(agesInOrder, { message: messages.swipeAgeOrder, path: ['autoswipeAgeMin'] })
    .refine(hoursInOrder, { message: messages.activeHoursOrder, path: ['activeHoursEnd'] }),
);
/** What the create form sends: either spelling of the swipe settings. */
export type CreateCampaignBody = z.input<typeof campaignFields> & {
  swipeGender?: (typeof swipeGenderValues)[number] | null;
  swipeAgeMin?: number;
  swipeAgeMax?: number;
  swipeDistance?: number;
  swipeBioKeywords?: string[];
  autoSwipeEnabled?: boolean;
};

export const updateCampaignBody = z.preprocess(
  normaliseSwipeSpelling,
  campaignFields
    .extend({
      keywords: listOf(messages.keywordsEmpty).optional(),
      referenceAccounts: listOf(messages.referenceAccountsEmpty).optional(),
      engagementTarget: campaignFields.shape.engagementTarget.removeDefault().optional(),
    })
    .partial()
    .refine(agesInOrder, { message: messages.swipeAgeOrder, path: ['autoswipeAgeMin'] })
    .refine(hoursInOrder, { message: messages.activeHoursOrder, path: ['activeHoursEnd'] }),
);
export type UpdateCampaignBody = Partial<CreateCampaignBody>;

export const campaign = z.object({
  id,
  name: z.string(),
  platform: campaignPlatform,
  niche: z.string(),
  keywords: z.array(z.string()),
  referenceAccounts: z.array(z.string()),
  engagementTarget: z.number().int(),
  status: campaignStatus,
  customLore: z.string().nullable(),
  guidelines: z.string().nullable(),
  searchAndLike: z.boolean(),
  followAccountList: z.boolean(),
  followFromAccount: z.boolean(),
  searchKeywords: z.array(z.string()),
  searchAndLikeActions: z.array(z.string()),
  accountsToFollow: z.array(z.string()),
  followTargetAccounts: z.array(z.string()),
  followType: z.string().nullable(),
  engageCommenters: z.boolean(),
  engageCommentersActions: z.array(z.string()),
  autoLikeEnabled: z.boolean(),
  autoLikeReferenceImages: z.array(z.string()),
  autoLikeGuidelines: z.string().nullable(),
  autoswipeEnabled: z.boolean(),
  autoswipeGenderPreference: z.string().nullable(),
  autoswipeAgeMin: z.number().int(),
  autoswipeAgeMax: z.number().int(),
  autoswipeDistanceMax: z.number().int(),
  autoswipeBioKeywords: z.array(z.string()),
  /** Runs happen between these hours of the workspace's day. */
  activeHoursStart: z.number().int(),
  activeHoursEnd: z.number().int(),
  /** Minutes between two runs on one account. */
  cooldownMinutes: z.number().int(),
  /** Per-action daily caps per account that override the platform's defaults. */
  dailyCaps: dailyCaps,
  createdById: id.nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
  accountIds: z.array(id),
  /**
   * The group whose phones' accounts run the campaign's group routines, or null. Who is in it is read when the day
   * is planned and again when each run falls due, so the campaign follows phones joining or leaving the group.
   */
  groupId: id.nullable(),
});
export type Campaign = z.infer<typeof campaign>;
export const campaignListQuery = pageQuery.extend({ status: campaignStatus.optional(), platform: campaignPlatform.optional() });

export const linkAccountBody = z.object({ accountId: id });
export const campaignAccountLink = z.object({ id, campaignId: id, accountId: id, createdAt: isoTime });
export const campaignAccountParams = z.object({ id, accountId: id });

export const routineTypeValues = routineTypes;
export const routineType = z.enum(routineTypeValues);
export type RoutineType = z.infer<typeof routineType>;
export const routineTypeLabels: Record<RoutineType, string> = {
  basic: 'Basic',
  warmup: 'Warmup',
  doom_scroll: 'Doom Scroll',
  branch_from_account: 'Branch From Account',
  create_post: 'Create Post',
  basic_scroll: 'Basic Scroll',
  engage_comments: 'Engage Comments',
};

/** Type-specific settings of a routine, with the spec's defaults and bounds. */
export const routineSettings = z.object({
  duration: z.number().int().min(1).max(600).optional(),
  actionCount: z.number().int().min(1).max(1000).optional(),
  speed: z.enum(['slow', 'medium', 'fast']).optional(),
  targetPosts: z.number().int().min(1).max(100).optional(),
  contentType: z.enum(['video', 'photo', 'carousel']).optional(),
  branchDepth: z
    .number({ error: messages.branchDepth })
    .int({ message: messages.branchDepth })
    .min(1, { message: messages.branchDepth })
    .max(5, { message: messages.branchDepth })
    .optional(),
  engagementRate: z
    .number({ error: messages.engagementRate })
    .min(0, { message: messages.engagementRate })
    .max(100, { message: messages.engagementRate })
    .optional(),
  sourceAccount: z.string().max(200).optional(),
});
export type RoutineSettings = z.infer<typeof routineSettings>;

export const routineDefaults = {
  warmupMinutes: 5,
  warmupActions: 10,
  doomScrollMinutes: 10,
  speed: 'medium',
  basicScrollMinutes: 3,
  targetPosts: 5,
  contentType: 'video',
  branchDepth: 2,
  engagementRate: 50,
  intensity: 5,
} as const;

/** The settings a type runs with, its defaults filled in (SPEC §9). */
export function settingsFor(type: RoutineType, given: RoutineSettings = {}): RoutineSettings {
  switch (type) {
    case 'warmup':
      return { duration: routineDefaults.warmupMinutes, actionCount: routineDefaults.warmupActions, ...given };
    case 'doom_scroll':
      return { duration: routineDefaults.doomScrollMinutes, speed: routineDefaults.speed, ...given };
    case 'basic_scroll':
      return { duration: routineDefaults.basicScrollMinutes, ...given };
    case 'branch_from_account':
      return { branchDepth: routineDefaults.branchDepth, engagementRate: routineDefaults.engagementRate, ...given };
    case 'create_post':
      return { contentType: routineDefaults.contentType, ...given };
    case 'engage_comments':
      return { targetPosts: routineDefaults.targetPosts, engagementRate: routineDefaults.engagementRate, ...given };
    case 'basic':
      return given;
  }
}

/** Minutes a routine runs, derived from its type and settings (SPEC §9). */
export function deriveRoutineDuration(type: RoutineType, settings: RoutineSettings): number {
  switch (type) {
    case 'warmup':
      return settings.duration ?? routineDefaults.warmupMinutes;
    case 'doom_scroll':
      return settings.duration ?? routineDefaults.doomScrollMinutes;
    case 'branch_from_account':
      return (settings.branchDepth ?? routineDefaults.branchDepth) * 5;
    case 'create_post':
      return 10;
    case 'engage_comments':
      return (settings.targetPosts ?? routineDefaults.targetPosts) * 2;
    case 'basic_scroll':
      return settings.duration ?? routineDefaults.basicScrollMinutes;
    case 'basic':
      return settings.duration ?? 0;
  }
}

const routineFields = z.object({
  campaignId: id,
  type: routineType,
  platform: z.string().max(40).optional(),
  accountId: z.string({ error: messages.routineAccount }).min(1, { message: messages.routineAccount }).optional(),
  /** For every account on the phones of the campaign's group instead of one account (then no accountId). */
  forGroup: z.boolean().optional(),
  name: shortText.optional(),
  intensity: z.number().int().min(1).max(10).optional(),
  duration: z.number().int().min(0).max(600).optional(),
  actions: z.array(z.string().max(100)).max(50).optional(),
  settings: routineSettings.optional(),
  isActive: z.boolean().optional(),
});
export const createRoutineBody = routineFields.superRefine((body, ctx) => {
  if (body.forGroup && body.accountId !== undefined)
    ctx.addIssue({ code: 'custom', path: ['accountId'], message: "A routine for the group's accounts names no account of its own." });
  else if (!body.forGroup && body.accountId === undefined) ctx.addIssue({ code: 'custom', path: ['accountId'], message: messages.routineAccount });
});
export type CreateRoutineBody = z.input<typeof createRoutineBody>;
export const updateRoutineBody = routineFields
  .omit({ campaignId: true, forGroup: true })
  .partial()
  .extend({ sequence: z.number().int().min(1).max(100_000).optional() });
export const routine = z.object({
  id,
  campaignId: id,
  type: routineType,
  platform: z.string(),
  accountId: id.nullable(),
  /** Runs for each account on the phones of the campaign's group (accountId is null). */
  forGroup: z.boolean(),
  name: z.string(),
  intensity: z.number().int(),
  duration: z.number().int(),
  actions: z.array(z.string()),
  settings: routineSettings,
  sequence: z.number().int(),
  isActive: z.boolean(),
  createdAt: isoTime,
});
export type Routine = z.infer<typeof routine>;
export const routineListQuery = z.object({ campaignId: idFilter.optional() });

export const campaignSession = z.object({
  id,
  campaignId: id,
  routineId: id.nullable(),
  accountId: id.nullable(),
  sessionId: id.nullable(),
  status: z.enum(taskStatuses),
  scheduledAt: nullableTime,
  startedAt: nullableTime,
  completedAt: nullableTime,
  /** The day (in the workspace's zone) and round of the daily plan this run belongs to. */
  planDay: z.string().nullable(),
  round: z.number().int().nullable(),
  /** Engagement actions the phone reported for this run. */
  engagementActions: z.number().int(),
  failureCode: failureCode.nullable(),
  /** Why it was cancelled or failed, in words. */
  note: z.string().nullable(),
  createdAt: isoTime,
});
export type CampaignSession = z.infer<typeof campaignSession>;
export const campaignSessionListQuery = z.object({ campaignId: idFilter.optional() });
