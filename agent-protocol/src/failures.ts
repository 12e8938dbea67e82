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
  unknown: true,
};

/** Codes after which the account's automation stops until a person resumes it. */
export const accountSafetyCodes: ReadonlySet<FailureCode> = new Set(['login_required', 'account_blocked', 'rate_limited']);

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
  unknown: 'Something went wrong on the phone',
};
