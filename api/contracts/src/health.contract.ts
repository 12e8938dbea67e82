/**
 * Fleet health in the console: each phone's health as its host reports it, and a host's USB bus, warnings and fleet
 * settings (Settings → Phone hosts). The settings' one schema is the protocol's, as the host validates it too.
 */
import { z } from 'zod';
import { batteryHealths, fleetHostMessages, hostFleetSettings, phoneSettings, settingOutcome } from '@farm/agent-protocol/fleet';
import { id, idFilter, isoTime, nullableTime, pageQuery } from './common.ts';

export { hostFleetSettings, defaultHostFleetSettings, type HostFleetSettings } from '@farm/agent-protocol/fleet';
export { phoneSettings, settingOutcome, type PhoneSettings, type SettingOutcome } from '@farm/agent-protocol/fleet';

/** Settings for selected phones or a group's, set through their farm hosts (issue #42). */
export const phoneSettingsBody = z
  .object({
    deviceIds: z.array(idFilter).max(1000).optional(),
    groupId: idFilter.optional(),
    settings: phoneSettings,
  })
  .refine((body) => (body.deviceIds?.length ?? 0) > 0 !== (body.groupId !== undefined), {
    message: 'Choose some phones or a group, not both',
    path: ['deviceIds'],
  });
export type PhoneSettingsBody = z.input<typeof phoneSettingsBody>;

/** What came of the settings on each phone: per setting, or why the phone could not be reached; a task for a person. */
export const phoneSettingsResult = z.object({
  results: z.array(
    z.object({
      deviceId: id,
      name: z.string(),
      outcomes: z.array(settingOutcome),
      error: z.string().nullable(),
      /** The task made for the phone's VA for what adb cannot set, if any. */
      taskId: id.nullable(),
    }),
  ),
});
export type PhoneSettingsResult = z.infer<typeof phoneSettingsResult>;

export const phoneHealth = z.object({
  deviceId: id,
  batteryLevel: z.number().int().nullable(),
  temperatureC: z.number().nullable(),
  batteryHealth: z.enum(batteryHealths).nullable(),
  freeBytes: z.number().nullable(),
  totalBytes: z.number().nullable(),
  uptimeSeconds: z.number().nullable(),
  androidVersion: z.string().nullable(),
  appVersions: z.record(z.string(), z.string()),
  /** What failed when the host last checked it; null while it answers. */
  unresponsiveReason: z.string().nullable(),
  vitalsAt: nullableTime,
  healthAt: nullableTime,
  usbController: z.string().nullable(),
  usbHub: z.string().nullable(),
  usbPort: z.number().int().nullable(),
  /**
   * Since when its host waits for its transport to come back (adb lists it offline, or no more): the console shows
   * "Reconnecting" beside its status. Null (or absent, from servers that predate it): it is not away.
   */
  reconnectingSince: nullableTime.optional(),
});
export type PhoneHealth = z.infer<typeof phoneHealth>;

/** What a phone's timeline holds: its blips (away and back), its host's recovery rungs, its reboots. */
export const timelineKindValues = ['blip', 'rung', 'reboot'] as const;
export type TimelineKind = (typeof timelineKindValues)[number];

/** One moment of a phone's timeline (its details' Timeline), newest first; the next page's cursor is in `x-next-cursor`. */
export const timelineEntry = z.object({
  id: z.string(),
  at: isoTime,
  kind: z.enum(timelineKindValues),
  /** What happened, in words ("Back after 3 s on the same transport"). */
  text: z.string(),
  /** A blip or a reboot: how long the phone was away (null: it was not back within its host's wait). */
  awayMs: z.number().int().nullable(),
  /** A blip: back on the same transport, or a new one (it left adb's list). */
  transport: z.enum(['same', 'new']).nullable(),
  /** A rung: which, and how it went. */
  rung: fleetHostMessages['host.recovery'].shape.rung.nullable(),
  outcome: fleetHostMessages['host.recovery'].shape.outcome.nullable(),
});
export type TimelineEntry = z.infer<typeof timelineEntry>;
export const timelineQuery = pageQuery.extend({ limit: z.coerce.number().int().min(1).max(100).optional() });

export const hostUsb = fleetHostMessages['host.usb'];
export type HostUsb = z.infer<typeof hostUsb>;

export const hostFleet = z.object({
  hostId: id,
  settings: hostFleetSettings,
  /** The host's last USB report; null until it sent one. */
  usb: hostUsb.nullable(),
  usbAt: nullableTime,
  /** Each of its phones' health, by device. */
  phones: z.array(phoneHealth.extend({ name: z.string(), serial: z.string().nullable() })),
});
export type HostFleet = z.infer<typeof hostFleet>;
