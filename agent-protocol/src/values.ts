/**
 * The value lists the console, the server, the database and the phones share, written once: the contracts, the
 * database types and the phone protocol all derive from these tuples (`z.enum(list)`, `(typeof list)[number]`).
 */

/** What kind of work a task is. */
export const taskTypes = ['post', 'engage', 'warmup', 'monitor'] as const;
export type TaskType = (typeof taskTypes)[number];

/** Where a task stands. */
export const taskStatuses = ['pending', 'in-progress', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof taskStatuses)[number];

/** Pending or leased: not settled yet. */
export const unsettledTaskStatuses = ['pending', 'in-progress'] as const satisfies readonly TaskStatus[];

export const taskPriorities = ['high', 'medium', 'low'] as const;
export type TaskPriority = (typeof taskPriorities)[number];

/** Work a phone's run hands to a person instead of doing it: a comment is written by a VA, never typed by a recipe. */
export const handOverKinds = ['comment'] as const;
export type HandOverKind = (typeof handOverKinds)[number];

/** A device's state as the console shows it (derived from what its agent reports). */
export const deviceStatuses = ['online', 'offline', 'busy', 'idle'] as const;
export type DeviceStatus = (typeof deviceStatuses)[number];

/** The social platforms accounts live on. */
export const platforms = ['tiktok', 'instagram', 'facebook', 'twitter', 'youtube', 'tinder'] as const;
export type Platform = (typeof platforms)[number];

/** Each platform's name as people write it. */
export const platformNames: Record<Platform, string> = {
  tiktok: 'TikTok',
  instagram: 'Instagram',
  facebook: 'Facebook',
  twitter: 'Twitter',
  youtube: 'YouTube',
  tinder: 'Tinder',
};

/** What an operator may tell a phone to do. */
export const phoneCommands = ['screenshot', 'pause', 'resume', 'stop', 'restart_session'] as const;
export type PhoneCommand = (typeof phoneCommands)[number];

/** Which reader reads a phone's UI: the UiAutomator2 server, `uiautomator dump`, or the simulator. */
export const uiReaderKinds = ['ui-server', 'dump', 'sim'] as const;
export type UiReaderKind = (typeof uiReaderKinds)[number];
