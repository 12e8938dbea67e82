/** Display formatters shared by the console's screens (SPEC §2 and §9). */
import { sizeText, type Device, type DeviceStatus } from '@farm/contracts';
import dayjs from 'dayjs';
import relativeTime from 'dayjs/plugin/relativeTime';

dayjs.extend(relativeTime);

/** Seconds as 'Hh Mm', or 'Mm' under one hour. */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return hours > 0 ? `${hours}h ${minutes}m` : `${minutes}m`;
}

/** A short span: '45s' under a minute, otherwise as formatDuration. */
export function formatSpan(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  return seconds < 60 ? `${seconds}s` : formatDuration(seconds);
}

/** Seconds as a clock for the live monitor: 'h:mm:ss', or 'm:ss' under one hour. */
export function formatClock(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

/** A task deadline like 'Mar 5, 2:30 PM', or 'No deadline'. */
export function formatDeadline(deadline: string | null | undefined): string {
  if (!deadline) return 'No deadline';
  const value = dayjs(deadline);
  return value.isValid() ? value.format('MMM D, h:mm A') : 'No deadline';
}

/** A past moment relative to now, e.g. '5 minutes ago'. */
export function formatRelative(time: string | null | undefined, now: Date = new Date()): string {
  if (!time) return 'Never';
  const value = dayjs(time);
  return value.isValid() ? value.from(now) : 'Never';
}

/** A calendar date and time for detail views. */
export function formatDateTime(time: string | null | undefined): string {
  if (!time) return '—';
  const value = dayjs(time);
  return value.isValid() ? value.format('MMM D, YYYY h:mm A') : '—';
}

/** A percentage with one decimal, e.g. '87.5%'. */
export function formatPercent(value: number): string {
  return `${(Number.isFinite(value) ? value : 0).toFixed(1)}%`;
}

/** Mantine colours standing for the status palette of the console. */
export const statusColors = {
  online: 'green',
  away: 'yellow',
  busy: 'red',
  offline: 'gray',
} as const;

export const deviceStatusColors: Record<DeviceStatus, string> = {
  online: statusColors.online,
  idle: statusColors.away,
  busy: statusColors.busy,
  offline: statusColors.offline,
};

export const deviceStatusLabels: Record<DeviceStatus, string> = {
  online: 'Online',
  offline: 'Offline',
  busy: 'Busy',
  idle: 'Idle',
};

/** Battery colour: above 50 the online colour, above 20 the away colour, otherwise the busy colour. */
export function batteryColor(battery: number): string {
  if (battery > 50) return statusColors.online;
  if (battery > 20) return statusColors.away;
  return statusColors.busy;
}

export type VaStatus = 'online' | 'busy' | 'offline';

/** A VA's status follows their device: online and busy carry over, anything else (or no device) is offline. */
export function deriveVaStatus(device: Pick<Device, 'status'> | null | undefined): VaStatus {
  if (device?.status === 'online' || device?.status === 'busy') return device.status;
  return 'offline';
}

export const vaStatusLabels: Record<VaStatus, string> = { online: 'Online', busy: 'Busy', offline: 'Offline' };

/** Up to two initials from a person's name, e.g. 'Ada Lovelace' → 'AL'. */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return '?';
  const first = words[0]?.[0] ?? '';
  const last = words.length > 1 ? (words[words.length - 1]?.[0] ?? '') : '';
  return (first + last).toUpperCase();
}

/** The value an <input type="datetime-local"> expects for an ISO time, in the browser's zone. */
export function toDateTimeLocal(time: string | null | undefined): string {
  if (!time) return '';
  const value = dayjs(time);
  return value.isValid() ? value.format('YYYY-MM-DDTHH:mm') : '';
}

/** An <input type="datetime-local"> value as ISO, or null when empty. */
export function fromDateTimeLocal(value: string): string | null {
  if (!value) return null;
  const parsed = dayjs(value);
  return parsed.isValid() ? parsed.toISOString() : null;
}

/** Stored bytes as a person reads them (Storage, Apps): the contracts' `sizeText`, as the API words its limits. */
export const formatStorageSize = sizeText;
