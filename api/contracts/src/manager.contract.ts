/**
 * The manager's console: analytics over time, the content calendar, bulk actions, CSV export and import,
 * the audit log and alert webhooks.
 */
import { z } from 'zod';
import { id, idFilter, isoTime, pageQuery, range, timeInput, timeZone } from './common.ts';
import { activityType, deviceListQuery, taskListQuery, taskPriority } from './fleet.contract.ts';
import { accountListQuery, platformValues, postListQuery, postStatus } from './content.contract.ts';

// ---- Analytics --------------------------------------------------------------------------------------------

const day = z.iso.date({ message: 'must be a date (YYYY-MM-DD)' });

/**
 * The window every figure is counted over: a preset range (the default 7d), or a custom `from`–`to` of whole
 * days (both included), in the workspace's time zone unless `tz` names another.
 */
export const analyticsWindowQuery = z
  .object({
    range: range.optional(),
    from: day.optional(),
    to: day.optional(),
    tz: timeZone.optional(),
  })
  .refine((query) => (query.from === undefined) === (query.to === undefined), {
    message: 'From date and To date go together: give both or neither',
    path: ['to'],
  })
  .refine((query) => !query.from || !query.to || query.from <= query.to, { message: 'To date must not be before From date', path: ['to'] })
  .refine((query) => !query.from || !query.to || Date.parse(query.to) - Date.parse(query.from) <= 366 * 86_400_000, {
    message: 'To date must be at most 366 days after From date',
    path: ['to'],
  })
  .refine((query) => !(query.range && query.from), { message: 'Give either a Time range or From and To dates, not both', path: ['range'] });
export type AnalyticsWindowQuery = z.input<typeof analyticsWindowQuery>;

/** Figures of one group's (or tag's) phones only: the stat cards and the phones table. */
export const analyticsGroupFilter = z.object({ groupId: idFilter.optional() });
export const statsWindowQuery = z.intersection(analyticsWindowQuery, analyticsGroupFilter);

export const timeseriesMetricValues = ['tasks', 'posts', 'sessions', 'engagement', 'devices'] as const;
export const timeseriesMetric = z.enum(timeseriesMetricValues);
export type TimeseriesMetric = z.infer<typeof timeseriesMetric>;
export const timeseriesQuery = z.intersection(statsWindowQuery, z.object({ metric: timeseriesMetric }));

/**
 * One point per hour (24h) or per day, zeros where nothing happened. Values by metric: tasks `completed`,
 * `failed`; posts one count per platform; sessions `hours`; engagement `actions`; devices `hours` online.
 */
export const timeseriesPoint = z.object({ at: isoTime }).catchall(z.number());
/** How a chart's points are spaced: an hour apart over a day, a day apart over longer ranges. */
export const timeBucketValues = ['hour', 'day'] as const;
export const timeBucket = z.enum(timeBucketValues);
export type TimeBucket = z.infer<typeof timeBucket>;
export type TimeseriesPoint = z.infer<typeof timeseriesPoint>;
export const timeseries = z.object({
  metric: timeseriesMetric,
  bucket: timeBucket,
  timeZone: z.string(),
  from: isoTime,
  to: isoTime,
  points: z.array(timeseriesPoint),
});
export type Timeseries = z.infer<typeof timeseries>;

const figures = z.object({
  activeSessions: z.number().int(),
  totalDevices: z.number().int(),
  onlineDevices: z.number().int(),
  completedTasks: z.number().int(),
  totalTasks: z.number().int(),
  totalSessionTime: z.number().int(),
  successRate: z.number(),
  avgSessionTime: z.number().int(),
});
/** The stat cards; with no range and no from–to, all time (and no previous period). */
export const windowedStats = figures.extend({
  range: range.nullable(),
  from: isoTime.nullable(),
  to: isoTime.nullable(),
  timeZone: z.string(),
  /** The same figures over the period of the same length just before. */
  previous: figures.nullable(),
});
export type WindowedStats = z.infer<typeof windowedStats>;

export const leaderboardTableValues = ['devices', 'vas', 'campaigns', 'accounts'] as const;
export const leaderboardTable = z.enum(leaderboardTableValues);
export type LeaderboardTable = z.infer<typeof leaderboardTable>;
/** Sortable columns of each table; the first is the default. */
export const leaderboardColumns = {
  devices: ['totalTasks', 'completedTasks', 'failedTasks', 'successRate', 'hours', 'name'],
  vas: ['totalTasks', 'completedTasks', 'failedTasks', 'successRate', 'hours', 'handsOnHours', 'name'],
  campaigns: ['runs', 'completedRuns', 'failedRuns', 'successRate', 'postsPublished', 'name'],
  accounts: ['postsPublished', 'postsFailed', 'followers', 'followersGained', 'following', 'name'],
} as const satisfies Record<LeaderboardTable, readonly string[]>;
export const leaderboardQuery = z.intersection(
  statsWindowQuery,
  z.object({
    sort: z.string().max(40).optional(),
    order: z.enum(['asc', 'desc']).optional(),
    limit: z.coerce.number().int().min(1).max(1000).optional(),
    offset: z.coerce.number().int().min(0).max(1_000_000).optional(),
  }),
);
export const leaderboardRow = z.object({ id, name: z.string() }).catchall(z.union([z.number(), z.string(), z.null()]));
export type LeaderboardRow = z.infer<typeof leaderboardRow>;
export const leaderboard = z.object({ table: leaderboardTable, total: z.number().int(), rows: z.array(leaderboardRow) });
export type Leaderboard = z.infer<typeof leaderboard>;

export const accountGrowth = z.object({
  bucket: timeBucket,
  points: z.array(z.object({ at: isoTime, followers: z.number().int(), following: z.number().int() })),
});
export type AccountGrowth = z.infer<typeof accountGrowth>;

// ---- Calendar window and post editing ----------------------------------------------------------------------

/** The calendar's window: posts whose scheduledAt or publishedAt falls in [from, to). */
export const postWindowQuery = postListQuery.extend({
  from: timeInput.optional(),
  to: timeInput.optional(),
  platform: z.enum(platformValues).optional(),
  search: z.string().max(200).optional(),
});
export type PostWindowQuery = z.input<typeof postWindowQuery>;

// ---- Bulk actions -------------------------------------------------------------------------------------------

export const BULK_LIMIT = 5000;
const bulkIds = z
  .array(z.string().max(64, { message: 'must be an id' }))
  .min(1, { message: 'Choose at least one item' })
  .max(BULK_LIMIT, { message: `At most ${BULK_LIMIT} items can be changed at once` });

function bulkBody<F extends z.ZodType, A extends z.ZodType>(filter: F, actions: A) {
  return z.intersection(
    z
      .object({ ids: bulkIds.optional(), filter: filter.optional() })
      .refine((body) => (body.ids === undefined) !== (body.filter === undefined), { message: 'Give exactly one of ids or filter', path: ['ids'] }),
    actions,
  );
}

export const taskBulkBody = bulkBody(
  taskListQuery.omit({ limit: true, cursor: true }),
  z.discriminatedUnion('action', [
    z.object({
      action: z.literal('update'),
      changes: z
        .object({ assignedToId: id.nullable().optional(), deviceId: id.nullable().optional(), priority: taskPriority.optional() })
        .strict()
        .refine((changes) => Object.keys(changes).length > 0, { message: 'Name at least one change' }),
    }),
    z.object({ action: z.literal('delete') }),
    z.object({ action: z.literal('cancel') }),
  ]),
);
export type TaskBulkBody = z.input<typeof taskBulkBody>;

export const deviceCommandValues = ['screenshot', 'restart_session'] as const;
export const deviceBulkBody = bulkBody(
  deviceListQuery.omit({ limit: true, cursor: true }),
  z.discriminatedUnion('action', [
    z.object({
      action: z.literal('update'),
      changes: z
        .object({ assignedToId: id.nullable().optional() })
        .strict()
        .refine((changes) => Object.keys(changes).length > 0, { message: 'Name at least one change' }),
    }),
    z.object({ action: z.literal('delete') }),
    z.object({ action: z.literal('command'), command: z.enum(deviceCommandValues) }),
  ]),
);
export type DeviceBulkBody = z.input<typeof deviceBulkBody>;

export const postBulkBody = bulkBody(
  postWindowQuery.omit({ limit: true, cursor: true }),
  z.discriminatedUnion('action', [
    z.object({
      action: z.literal('update'),
      changes: z
        .object({ status: postStatus.optional(), campaignId: id.nullable().optional() })
        .strict()
        .refine((changes) => Object.keys(changes).length > 0, { message: 'Name at least one change' }),
    }),
    z.object({ action: z.literal('delete') }),
    z.object({
      action: z.literal('reschedule'),
      offsetMinutes: z
        .number({ error: 'Offset must be a whole number of minutes' })
        .int({ message: 'Offset must be a whole number of minutes' })
        .min(-525_600)
        .max(525_600)
        .refine((value) => value !== 0, { message: 'Offset must not be 0 minutes' }),
    }),
  ]),
);
export type PostBulkBody = z.input<typeof postBulkBody>;

export const bulkResult = z.object({
  results: z.array(z.object({ id, ok: z.boolean(), error: z.string().optional() })),
});
export type BulkResult = z.infer<typeof bulkResult>;
/** 409: the items refused (nothing was written), or a refusal of the whole action. */
export const bulkRefused = z.object({ error: z.string(), results: bulkResult.shape.results.optional() });

// ---- CSV export and import -----------------------------------------------------------------------------------

export const exportEntityValues = ['tasks', 'posts', 'accounts', 'devices', 'sessions', 'activities'] as const;
export const exportEntity = z.enum(exportEntityValues);
export type ExportEntity = z.infer<typeof exportEntity>;
export const exportParams = z.object({ entity: z.string() });
export const exportQueries = {
  tasks: taskListQuery.omit({ limit: true, cursor: true }),
  posts: postWindowQuery.omit({ limit: true, cursor: true }),
  accounts: accountListQuery.omit({ limit: true, cursor: true }),
  devices: deviceListQuery.omit({ limit: true, cursor: true }),
  sessions: z.object({
    active: z.enum(['true', 'false']).optional(),
    deviceId: idFilter.optional(),
    vaId: idFilter.optional(),
    from: timeInput.optional(),
    to: timeInput.optional(),
  }),
  activities: z.object({
    type: activityType.optional(),
    deviceId: idFilter.optional(),
    from: timeInput.optional(),
    to: timeInput.optional(),
  }),
} as const;

export const importEntityValues = ['posts', 'accounts'] as const;
export const importEntity = z.enum(importEntityValues);
export type ImportEntity = z.infer<typeof importEntity>;
export const importQuery = z.object({ dryRun: z.enum(['1', 'true', '0', 'false']).optional() });
export const IMPORT_ROW_LIMIT = 5000;
export const importVerdict = z.object({
  /** The row's line in the file, the header being line 1. */
  line: z.number().int(),
  ok: z.boolean(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })),
  /** What the row becomes, shown in the preview. */
  values: z.record(z.string(), z.string()),
});
export type ImportVerdict = z.infer<typeof importVerdict>;
export const importResult = z.object({
  dryRun: z.boolean(),
  total: z.number().int(),
  valid: z.number().int(),
  invalid: z.number().int(),
  created: z.number().int(),
  rows: z.array(importVerdict),
});
export type ImportResult = z.infer<typeof importResult>;

/** The columns of each CSV, named as the console names them; export and import share them. */
export const csvColumns = {
  tasks: ['ID', 'Title', 'Description', 'Type', 'Priority', 'Status', 'Device', 'Assigned To', 'Deadline', 'Started At', 'Completed At', 'Created At'],
  posts: ['ID', 'Account', 'Platform', 'Campaign', 'Caption', 'Hashtags', 'Media URLs', 'Status', 'Scheduled At', 'Published At', 'Created At'],
  accounts: ['ID', 'Username', 'Platform', 'Status', 'Device', 'Bio', 'Followers', 'Following', 'Created At'],
  devices: ['ID', 'Name', 'Status', 'Battery', 'Last Active', 'Assigned VA', 'Session Time', 'Created At'],
  sessions: ['ID', 'Device', 'VA', 'Current Task', 'Duration', 'Screenshots', 'Active', 'Started At', 'Ended At'],
  activities: ['ID', 'Time', 'Person', 'Action', 'Device', 'Type'],
} as const satisfies Record<ExportEntity, readonly string[]>;
/** The columns an import reads (others, such as ID or Created At, are ignored); the template has these. */
export const importColumns = {
  posts: ['Account', 'Platform', 'Campaign', 'Caption', 'Hashtags', 'Media URLs', 'Status', 'Scheduled At'],
  accounts: ['Username', 'Platform', 'Status', 'Device', 'Bio', 'Followers', 'Following'],
} as const satisfies Record<ImportEntity, readonly string[]>;

// ---- Audit log ----------------------------------------------------------------------------------------------

export const auditEntry = z.object({
  id: z.string(),
  actorId: id.nullable(),
  actorName: z.string().nullable(),
  action: z.string(),
  entityType: z.string(),
  entityId: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
  createdAt: isoTime,
});
export type AuditEntry = z.infer<typeof auditEntry>;
export const auditLogQuery = pageQuery.extend({
  actorId: idFilter.optional(),
  action: z.string().max(100).optional(),
  entityType: z.string().max(100).optional(),
  entityId: z.string().max(100).optional(),
  from: timeInput.optional(),
  to: timeInput.optional(),
});

// ---- Alerts (webhooks) --------------------------------------------------------------------------------------

/** The same tuple as workers' alerts; a test keeps the two equal. */
export const alertEventValues = [
  'device.offline',
  'post.failed',
  'account.paused',
  'task.overdue',
  'host.disconnected',
  'user.security',
  'recipe.paused',
  'device.health',
] as const;
export const alertEvent = z.enum(alertEventValues);
export type AlertEvent = z.infer<typeof alertEvent>;
export const alertEventLabels: Record<AlertEvent, string> = {
  'device.offline': 'Phone offline',
  'post.failed': 'Post failed',
  'account.paused': 'Account paused for safety',
  'task.overdue': 'Task overdue',
  'host.disconnected': 'Host disconnected',
  'user.security': 'Sign-in security (codes refused, password resets)',
  'recipe.paused': 'Recipe paused for an app version',
  'device.health': 'Phone health (overheating, full storage, reboot loop)',
};

const webhookUrl = z
  .string({ error: 'URL is required' })
  .trim()
  .min(1, { message: 'URL is required' })
  .max(2000)
  .refine(
    (value) => {
      try {
        const parsed = new URL(value);
        return parsed.protocol === 'https:' || parsed.protocol === 'http:';
      } catch {
        return false;
      }
    },
    { message: 'URL must be an http or https address' },
  );

export const createWebhookBody = z.object({
  url: webhookUrl,
  events: z.array(alertEvent).min(1, { message: 'Choose at least one event' }),
  offlineMinutes: z
    .number()
    .int()
    .min(1, { message: 'Offline minutes must be between 1 and 10080' })
    .max(10080, { message: 'Offline minutes must be between 1 and 10080' })
    .optional(),
  isActive: z.boolean().optional(),
});
export type CreateWebhookBody = z.input<typeof createWebhookBody>;
export const updateWebhookBody = createWebhookBody.partial();
export const webhook = z.object({
  id,
  url: z.string(),
  events: z.array(alertEvent),
  offlineMinutes: z.number().int(),
  isActive: z.boolean(),
  /** The HMAC key, shown to operators so their endpoint can check signatures. */
  secret: z.string(),
  createdAt: isoTime,
  updatedAt: isoTime,
  /** Said when the webhook is saved with a URL whose name does not resolve yet. */
  warning: z.string().optional(),
});
export type Webhook = z.infer<typeof webhook>;
/** Where a webhook delivery stands: waiting (its next attempt due), delivered, or given up after its last attempt. */
export const webhookDeliveryStatusValues = ['pending', 'delivered', 'failed'] as const;
export const webhookDelivery = z.object({
  id,
  webhookId: id,
  event: z.string(),
  status: z.enum(webhookDeliveryStatusValues),
  attempts: z.number().int(),
  nextAttemptAt: isoTime,
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: isoTime.nullable(),
  createdAt: isoTime,
  text: z.string().nullable(),
});
export type WebhookDelivery = z.infer<typeof webhookDelivery>;
export const webhookDeliveryQuery = pageQuery.extend({ webhookId: idFilter.optional() });

// ---- Onboarding ---------------------------------------------------------------------------------------------

export const onboarding = z.object({
  phoneConnected: z.boolean(),
  vaInvited: z.boolean(),
  accountAdded: z.boolean(),
  campaignCreated: z.boolean(),
});
export type Onboarding = z.infer<typeof onboarding>;
