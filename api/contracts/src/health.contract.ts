/**
 * Fleet health in the console: each phone's health as its host reports it, and a host's USB bus, warnings and fleet
 * settings (Settings → Phone hosts). The settings' one schema is the protocol's, as the host validates it too.
 */
import { z } from 'zod';
import { batteryHealths, fleetHostMessages, hostFleetSettings } from '@farm/agent-protocol/fleet';
import { id, nullableTime } from './common.ts';

export { hostFleetSettings, defaultHostFleetSettings, type HostFleetSettings } from '@farm/agent-protocol/fleet';

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
});
export type PhoneHealth = z.infer<typeof phoneHealth>;

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
