import { z } from 'zod';

/**
 * The automation's timings, set once per process from its configuration (the API's config module, or the
 * workers' environment) and read by the lifecycle, the schedulers and the watchdogs.
 */
export interface AutomationSettings {
  /** How long a phone has to ack a dispatched attempt. */
  ackTimeoutMs: number;
  /** An attempt with no progress for this long has its lease ended. */
  progressWindowMs: number;
  /** How often agents heartbeat (told to protocol 2 agents); silent for three of these means offline (devices/status.ts). */
  heartbeatMs: number;
  /** Attempts a task gets before a retryable failure becomes final. */
  maxAttempts: number;
  /** First retry delay; doubles per attempt, with jitter, up to backoffMaxMs. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** A scheduled post due this long ago and still not on a phone is reported with its reason. */
  stuckPostMs: number;
  /** How long an account stays in warm-up when no end date was set. */
  warmupDays: number;
  /**
   * Requests made on someone's behalf (alert webhooks, a post's media) may reach private and local addresses
   * (`ALERTS_ALLOW_PRIVATE=1`, for farms whose receivers live on their own LAN). Off: only the public internet.
   */
  outboundAllowPrivate: boolean;
  /** Screenshots one phone may send a minute (live streams are separate); beyond, protocol 2 phones are told to wait. */
  screenshotsPerMinute: number;
  /** Phones one farm host may register. */
  phonesPerHost: number;
  /** Devices one workspace may have. */
  devicesPerWorkspace: number;
  /** Bytes of stored files (uploads, screenshots, captures, fetched post media) one workspace may hold. */
  storageQuotaBytes: number;
}

export const defaultSettings: AutomationSettings = {
  ackTimeoutMs: 10_000,
  progressWindowMs: 120_000,
  heartbeatMs: 5_000,
  maxAttempts: 3,
  backoffBaseMs: 10_000,
  backoffMaxMs: 10 * 60_000,
  stuckPostMs: 5 * 60_000,
  warmupDays: 7,
  outboundAllowPrivate: false,
  screenshotsPerMinute: 12,
  phonesPerHost: 64,
  devicesPerWorkspace: 500,
  storageQuotaBytes: 5 * 1024 ** 3,
};

let current: AutomationSettings = { ...defaultSettings };

export function configureAutomation(settings: Partial<AutomationSettings>): void {
  current = { ...current, ...settings };
}

export function automation(): Readonly<AutomationSettings> {
  return current;
}

/** The delay before retry number `attempt` (1 = the first retry): exponential with full jitter between half and all of it. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(current.backoffMaxMs, current.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

const whole = (min: number, max: number) => z.coerce.number().int().min(min).max(max).optional();

/** The environment variables that tune the automation: one schema, read by the API's and the workers' configuration. */
export const automationEnv = z.object({
  HEARTBEAT_MS: whole(200, 600_000),
  TASK_ACK_TIMEOUT_MS: whole(100, 600_000),
  TASK_PROGRESS_WINDOW_MS: whole(500, 3_600_000),
  TASK_MAX_ATTEMPTS: whole(1, 20),
  TASK_BACKOFF_MS: whole(0, 3_600_000),
  SCREENSHOTS_PER_MINUTE: whole(1, 600),
  HOST_PHONES_MAX: whole(1, 1000),
  WORKSPACE_DEVICES_MAX: whole(1, 100_000),
  /** In bytes; 5 GiB when unset. */
  WORKSPACE_STORAGE_QUOTA_BYTES: whole(1024 * 1024, Number.MAX_SAFE_INTEGER),
  ALERTS_ALLOW_PRIVATE: z.enum(['0', '1', 'true', 'false', 'yes', 'no']).optional(),
});
export type AutomationEnv = z.infer<typeof automationEnv>;

export function settingsFromEnv(env: AutomationEnv): Partial<AutomationSettings> {
  return {
    ...(env.HEARTBEAT_MS !== undefined ? { heartbeatMs: env.HEARTBEAT_MS } : {}),
    ...(env.TASK_ACK_TIMEOUT_MS !== undefined ? { ackTimeoutMs: env.TASK_ACK_TIMEOUT_MS } : {}),
    ...(env.TASK_PROGRESS_WINDOW_MS !== undefined ? { progressWindowMs: env.TASK_PROGRESS_WINDOW_MS } : {}),
    ...(env.TASK_MAX_ATTEMPTS !== undefined ? { maxAttempts: env.TASK_MAX_ATTEMPTS } : {}),
    ...(env.TASK_BACKOFF_MS !== undefined ? { backoffBaseMs: env.TASK_BACKOFF_MS } : {}),
    ...(env.HOST_PHONES_MAX !== undefined ? { phonesPerHost: env.HOST_PHONES_MAX } : {}),
    ...(env.WORKSPACE_DEVICES_MAX !== undefined ? { devicesPerWorkspace: env.WORKSPACE_DEVICES_MAX } : {}),
    ...(env.WORKSPACE_STORAGE_QUOTA_BYTES !== undefined ? { storageQuotaBytes: env.WORKSPACE_STORAGE_QUOTA_BYTES } : {}),
    ...(env.SCREENSHOTS_PER_MINUTE !== undefined ? { screenshotsPerMinute: env.SCREENSHOTS_PER_MINUTE } : {}),
    ...(env.ALERTS_ALLOW_PRIVATE !== undefined ? { outboundAllowPrivate: ['1', 'true', 'yes'].includes(env.ALERTS_ALLOW_PRIVATE) } : {}),
  };
}
