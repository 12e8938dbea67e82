/**
 * Kysely table types for every table of migrations/, written once here and shared by api and workers.
 * Property names are camelCase; the CamelCasePlugin maps them to the snake_case columns.
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { DryRunMode, TraceVerdict } from '@farm/agent-protocol/dryrun';
import type { FailureCode } from '@farm/agent-protocol/failures';
import type { RoutineType } from '@farm/agent-protocol/routines';
import type { DeviceStatus, Platform, TaskPriority, TaskStatus, TaskType } from '@farm/agent-protocol/values';
import type {
  accountStatusValues,
  activityTypeValues,
  appRolloutActionValues,
  appRolloutPhoneStatusValues,
  appRolloutStatusValues,
  appVersionKindValues,
  attemptOutcomeValues,
  campaignPlatformValues,
  campaignStatusValues,
  deviceGroupKindValues,
  dryRunStatuses,
  followTypeValues,
  postStatusValues,
  roleValues,
  swipeGenderValues,
  uiReaderKindValues,
  usageModeValues,
  webhookDeliveryStatusValues,
  HandOverRecord,
} from '@farm/contracts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type TextArray = ColumnType<string[], string[] | undefined, string[]>;
type Json = ColumnType<Record<string, unknown>, string | undefined, string>;
type NullableText = ColumnType<string | null, string | null | undefined, string | null>;
type NullableCode = ColumnType<FailureCode | null, FailureCode | null | undefined, FailureCode | null>;
export type { FailureCode };

// Every value list is written once: those the phones speak in agent-protocol, the rest in the contracts.
export type Role = (typeof roleValues)[number];
export type { DeviceStatus, TaskType, TaskPriority, TaskStatus, Platform };
export type ActivityType = (typeof activityTypeValues)[number];
export type CampaignStatus = (typeof campaignStatusValues)[number];
export type AccountStatus = (typeof accountStatusValues)[number];
export type PostStatus = (typeof postStatusValues)[number];
export type { RoutineType };
export type UiReaderKind = (typeof uiReaderKindValues)[number];
export type DeviceGroupKind = (typeof deviceGroupKindValues)[number];
export type AppVersionKind = (typeof appVersionKindValues)[number];
export type AppRolloutAction = (typeof appRolloutActionValues)[number];
export type AppRolloutStatus = (typeof appRolloutStatusValues)[number];
export type AppRolloutPhoneStatus = (typeof appRolloutPhoneStatusValues)[number];
export type { DryRunMode, TraceVerdict };
export type DryRunStatus = (typeof dryRunStatuses)[number];

export interface WorkspacesTable {
  id: Generated<string>;
  name: string;
  /** IANA zone name; 'UTC' unless set at signup or in Settings. */
  timeZone: ColumnType<string, string | undefined, string>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** Operators of this workspace must sign in with a second factor (0010). */
  requireTwoFactor: ColumnType<boolean, boolean | undefined, boolean>;
  /** Retention (0022): screenshots by age and count per phone, activity and finished tasks by age. */
  keepScreenshotsDays: ColumnType<number, number | undefined, number>;
  keepScreenshotsPerDevice: ColumnType<number, number | undefined, number>;
  keepActivityDays: ColumnType<number, number | undefined, number>;
  keepFinishedTasksDays: ColumnType<number, number | undefined, number>;
  /** Settings → Recipes (0034): shipped templates may run on app versions no one verified. */
  tryUntestedTemplates: ColumnType<boolean, boolean | undefined, boolean>;
  /** Packages operators added to group control's allowlist (0059). */
  groupControlPackages: ColumnType<string[], string[] | undefined, string[]>;
}

export interface UsersTable {
  id: Generated<string>;
  email: string;
  passwordHash: string;
  name: string;
  role: Role;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** Two-factor sign-in (0010): the TOTP secret, sealed under the server's secret; null while it is off. */
  totpSecret: ColumnType<string | null, string | null | undefined, string | null>;
  /** A secret being set up, until its first code confirms it. */
  totpPendingSecret: ColumnType<string | null, string | null | undefined, string | null>;
  totpEnabledAt: NullableTimestamp;
  /** The last TOTP time step accepted: a code works once. */
  totpLastStep: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface WorkspaceMembersTable {
  workspaceId: string;
  userId: string;
  role: Role;
  deactivatedAt: NullableTimestamp;
  /** When the member last was an operator (0053): set on each demotion; resets count 30 days after it. */
  lastOperatorAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** Wrong second-factor codes of a person in the window that started at `windowStart` (0053). */
export interface SecondFactorFailuresTable {
  userId: string;
  windowStart: Timestamp;
  failures: number;
}

export interface AuthSessionsTable {
  id: Generated<string>;
  tokenHash: string;
  userId: string;
  createdAt: Timestamp;
  lastSeenAt: Timestamp;
  expiresAt: Timestamp;
  ip: string | null;
  userAgent: string | null;
}

export interface InvitationsTable {
  id: Generated<string>;
  workspaceId: string;
  tokenHash: string;
  role: ColumnType<Role, Role | undefined, Role>;
  email: string | null;
  createdById: string | null;
  expiresAt: Timestamp;
  acceptedAt: NullableTimestamp;
  acceptedById: string | null;
  createdAt: Timestamp;
}

export interface AuditLogTable {
  id: Generated<string>;
  workspaceId: string | null;
  actorId: string | null;
  action: string;
  entityType: string;
  entityId: string | null;
  data: Json;
  ip: ColumnType<string | null, string | null | undefined, string | null>;
  createdAt: Timestamp;
}

export interface DevicesTable {
  id: Generated<string>;
  workspaceId: string;
  name: string;
  status: ColumnType<DeviceStatus, DeviceStatus | undefined, DeviceStatus>;
  battery: ColumnType<number, number | undefined, number>;
  lastActive: Timestamp;
  assignedToId: string | null;
  sessionTime: ColumnType<number, number | undefined, number>;
  lastSeenAt: NullableTimestamp;
  agentProtocol: ColumnType<number | null, number | null | undefined, number | null>;
  agentVersion: NullableText;
  hostId: NullableText;
  serial: NullableText;
  model: NullableText;
  androidVersion: NullableText;
  screenOn: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
  foregroundApp: NullableText;
  /** The person controlling the phone from the console, while one does: its tasks wait meanwhile. */
  controlledById: ColumnType<string | null, string | null | undefined, string | null>;
  controlledByName: NullableText;
  controlledSince: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** The row as the API answers it (JSON text), written by the database on every change (migration 0025). */
  answerJson: ColumnType<string, never, never>;
}

export interface TasksTable {
  id: Generated<string>;
  workspaceId: string;
  title: string;
  description: string | null;
  type: TaskType;
  priority: TaskPriority;
  status: ColumnType<TaskStatus, TaskStatus | undefined, TaskStatus>;
  deviceId: string | null;
  assignedToId: string | null;
  deadline: NullableTimestamp;
  startedAt: NullableTimestamp;
  completedAt: NullableTimestamp;
  attempt: ColumnType<number, number | undefined, number>;
  dispatchedAt: NullableTimestamp;
  postId: ColumnType<string | null, string | null | undefined, string | null>;
  campaignSessionId: ColumnType<string | null, string | null | undefined, string | null>;
  maxAttempts: ColumnType<number, number | undefined, number>;
  leaseExpiresAt: NullableTimestamp;
  nextAttemptAt: NullableTimestamp;
  lastProgressAt: NullableTimestamp;
  progress: ColumnType<number | null, number | null | undefined, number | null>;
  progressNote: NullableText;
  failureCode: NullableCode;
  failureMessage: NullableText;
  expectedSeconds: ColumnType<number, number | undefined, number>;
  work: Json;
  sourceKey: NullableText;
  accountId: NullableText;
  engagement: Json;
  /** A person's question about a post its phone could not confirm: the publishing task it asks about (0035). */
  unconfirmedTaskId: ColumnType<string | null, string | null | undefined, string | null>;
  /** A post a phone's run handed to a person (a comment a VA writes): author, account, link, frame (0058). */
  handOver: ColumnType<HandOverRecord | null, string | null | undefined, string | null>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface SessionsTable {
  id: Generated<string>;
  workspaceId: string;
  deviceId: string;
  vaId: string | null;
  taskId: string | null;
  currentTask: string | null;
  duration: ColumnType<number, number | undefined, number>;
  screenshots: ColumnType<number, number | undefined, number>;
  isActive: ColumnType<boolean, boolean | undefined, boolean>;
  activeSince: NullableTimestamp;
  startedAt: Timestamp;
  endedAt: NullableTimestamp;
}

export interface ActivitiesTable {
  id: Generated<string>;
  workspaceId: string;
  userId: string | null;
  action: string;
  deviceId: string | null;
  type: ColumnType<ActivityType, ActivityType | undefined, ActivityType>;
  createdAt: Timestamp;
}

export interface CampaignsTable {
  id: Generated<string>;
  workspaceId: string;
  name: string;
  platform: (typeof campaignPlatformValues)[number];
  niche: string;
  keywords: TextArray;
  referenceAccounts: TextArray;
  engagementTarget: ColumnType<number, number | undefined, number>;
  status: ColumnType<CampaignStatus, CampaignStatus | undefined, CampaignStatus>;
  customLore: string | null;
  guidelines: string | null;
  searchAndLike: ColumnType<boolean, boolean | undefined, boolean>;
  followAccountList: ColumnType<boolean, boolean | undefined, boolean>;
  followFromAccount: ColumnType<boolean, boolean | undefined, boolean>;
  searchKeywords: TextArray;
  searchAndLikeActions: TextArray;
  accountsToFollow: TextArray;
  followTargetAccounts: TextArray;
  followType: (typeof followTypeValues)[number] | null;
  engageCommenters: ColumnType<boolean, boolean | undefined, boolean>;
  engageCommentersActions: TextArray;
  autoLikeEnabled: ColumnType<boolean, boolean | undefined, boolean>;
  autoLikeReferenceImages: TextArray;
  autoLikeGuidelines: string | null;
  autoswipeEnabled: ColumnType<boolean, boolean | undefined, boolean>;
  autoswipeGenderPreference: (typeof swipeGenderValues)[number] | null;
  autoswipeAgeMin: ColumnType<number, number | undefined, number>;
  autoswipeAgeMax: ColumnType<number, number | undefined, number>;
  autoswipeDistanceMax: ColumnType<number, number | undefined, number>;
  autoswipeBioKeywords: TextArray;
  activeHoursStart: ColumnType<number, number | undefined, number>;
  activeHoursEnd: ColumnType<number, number | undefined, number>;
  cooldownMinutes: ColumnType<number, number | undefined, number>;
  dailyCaps: Json;
  createdById: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** Every account on this group's phones takes the campaign's group routines (0042); null: linked accounts only. */
  groupId: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface AccountsTable {
  id: Generated<string>;
  workspaceId: string;
  username: string;
  platform: Platform;
  status: ColumnType<AccountStatus, AccountStatus | undefined, AccountStatus>;
  deviceId: string | null;
  profilePicture: string | null;
  bio: string | null;
  followers: ColumnType<number, number | undefined, number>;
  following: ColumnType<number, number | undefined, number>;
  warmupStartDate: NullableTimestamp;
  warmupEndDate: NullableTimestamp;
  gender: string | null;
  age: number | null;
  birthday: ColumnType<string | null, string | null | undefined, string | null>;
  profileImages: TextArray;
  interests: TextArray;
  sexualOrientation: string | null;
  relationshipGoal: string | null;
  pausedCode: NullableCode;
  pausedMessage: NullableText;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface RoutinesTable {
  id: Generated<string>;
  workspaceId: string;
  campaignId: string;
  type: RoutineType;
  platform: string;
  accountId: string | null;
  name: string;
  intensity: ColumnType<number, number | undefined, number>;
  duration: ColumnType<number, number | undefined, number>;
  actions: TextArray;
  settings: Json;
  sequence: ColumnType<number, number | undefined, number>;
  isActive: ColumnType<boolean, boolean | undefined, boolean>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** Runs for each account on the campaign group's phones, resolved when planned and when due (0042). */
  forGroup: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface CampaignSessionsTable {
  id: Generated<string>;
  workspaceId: string;
  campaignId: string;
  routineId: string | null;
  accountId: string | null;
  sessionId: string | null;
  status: ColumnType<TaskStatus, TaskStatus | undefined, TaskStatus>;
  scheduledAt: NullableTimestamp;
  startedAt: NullableTimestamp;
  completedAt: NullableTimestamp;
  planDay: ColumnType<string | null, string | null | undefined, string | null>;
  round: ColumnType<number | null, number | null | undefined, number | null>;
  engagementActions: ColumnType<number, number | undefined, number>;
  failureCode: NullableCode;
  note: NullableText;
  createdAt: Timestamp;
}

export interface PostsTable {
  id: Generated<string>;
  workspaceId: string;
  accountId: string;
  campaignId: string | null;
  caption: string;
  status: ColumnType<PostStatus, PostStatus | undefined, PostStatus>;
  mediaUrls: TextArray;
  hashtags: TextArray;
  scheduledAt: NullableTimestamp;
  publishedAt: NullableTimestamp;
  createdById: string | null;
  scheduleVersion: ColumnType<number, number | undefined, number>;
  failureCode: NullableCode;
  failureMessage: NullableText;
  waitingCode: NullableCode;
  waitingMessage: NullableText;
  /** Why the post's media could not be taken in as the workspace's files (0036); it needs new media. */
  mediaProblem: NullableText;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface CampaignAccountsTable {
  id: Generated<string>;
  workspaceId: string;
  campaignId: string;
  accountId: string;
  createdAt: Timestamp;
}

export interface StoredObjectsTable {
  key: string;
  workspaceId: string;
  contentType: string | null;
  size: number | null;
  createdById: string | null;
  createdAt: Timestamp;
  uploadedAt: NullableTimestamp;
}

export interface DeviceCredentialsTable {
  deviceId: string;
  workspaceId: string;
  tokenHash: string;
  createdAt: Timestamp;
  lastUsedAt: NullableTimestamp;
}

export interface ScreenshotsTable {
  id: Generated<string>;
  workspaceId: string;
  deviceId: string;
  sessionId: string | null;
  objectKey: string;
  capturedAt: Timestamp;
}

export interface WallLinksTable {
  id: Generated<string>;
  workspaceId: string;
  name: ColumnType<string, string | undefined, string>;
  tokenHash: string;
  createdById: string | null;
  createdAt: Timestamp;
  revokedAt: NullableTimestamp;
}

export interface AccountDailyActionsTable {
  accountId: string;
  day: string;
  workspaceId: string;
  likes: ColumnType<number, number | undefined, number>;
  follows: ColumnType<number, number | undefined, number>;
  comments: ColumnType<number, number | undefined, number>;
  posts: ColumnType<number, number | undefined, number>;
}

export interface HostsTable {
  id: Generated<string>;
  workspaceId: string;
  name: string;
  tokenHash: NullableText;
  enrolledAt: NullableTimestamp;
  lastSeenAt: NullableTimestamp;
  revokedAt: NullableTimestamp;
  createdById: string | null;
  createdAt: Timestamp;
  /** The host's last USB report (migration 0039): controllers, phones' places, capacity warnings, uhubctl's state. */
  usb: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  usbAt: NullableTimestamp;
  /** Its fleet settings (uhubctl, ladder limits, capacity thresholds, scheduled restart); null: the defaults. */
  fleetSettings: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
}

/** A phone's health as its host last reported it (migration 0039). */
export interface DeviceHealthTable {
  deviceId: string;
  workspaceId: string;
  batteryLevel: number | null;
  temperatureC: number | null;
  batteryHealth: NullableText;
  freeBytes: ColumnType<string | null, number | null | undefined, number | null>;
  totalBytes: ColumnType<string | null, number | null | undefined, number | null>;
  uptimeSeconds: number | null;
  androidVersion: NullableText;
  appVersions: ColumnType<Record<string, string>, string | undefined, string>;
  unresponsiveReason: NullableText;
  vitalsAt: NullableTimestamp;
  healthAt: NullableTimestamp;
  usbController: NullableText;
  usbHub: NullableText;
  usbPort: number | null;
  /** Its host lost its transport and waits for it since then: the console shows it "Reconnecting" (0056). */
  reconnectingSince: NullableTimestamp;
}

/** Appended net changes of a workspace's task count per status (migration 0024); summed on read, folded by tasks.tally. */
export interface TaskTalliesTable {
  workspaceId: string;
  status: TaskStatus;
  n: number;
  /** Appended by a change and not yet folded (migration 0030). */
  fresh: Generated<boolean>;
}

/** Appended net changes of a workspace's phone count per status (migration 0029); summed on read, folded by tasks.tally. */
export interface DeviceTalliesTable {
  workspaceId: string;
  status: DeviceStatus;
  n: number;
  /** Appended by a change and not yet folded (migration 0030). */
  fresh: Generated<boolean>;
}

/** Appended net changes of the tasks created per quarter-hour and status (migration 0027); folded by tasks.tally. */
export interface TaskCreatedCountsTable {
  workspaceId: string;
  at: Timestamp;
  status: TaskStatus;
  n: number;
  /** Appended by a change and not yet folded (migration 0030). */
  fresh: Generated<boolean>;
}

/** The same for tasks completed or failed, by their quarter-hour of completion and their type (migration 0027). */
export interface TaskFinishedCountsTable {
  workspaceId: string;
  at: Timestamp;
  status: TaskStatus;
  type: TaskType;
  n: number;
  /** Appended by a change and not yet folded (migration 0030). */
  fresh: Generated<boolean>;
}

/** Tasks created per UTC day and status (migration 0028), beside the quarter-hours; folded by tasks.tally. */
export interface TaskCreatedDaysTable {
  workspaceId: string;
  day: Timestamp;
  status: TaskStatus;
  n: number;
  /** Appended by a change and not yet folded (migration 0030). */
  fresh: Generated<boolean>;
}

/** Tasks completed or failed per UTC day of completion, status and type (migration 0028). */
export interface TaskFinishedDaysTable {
  workspaceId: string;
  day: Timestamp;
  status: TaskStatus;
  type: TaskType;
  n: number;
  /** Appended by a change and not yet folded (migration 0030). */
  fresh: Generated<boolean>;
}

/** The same for all tasks per phone, VA and whether completed, of all time (migrations 0027, 0063). */
export interface TaskWorkerCountsTable {
  workspaceId: string;
  deviceId: string | null;
  assignedToId: string | null;
  /** Completed tasks, or all the others (migration 0063): the one distinction its reader makes. */
  completed: boolean;
  n: number;
  /** Appended by a change and not yet folded (migration 0030). */
  fresh: Generated<boolean>;
}

/** A person watching or controlling a phone from the console, from when to when. */

export interface DeviceUsageTable {
  id: Generated<string>;
  workspaceId: string;
  deviceId: string;
  userId: string | null;
  userName: string;
  mode: (typeof usageModeValues)[number];
  startedAt: Timestamp;
  endedAt: NullableTimestamp;
  seenAt: Timestamp;
  endReason: NullableText;
}

/** A workspace's own step recipe (its body validated by agent-protocol's recipe schema). */
export interface WorkspaceRecipesTable {
  id: Generated<string>;
  workspaceId: string;
  recipeId: string;
  version: number;
  name: string;
  platform: Platform;
  routines: ColumnType<RoutineType[], RoutineType[], RoutineType[]>;
  body: Json;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  createdById: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** Set when the stored body fails the current schema (0034): the field and the reason; the recipe is off. */
  invalidField: NullableText;
  invalidReason: NullableText;
  /** The revision of the recipe rules the body was last checked against at start (0050); null: never. */
  rulesChecked: ColumnType<number | null, number | null | undefined, number | null>;
  /** The shipped template it came from (0045), kept along its versions. */
  basedOn: NullableText;
  /** The version of the same recipe id it was saved from in the editor, or restored from (0045). */
  basedOnVersion: ColumnType<number | null, number | null | undefined, number | null>;
  /** What changed, in a person's words (0045; at most 200 characters). */
  note: NullableText;
  /** The document as written (JSON text, keys in the writer's order); null for rows saved before 0045. */
  source: NullableText;
  /** Recorded steps' screenshots (0048): `[{ fingerprint, image }]`, read as text; written as JSON text. */
  stepShots: ColumnType<unknown, string | undefined, string>;
  /** Their bytes, counted in the workspace's storage quota (0048). */
  stepShotsBytes: ColumnType<number, number | undefined, number>;
}

/**
 * App versions a workspace verified one recipe row (one version of a workspace recipe) on, by an operator's passing
 * dry run (0034, keyed by row since 0052). `locale` is '' for any.
 */
export interface RecipeVerificationsTable {
  id: Generated<string>;
  workspaceId: string;
  recipeRowId: string;
  recipeId: string;
  recipeVersion: number;
  package: string;
  appVersion: string;
  locale: ColumnType<string, string | undefined, string>;
  /** `dry_run`: an operator's own run; `confirmed`: an operator confirmed someone else's passing run. */
  source: 'dry_run' | 'confirmed';
  dryRunId: string | null;
  verifiedBy: string | null;
  createdAt: Timestamp;
}

/** Runs that ended `app_changed`, counted by the breaker (0034). */
export interface RecipeFailuresTable {
  id: Generated<string>;
  workspaceId: string;
  recipeId: string;
  package: string;
  appVersion: string;
  deviceId: string;
  taskId: string | null;
  at: Timestamp;
}

/** A recipe paused for one app version (0034). */
export interface RecipeBreakersTable {
  id: Generated<string>;
  workspaceId: string;
  recipeId: string;
  recipeName: string;
  platform: string;
  routines: ColumnType<string[], string[], string[]>;
  package: string;
  appVersion: string;
  paused: ColumnType<boolean, boolean | undefined, boolean>;
  phones: ColumnType<number, number | undefined, number>;
  trippedAt: Timestamp;
  countedFrom: Timestamp;
  resumedAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  resumedBy: string | null;
}

export interface EnrollmentCodesTable {
  id: Generated<string>;
  workspaceId: string;
  deviceId: NullableText;
  hostId: NullableText;
  codeHash: string;
  expiresAt: Timestamp;
  usedAt: NullableTimestamp;
  voidedAt: NullableTimestamp;
  createdById: string | null;
  createdAt: Timestamp;
}

export type AttemptOutcome = (typeof attemptOutcomeValues)[number];

export interface TaskAttemptsTable {
  taskId: string;
  attempt: number;
  workspaceId: string;
  deviceId: string | null;
  dispatchedAt: Timestamp;
  ackedAt: NullableTimestamp;
  endedAt: NullableTimestamp;
  outcome: ColumnType<AttemptOutcome | null, AttemptOutcome | null | undefined, AttemptOutcome | null>;
  failureCode: NullableCode;
  failureMessage: NullableText;
  /** The recipe run the phone said this attempt was (0043); null from agents that say nothing. */
  recipeId: ColumnType<string | null, string | null | undefined, string | null>;
  recipeVersion: ColumnType<number | null, number | null | undefined, number | null>;
  /** '' when the run ended before the pre-flight read the app. */
  appPackage: ColumnType<string | null, string | null | undefined, string | null>;
  appVersion: ColumnType<string | null, string | null | undefined, string | null>;
  runMs: ColumnType<number | null, number | null | undefined, number | null>;
  /** The UI language the app showed at the pre-flight (0057); null from agents that do not say. */
  appLocale: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A recipe's runs on one app version in one workspace day (0043). */
export interface RecipeRunsDailyTable {
  workspaceId: string;
  day: ColumnType<string, string, string>;
  recipeId: string;
  package: string;
  appVersion: string;
  runs: ColumnType<number, number | undefined, number>;
  succeeded: ColumnType<number, number | undefined, number>;
  failed: ColumnType<number, number | undefined, number>;
  /** `{code: n}`. */
  failureCodes: ColumnType<unknown, string | undefined, string>;
  timedRuns: ColumnType<number, number | undefined, number>;
  durationMsSum: ColumnType<string, number | string | undefined, number | string>;
  durationBuckets: ColumnType<number[], number[] | undefined, number[]>;
}

/** The phones a recipe ran on, per app version and workspace day (0043). */
export interface RecipeRunDevicesTable {
  workspaceId: string;
  day: ColumnType<string, string, string>;
  recipeId: string;
  package: string;
  appVersion: string;
  deviceId: string;
}

export interface RecoveryCodesTable {
  id: Generated<string>;
  userId: string;
  codeHash: string;
  usedAt: NullableTimestamp;
  createdAt: Timestamp;
}

/** A login whose password was right and whose second step (a code, or setting two-factor up) is pending. */
export interface LoginChallengesTable {
  id: Generated<string>;
  tokenHash: string;
  userId: string;
  attempts: ColumnType<number, number | undefined, number>;
  expiresAt: Timestamp;
  createdAt: Timestamp;
}

/** A one-time link an operator made for a member to set a new password. */
export interface PasswordResetsTable {
  id: Generated<string>;
  tokenHash: string;
  userId: string;
  workspaceId: string;
  createdById: string | null;
  expiresAt: Timestamp;
  usedAt: NullableTimestamp;
  createdAt: Timestamp;
}

/** An operator's password reset asked for by one operator, waiting for a second one's approval (0037). */
export interface PasswordResetRequestsTable {
  id: Generated<string>;
  workspaceId: string;
  userId: string;
  requestedById: string;
  approvedById: string | null;
  createdAt: Timestamp;
  expiresAt: Timestamp;
  approvedAt: NullableTimestamp;
}

/** A notice for a person, shown once at their next sign-in (0033). */
export interface UserNoticesTable {
  id: Generated<string>;
  userId: string;
  kind: string;
  message: string;
  createdAt: Timestamp;
  seenAt: NullableTimestamp;
}

/** What reads a phone's UI and the versions of the apps recipes drive, as its agent last said (0035). */
export interface DeviceSoftwareTable {
  deviceId: string;
  workspaceId: string;
  uiReader: ColumnType<UiReaderKind | null, UiReaderKind | null | undefined, UiReaderKind | null>;
  uiReaderVersion: NullableText;
  /** `[{ package, version }]`: each package the agent looked for, its version or null when it is not installed. */
  apps: ColumnType<unknown, string | undefined, string>;
  agentVersion: NullableText;
  reportedAt: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** A named set of phones of a workspace, shown as a group or as a tag (0040). */
export interface DeviceGroupsTable {
  id: Generated<string>;
  workspaceId: string;
  name: string;
  kind: ColumnType<DeviceGroupKind, DeviceGroupKind | undefined, DeviceGroupKind>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** A phone in a group (0040). */
export interface DeviceGroupMembersTable {
  groupId: string;
  deviceId: string;
  workspaceId: string;
  addedAt: Timestamp;
}

/**
 * A bigint column holding whole numbers below 2^53 (a long version code, 0049): node-postgres answers it as text,
 * PGlite as a number; read through Number() where it is selected.
 */
export type SafeBigint = ColumnType<number | string, number, number>;

/** A version of an app uploaded to the workspace's library, as read from its files (0041). */
export interface AppVersionsTable {
  id: Generated<string>;
  workspaceId: string;
  package: string;
  /** The long version code: (versionCodeMajor << 32) | versionCode (bigint since 0049). */
  versionCode: SafeBigint;
  versionName: string | null;
  minSdk: number | null;
  abis: ColumnType<string[], string[] | undefined, string[]>;
  kind: AppVersionKind;
  fileName: string;
  size: number;
  uploadedById: string | null;
  createdAt: Timestamp;
}

/** One APK of an app version: the base (position 0) or a split (0041). */
export interface AppVersionFilesTable {
  versionId: string;
  position: number;
  name: string;
  objectKey: string;
  size: number;
}

/** The version of an app a group of phones is held at (0041). */
export interface AppPinsTable {
  groupId: string;
  workspaceId: string;
  package: string;
  versionCode: SafeBigint;
  versionName: string | null;
  pinnedById: string | null;
  createdAt: Timestamp;
}

/** A staged install, update or removal of an app on phones (0041). */
export interface AppRolloutsTable {
  id: Generated<string>;
  workspaceId: string;
  action: AppRolloutAction;
  package: string;
  versionId: string | null;
  versionCode: ColumnType<number | string | null, number | null, number | null>;
  versionName: string | null;
  firstStageSize: number;
  allowDowngrade: ColumnType<boolean, boolean | undefined, boolean>;
  status: AppRolloutStatus;
  createdById: string | null;
  createdAt: Timestamp;
  finishedAt: NullableTimestamp;
}

/** One phone of a rollout and its result (0041). */
export interface AppRolloutPhonesTable {
  rolloutId: string;
  deviceId: string;
  workspaceId: string;
  stage: number;
  position: number;
  status: AppRolloutPhoneStatus;
  code: string | null;
  reason: string | null;
  updatedAt: Timestamp;
}

/** A saved Inspect capture: a screen's UI tree (here) and its frame (a stored object), named by a person (0044). */
export interface UiCapturesTable {
  id: Generated<string>;
  workspaceId: string;
  deviceId: string | null;
  createdById: string | null;
  screenName: string;
  package: ColumnType<string, string | undefined, string>;
  appVersion: ColumnType<string, string | undefined, string>;
  locale: ColumnType<string, string | undefined, string>;
  tree: ColumnType<unknown, string, string>;
  treeBytes: number;
  frameKey: string;
  width: number;
  height: number;
  createdAt: Timestamp;
}

/** A failed run's evidence: the step it failed on, its missed selector, frame (a stored object) and tree (0047). */
export interface TaskFailureTracesTable {
  taskId: string;
  attempt: number;
  workspaceId: string;
  deviceId: string | null;
  recipeId: NullableText;
  recipeVersion: ColumnType<number | null, number | null | undefined, number | null>;
  package: NullableText;
  appVersion: NullableText;
  seq: number;
  stepPath: string;
  label: string;
  do: string;
  detail: NullableText;
  selector: ColumnType<unknown, string | null | undefined, string | null>;
  matched: ColumnType<unknown, string | null | undefined, string | null>;
  point: ColumnType<unknown, string | null | undefined, string | null>;
  ms: ColumnType<number, number | undefined, number>;
  frameKey: NullableText;
  frameSize: ColumnType<number | null, number | null | undefined, number | null>;
  frameWidth: ColumnType<number | null, number | null | undefined, number | null>;
  frameHeight: ColumnType<number | null, number | null | undefined, number | null>;
  tree: NullableText;
  treeBytes: ColumnType<number, number | undefined, number>;
  dropped: NullableText;
  createdAt: Timestamp;
}

/** A dry run of a workspace recipe on one phone (0046): at most one under way (`starting`, `running`) per phone. */
export interface RecipeDryRunsTable {
  id: Generated<string>;
  workspaceId: string;
  recipeRowId: string;
  recipeId: string;
  recipeVersion: number;
  recipeName: ColumnType<string, string | undefined, string>;
  deviceId: string | null;
  startedById: string | null;
  accountId: string | null;
  mode: DryRunMode;
  effects: boolean;
  status: ColumnType<DryRunStatus, DryRunStatus | undefined, DryRunStatus>;
  failureCode: NullableText;
  failureMessage: NullableText;
  appPackage: NullableText;
  appVersion: NullableText;
  locale: NullableText;
  actions: Json;
  steps: ColumnType<number, number | undefined, number>;
  startedAt: Timestamp;
  heardAt: Timestamp;
  finishedAt: NullableTimestamp;
  verified: ColumnType<boolean, boolean | undefined, boolean>;
  /** The stored uploads picked for the run (0051), served to its phone while it is under way. */
  mediaKeys: TextArray;
}

/** One step of a dry run's trace (0046): its frame a stored object, its tree kept here (counted in the quota). */
export interface RecipeTraceStepsTable {
  dryRunId: string;
  workspaceId: string;
  seq: number;
  path: string;
  do: string;
  label: ColumnType<string, string | undefined, string>;
  verdict: TraceVerdict;
  detail: NullableText;
  selector: ColumnType<unknown, string | null | undefined, string | null>;
  matched: ColumnType<unknown, string | null | undefined, string | null>;
  point: ColumnType<unknown, string | null | undefined, string | null>;
  action: NullableText;
  ms: ColumnType<number, number | undefined, number>;
  frameKey: NullableText;
  frameMime: NullableText;
  frameSize: ColumnType<number, number | undefined, number>;
  frameWidth: ColumnType<number | null, number | null | undefined, number | null>;
  frameHeight: ColumnType<number | null, number | null | undefined, number | null>;
  tree: ColumnType<unknown, string | null | undefined, string | null>;
  treeBytes: ColumnType<number, number | undefined, number>;
  createdAt: Timestamp;
}

/** Bytes of a workspace's storage quota held for an upload being received and read (0049). */
export interface StorageReservationsTable {
  id: Generated<string>;
  workspaceId: string;
  bytes: SafeBigint;
  expiresAt: ColumnType<Date, Date, Date>;
}

export interface DB extends ManagerConsoleTables {
  workspaces: WorkspacesTable;
  users: UsersTable;
  workspaceMembers: WorkspaceMembersTable;
  authSessions: AuthSessionsTable;
  secondFactorFailures: SecondFactorFailuresTable;
  invitations: InvitationsTable;
  auditLog: AuditLogTable;
  devices: DevicesTable;
  tasks: TasksTable;
  sessions: SessionsTable;
  activities: ActivitiesTable;
  campaigns: CampaignsTable;
  accounts: AccountsTable;
  routines: RoutinesTable;
  campaignSessions: CampaignSessionsTable;
  posts: PostsTable;
  campaignAccounts: CampaignAccountsTable;
  storedObjects: StoredObjectsTable;
  storageReservations: StorageReservationsTable;
  deviceCredentials: DeviceCredentialsTable;
  screenshots: ScreenshotsTable;
  wallLinks: WallLinksTable;
  accountDailyActions: AccountDailyActionsTable;
  taskAttempts: TaskAttemptsTable;
  hosts: HostsTable;
  workspaceRecipes: WorkspaceRecipesTable;
  deviceUsage: DeviceUsageTable;
  taskTallies: TaskTalliesTable;
  taskCreatedCounts: TaskCreatedCountsTable;
  taskCreatedDays: TaskCreatedDaysTable;
  deviceTallies: DeviceTalliesTable;
  taskFinishedDays: TaskFinishedDaysTable;
  taskFinishedCounts: TaskFinishedCountsTable;
  taskWorkerCounts: TaskWorkerCountsTable;
  enrollmentCodes: EnrollmentCodesTable;
  recoveryCodes: RecoveryCodesTable;
  loginChallenges: LoginChallengesTable;
  passwordResets: PasswordResetsTable;
  userNotices: UserNoticesTable;
  passwordResetRequests: PasswordResetRequestsTable;
  deviceSoftware: DeviceSoftwareTable;
  recipeVerifications: RecipeVerificationsTable;
  recipeFailures: RecipeFailuresTable;
  recipeRunsDaily: RecipeRunsDailyTable;
  recipeRunDevices: RecipeRunDevicesTable;
  recipeBreakers: RecipeBreakersTable;
  deviceGroups: DeviceGroupsTable;
  uiCaptures: UiCapturesTable;
  taskFailureTraces: TaskFailureTracesTable;
  deviceGroupMembers: DeviceGroupMembersTable;
  appVersions: AppVersionsTable;
  appVersionFiles: AppVersionFilesTable;
  appPins: AppPinsTable;
  appRollouts: AppRolloutsTable;
  appRolloutPhones: AppRolloutPhonesTable;
  deviceHealth: DeviceHealthTable;
  recipeDryRuns: RecipeDryRunsTable;
  recipeTraceSteps: RecipeTraceStepsTable;
}

/** A device as the code reads it: every column but the stored answer, which only the devices list reads. */
export type DeviceRow = Omit<Selectable<DevicesTable>, 'answerJson'>;

/**
 * The columns of a `DeviceRow`, for `select` and `returning` on devices in place of `*`: the stored answer stays in
 * the database (it would otherwise ride along into every event about a phone).
 */
export const deviceColumns = [
  'id',
  'workspaceId',
  'name',
  'status',
  'battery',
  'lastActive',
  'assignedToId',
  'sessionTime',
  'lastSeenAt',
  'agentProtocol',
  'agentVersion',
  'hostId',
  'serial',
  'model',
  'androidVersion',
  'screenOn',
  'foregroundApp',
  'controlledById',
  'controlledByName',
  'controlledSince',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof DeviceRow)[];

// Every column of a DeviceRow is listed above: a column added to DevicesTable and not there fails to compile here.
const everyDeviceColumn: Record<Exclude<keyof DeviceRow, (typeof deviceColumns)[number]>, never> = {};
void everyDeviceColumn;
export type TaskRow = Selectable<TasksTable>;
export type SessionRow = Selectable<SessionsTable>;
export type ActivityRow = Selectable<ActivitiesTable>;
export type CampaignRow = Selectable<CampaignsTable>;
export type AccountRow = Selectable<AccountsTable>;
export type RoutineRow = Selectable<RoutinesTable>;
export type CampaignSessionRow = Selectable<CampaignSessionsTable>;
export type PostRow = Selectable<PostsTable>;
export type UserRow = Selectable<UsersTable>;
export type TaskAttemptRow = Selectable<TaskAttemptsTable>;
export type HostRow = Selectable<HostsTable>;
export type AccountDailyActionsRow = Selectable<AccountDailyActionsTable>;
export type NewTask = Insertable<TasksTable>;
export type TaskUpdate = Updateable<TasksTable>;

export interface AccountStatsHistoryTable {
  id: Generated<string>;
  workspaceId: string;
  accountId: string;
  followers: number;
  following: number;
  recordedAt: Timestamp;
}

export interface DeviceStatusHistoryTable {
  id: Generated<string>;
  workspaceId: string;
  deviceId: string;
  status: string;
  changedAt: Timestamp;
}

export interface WebhooksTable {
  id: Generated<string>;
  workspaceId: string;
  url: string;
  secret: string;
  events: TextArray;
  offlineMinutes: ColumnType<number, number | undefined, number>;
  isActive: ColumnType<boolean, boolean | undefined, boolean>;
  createdById: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type WebhookDeliveryStatus = (typeof webhookDeliveryStatusValues)[number];

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  workspaceId: string;
  webhookId: string;
  event: string;
  dedupeKey: string;
  payload: Json;
  status: ColumnType<WebhookDeliveryStatus, WebhookDeliveryStatus | undefined, WebhookDeliveryStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  nextAttemptAt: Timestamp;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: NullableTimestamp;
  createdAt: Timestamp;
}

/** The tables of 0020: declared apart so the DB map above stays as it was, merged into it below. */
export interface ManagerConsoleTables {
  accountStatsHistory: AccountStatsHistoryTable;
  deviceStatusHistory: DeviceStatusHistoryTable;
  webhooks: WebhooksTable;
  webhookDeliveries: WebhookDeliveriesTable;
}
export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
