/**
 * What a farm host tells the server of its phones' health, on its control connection (after `host.hello`), and the
 * settings the server sends it back. All optional: a server that does not know these events ignores them, and phone
 * agents (protocol 1 or 2) never see them.
 */
import { z } from 'zod';
import { recoveryRungs } from './fleet.ladder.ts';
import type { PhoneSettingsAnswer, PhoneSettingsRequest } from './fleet.settings.ts';

export * from './fleet.settings.ts';

const serial = z.string().min(1).max(100);
const text = z.string().max(1000);

export const batteryHealths = ['unknown', 'good', 'overheat', 'dead', 'over_voltage', 'failure', 'cold'] as const;
export const healthChecks = ['shell', 'ui_reader', 'frame'] as const;
export const vitalsAlertKinds = ['overheat', 'battery_failed', 'disk_full', 'reboot_loop'] as const;
export const recoveryOutcomes = ['done', 'failed', 'skipped'] as const;
/** Where an app job on a phone stands while it runs (`host.app-progress`). */
export const appJobStages = ['waiting_for_task', 'downloading', 'installing'] as const;
export type AppJobStage = (typeof appJobStages)[number];
export const usbControllerKinds = ['intel_chipset', 'xhci', 'other'] as const;

const usbPlace = z.object({ hubLocation: z.string().min(1).max(100), port: z.number().int().min(1).max(255) });

export const fleetHostMessages = {
  /** A phone became unresponsive (with what failed) or answers again. */
  'host.health': z.object({
    serial,
    ok: z.boolean(),
    failed: z.array(z.object({ check: z.enum(healthChecks), error: text })).max(3),
    reason: text.nullable(),
  }),
  /** A reading of a phone's vitals, and the alerts that started with it. */
  'host.vitals': z.object({
    serial,
    batteryLevel: z.number().int().min(0).max(100).nullable(),
    temperatureC: z.number().min(-50).max(150).nullable(),
    batteryHealth: z.enum(batteryHealths),
    freeBytes: z.number().int().min(0).nullable(),
    totalBytes: z.number().int().min(0).nullable(),
    uptimeSeconds: z.number().min(0).nullable(),
    androidVersion: z.string().max(40).nullable(),
    appVersions: z.record(z.string().max(200), z.string().max(100)),
    alerts: z.array(z.object({ kind: z.enum(vitalsAlertKinds), message: text })).max(10),
  }),
  /** A rung of the recovery ladder taken for a phone and how it went; `replug_task` asks for a person. */
  'host.recovery': z.object({
    serial,
    rung: z.enum(recoveryRungs),
    outcome: z.enum(recoveryOutcomes),
    detail: text.nullable(),
    place: usbPlace.nullable(),
  }),
  /**
   * How an app job (`app.run`) went on one phone: the package manager's answer read into a code and words
   * (adb/adb.packages.ts). Sent once per job, after the install or removal ended.
   */
  'host.app': z.object({
    jobId: z.string().min(1).max(64),
    serial,
    ok: z.boolean(),
    code: z.string().max(100).nullable(),
    reason: text.nullable(),
    detail: text.nullable(),
  }),
  /**
   * An app job (`app.run`) still under way on one phone, sent when it moves to another stage and every few seconds
   * meanwhile: waiting for the phone's running task to end, downloading the APKs, or installing (a big app is
   * verified and compiled on the phone for minutes). `elapsedMs` is the time in this stage. Hosts before it send
   * none; a server before it ignores it.
   */
  'host.app-progress': z.object({
    jobId: z.string().min(1).max(64),
    serial,
    stage: z.enum(appJobStages),
    elapsedMs: z.number().int().min(0),
  }),
  /** The host's USB tree, where each phone hangs, and the capacity warnings; sent at start and when phones change. */
  'host.usb': z.object({
    controllers: z.array(z.object({ id: z.string().max(100), kind: z.enum(usbControllerKinds), driver: z.string().max(100).nullable() })).max(64),
    phones: z
      .array(z.object({ serial, controllerId: z.string().max(100), hubLocation: z.string().max(100), port: z.number().int().min(0).max(255) }))
      .max(1000),
    warnings: z
      .array(z.object({ scope: z.enum(['controller', 'host']), id: z.string().max(100), phones: z.number().int(), limit: z.number().int(), message: text }))
      .max(64),
    /** uhubctl: off, ready, or the problem found by the start-up check ("uhubctl: no permission"). */
    uhubctl: z.object({ enabled: z.boolean(), problem: text.nullable() }),
  }),
} as const;

export type FleetHostMessageName = keyof typeof fleetHostMessages;
export type FleetHostMessage<N extends FleetHostMessageName> = z.infer<(typeof fleetHostMessages)[N]>;

/** A host's fleet settings, edited in Settings → Phone hosts and sent to the host (`host.settings`). */
export const hostFleetSettings = z.object({
  uhubctl: z.object({
    enabled: z.boolean(),
    hubLocation: z
      .string()
      .trim()
      .max(100)
      // uhubctl's `-l`: a root hub is its bus number (`1`); `usb1` (sysfs's name) is read as `1` for settings saved
      // before hosts named root hubs as uhubctl does.
      .regex(/^(\d+(-\d+(\.\d+)*)?|usb\d+)?$/, 'a hub location such as 1, 1-2 or 1-2.4'),
  }),
  ladder: z.object({
    perRungPerHour: z.number().int().min(1).max(20),
    rebootsPerDay: z.number().int().min(0).max(10),
    adbServerRestartPhones: z.number().int().min(2).max(100),
    /** Restarts of the adb server at most this many times an hour (settings saved before it existed: 3). */
    adbServerRestartsPerHour: z.number().int().min(0).max(20).default(3),
  }),
  capacity: z.object({ intelChipset: z.number().int().min(1).max(127), xhci: z.number().int().min(1).max(127), host: z.number().int().min(1).max(500) }),
  scheduledRestart: z.object({ enabled: z.boolean(), hour: z.number().int().min(0).max(23), minute: z.number().int().min(0).max(59), idleOnly: z.boolean() }),
});
export type HostFleetSettings = z.infer<typeof hostFleetSettings>;

export const defaultHostFleetSettings: HostFleetSettings = {
  uhubctl: { enabled: false, hubLocation: '' },
  ladder: { perRungPerHour: 3, rebootsPerDay: 2, adbServerRestartPhones: 3, adbServerRestartsPerHour: 3 },
  capacity: { intelChipset: 10, xhci: 25, host: 28 },
  scheduledRestart: { enabled: false, hour: 4, minute: 0, idleOnly: true },
};

/** What a host that advertises it can do beyond phones and fleet health (`host.hello` `features`). */
export const hostFeatures = ['apps', 'phone-settings'] as const;
export type HostFeature = (typeof hostFeatures)[number];

/**
 * An app to install (or update) from the console's stored APKs, or to remove, on one phone of the host: sent only to
 * hosts whose hello listed the `apps` feature. The host answers at once whether it took the job (ack), then reports
 * the phone's result with `host.app`. A split set's files go into one install session, the base first.
 */
export const appJob = z.object({
  jobId: z.string().min(1).max(64),
  serial,
  action: z.enum(['install', 'remove']),
  package: z.string().min(1).max(255),
  files: z.array(z.object({ objectKey: z.string().regex(/^[\w-]{1,64}$/), name: z.string().min(1).max(200), size: z.number().int().min(0) })).max(100),
  allowDowngrade: z.boolean(),
});
export type AppJob = z.infer<typeof appJob>;

/** What the server sends a host on its control connection. */
export interface ServerToHost {
  'host.settings': (settings: HostFleetSettings) => void;
  /** Set these settings on these phones (hosts that named `phone-settings` in their hello); answered per phone. */
  'host.phone-settings': (request: PhoneSettingsRequest, ack: (answer: PhoneSettingsAnswer) => void) => void;
  'app.run': (job: AppJob, ack: (answer: { ok: boolean; error?: string }) => void) => void;
}
