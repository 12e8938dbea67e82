/** The Add Routine form: type-specific settings with the spec's defaults, and the body it sends. */
import {
  deriveRoutineDuration,
  routineDefaults,
  routineTypeLabels,
  type CreateRoutineBody,
  type Routine,
  type RoutineSettings,
  type RoutineType,
} from '@farm/contracts';

/** Types a person may add; 'basic' exists only in older stored data. */
export const addableRoutineTypes = [
  'warmup',
  'doom_scroll',
  'branch_from_account',
  'create_post',
  'basic_scroll',
  'engage_comments',
] as const satisfies readonly RoutineType[];
export type AddableRoutineType = (typeof addableRoutineTypes)[number];

export const routineSpeeds = ['slow', 'medium', 'fast'] as const;
export const routineContentTypes = ['video', 'photo', 'carousel'] as const;

export const routineBounds = {
  minutes: { min: 1, max: 600 },
  actions: { min: 1, max: 1000 },
  targetPosts: { min: 1, max: 100 },
  branchDepth: { min: 1, max: 5 },
  engagementRate: { min: 0, max: 100 },
  intensity: { min: 1, max: 10 },
} as const;

export interface RoutineFormValues {
  type: AddableRoutineType | null;
  accountId: string | null;
  intensity: number | string;
  warmupMinutes: number | string;
  warmupActions: number | string;
  doomScrollMinutes: number | string;
  speed: (typeof routineSpeeds)[number];
  basicScrollMinutes: number | string;
  targetPosts: number | string;
  contentType: (typeof routineContentTypes)[number];
  sourceAccount: string;
  branchDepth: number | string;
  engagementRate: number | string;
}

export function emptyRoutineForm(): RoutineFormValues {
  return {
    type: null,
    accountId: null,
    intensity: routineDefaults.intensity,
    warmupMinutes: routineDefaults.warmupMinutes,
    warmupActions: routineDefaults.warmupActions,
    doomScrollMinutes: routineDefaults.doomScrollMinutes,
    speed: routineDefaults.speed,
    basicScrollMinutes: routineDefaults.basicScrollMinutes,
    targetPosts: routineDefaults.targetPosts,
    contentType: routineDefaults.contentType,
    sourceAccount: '',
    branchDepth: routineDefaults.branchDepth,
    engagementRate: routineDefaults.engagementRate,
  };
}

/** A blank number input falls back to the default rather than sending nothing. */
function numberOr(value: number | string, fallback: number): number {
  if (typeof value === 'number') return Number.isFinite(value) ? value : fallback;
  const parsed = Number(value);
  return value.trim() === '' || Number.isNaN(parsed) ? fallback : parsed;
}

/** Only the settings that belong to the chosen type. */
export function routineSettingsFor(type: AddableRoutineType, values: RoutineFormValues): RoutineSettings {
  switch (type) {
    case 'warmup':
      return {
        duration: numberOr(values.warmupMinutes, routineDefaults.warmupMinutes),
        actionCount: numberOr(values.warmupActions, routineDefaults.warmupActions),
      };
    case 'doom_scroll':
      return {
        duration: numberOr(values.doomScrollMinutes, routineDefaults.doomScrollMinutes),
        speed: values.speed,
      };
    case 'basic_scroll':
      return { duration: numberOr(values.basicScrollMinutes, routineDefaults.basicScrollMinutes) };
    case 'create_post':
      return { contentType: values.contentType };
    case 'branch_from_account': {
      const settings: RoutineSettings = {
        branchDepth: numberOr(values.branchDepth, routineDefaults.branchDepth),
        engagementRate: numberOr(values.engagementRate, routineDefaults.engagementRate),
      };
      const source = values.sourceAccount.trim().replace(/^@/, '');
      if (source) settings.sourceAccount = source;
      return settings;
    }
    case 'engage_comments':
      return {
        targetPosts: numberOr(values.targetPosts, routineDefaults.targetPosts),
        engagementRate: numberOr(values.engagementRate, routineDefaults.engagementRate),
      };
  }
}

/** Minutes the routine will run, shown live in the dialog; null until a type is chosen. */
export function formDuration(values: RoutineFormValues): number | null {
  if (!values.type) return null;
  return deriveRoutineDuration(values.type, routineSettingsFor(values.type, values));
}

/** Short words describing what the routine does, kept with it for the phone and for people reading it. */
export function routineActions(type: AddableRoutineType, settings: RoutineSettings): string[] {
  switch (type) {
    case 'warmup':
      return ['scroll', 'like'];
    case 'doom_scroll':
      return ['scroll', `speed:${settings.speed ?? routineDefaults.speed}`];
    case 'basic_scroll':
      return ['scroll'];
    case 'create_post':
      return ['post', `content:${settings.contentType ?? routineDefaults.contentType}`];
    case 'branch_from_account':
      return ['visit', 'like', 'follow'];
    case 'engage_comments':
      return ['like', 'comment'];
  }
}

export type RoutineFormProblem = 'type' | 'account';

/** What stops the form: a missing type disables submit; a missing account is the spec's toast. */
export function routineFormProblem(values: RoutineFormValues): RoutineFormProblem | null {
  if (!values.type) return 'type';
  if (!values.accountId) return 'account';
  return null;
}

export interface RoutineContext {
  campaignId: string;
  platform: string;
}

/** The POST /api/routines body; the server derives duration and sequence again, so these are advisory. */
export function buildRoutinePayload(values: RoutineFormValues & { type: AddableRoutineType; accountId: string }, context: RoutineContext): CreateRoutineBody {
  const settings = routineSettingsFor(values.type, values);
  const body: CreateRoutineBody = {
    campaignId: context.campaignId,
    type: values.type,
    platform: context.platform,
    accountId: values.accountId,
    name: routineTypeLabels[values.type],
    intensity: numberOr(values.intensity, routineDefaults.intensity),
    actions: routineActions(values.type, settings),
    settings,
    isActive: true,
  };
  // The server reads a sent duration as the routine's duration setting, so it goes only with types that have one.
  if (settings.duration !== undefined) body.duration = deriveRoutineDuration(values.type, settings);
  return body;
}

/** Minutes a stored routine runs: derived from its settings, except old 'basic' routines that only kept a duration. */
export function routineMinutes(routine: Pick<Routine, 'type' | 'settings' | 'duration'>): number {
  if (routine.type === 'basic') return routine.duration;
  return deriveRoutineDuration(routine.type, routine.settings);
}

/** Routines in the order they run. */
export function bySequence<T extends Pick<Routine, 'sequence'>>(routines: readonly T[]): T[] {
  return [...routines].sort((a, b) => a.sequence - b.sequence);
}
