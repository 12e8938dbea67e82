/**
 * Why an attempt of a task failed: one closed list that phones, the server and the console share.
 * Each code says whether trying again on its own can help; a phone may override that for one result.
 */
import { z } from 'zod';

export const failureCodes = [
  /** No phone agent was connected to take the work. */
  'no_agent',
  /** The phone stopped answering (no heartbeat) while the work was out. */
  'device_offline',
  /** The phone did not take the work within the ack window. */
  'ack_timeout',
  /** The phone took the work and then went silent or ran past its time. */
  'lease_expired',
  /** The app closed or froze under the phone's hands. */
  'app_crashed',
  /** The app asked to log in again (a person must). */
  'login_required',
  /** The platform blocked, locked or challenged the account (a person must look). */
  'account_blocked',
  /** The platform refused actions for now. */
  'rate_limited',
  /** An expected screen element never appeared. */
  'element_missing',
  /** The phone had no usable network. */
  'network',
  /** The work was called off because what it was for changed. */
  'cancelled',
  /** The account has no phone to run on. */
  'no_device',
  /** The account reached its daily allowance for the actions this work needs. */
  'daily_cap',
  /** The app did not confirm a post within its limit (no "posted" notice, no finished upload row, no new post). */
  'post_unconfirmed',
  /** Screens the recipe recognised lacked the elements it needs, five times in a row: the app changed under it. */
  'app_changed',
  /** The app's version on the phone is outside the versions the recipe was tested on. */
  'app_version_untested',
  /** Another account is signed in to the app than the one the work is for. */
  'wrong_account',
  /** The phone is locked with a PIN, pattern or password. */
  'device_locked',
  /** The phone's UI language is one no recipe for the app is written for: its word guards would read nothing. */
  'language_untested',
  /** The phone's screen could not be read (no UI server answer, no dump): the run acted on nothing. */
  'screen_unreadable',
  /** The work asks for something the phone cannot do at all (a carousel: `am` cannot send several files). */
  'unsupported',
  /** Anything else; the message says what. */
  'unknown',
] as const;

export const failureCode = z.enum(failureCodes);
export type FailureCode = z.infer<typeof failureCode>;

/** Whether a failure with this code is worth another attempt without a person stepping in. */
export const retryableByDefault: Record<FailureCode, boolean> = {
  no_agent: true,
  device_offline: true,
  ack_timeout: true,
  lease_expired: true,
  app_crashed: true,
  login_required: false,
  account_blocked: false,
  rate_limited: false,
  element_missing: true,
  network: true,
  cancelled: false,
  no_device: false,
  daily_cap: false,
  // The phone side never retries these on its own: a post that may have gone up must not go up twice, and the
  // others stay true until the app, the recipe, the account or the phone changes.
  post_unconfirmed: false,
  app_changed: false,
  app_version_untested: false,
  wrong_account: false,
  device_locked: false,
  language_untested: false,
  // Tried again once (the server counts it): an unreadable screen is often a UI server between restarts.
  screen_unreadable: true,
  unsupported: false,
  unknown: true,
};

/**
 * Codes the server never tries again on its own, whatever the phone says of one result: a post that may have gone up
 * must not go up twice, and the rest hold until the app, the recipe, the account or the phone changes.
 */
export const neverRetriedCodes: ReadonlySet<FailureCode> = new Set([
  'post_unconfirmed',
  'app_changed',
  'app_version_untested',
  'wrong_account',
  'device_locked',
  'language_untested',
  'unsupported',
]);

/** Codes after which the account's automation stops until a person resumes it. */
export const accountSafetyCodes: ReadonlySet<FailureCode> = new Set(['login_required', 'account_blocked', 'rate_limited']);

/**
 * Codes only a person on the phone can get past, without pausing the account (the platform said nothing about it):
 * the phone's lock, or the app signed in to another account.
 */
export const personNeededCodes: ReadonlySet<FailureCode> = new Set(['login_required', 'account_blocked', 'wrong_account', 'device_locked']);

/** How the console words each code. */
export const failureLabels: Record<FailureCode, string> = {
  no_agent: 'No phone agent is connected',
  device_offline: 'The phone went offline',
  ack_timeout: 'The phone did not take the work in time',
  lease_expired: 'The phone stopped reporting progress',
  app_crashed: 'The app crashed',
  login_required: 'The app asks to log in again',
  account_blocked: 'The account is blocked or challenged',
  rate_limited: 'The platform is limiting actions',
  element_missing: 'An expected screen did not appear',
  network: 'The phone had no network',
  cancelled: 'Cancelled',
  no_device: 'The account has no phone',
  daily_cap: "The account reached today's allowance",
  post_unconfirmed: 'The app did not confirm the post',
  app_changed: 'The app changed: the recipe no longer finds its screens',
  app_version_untested: "The app's version is not one the recipe was tested on",
  wrong_account: 'Another account is signed in on the phone',
  device_locked: 'The phone is locked with a PIN',
  language_untested: "The phone's language is not one the recipe was written for",
  screen_unreadable: "The phone's screen could not be read",
  unsupported: 'The phone cannot do this kind of work',
  unknown: 'Something went wrong on the phone',
};
