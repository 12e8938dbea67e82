import type { FailureCode } from '@farm/agent-protocol/failures';
import { failureLabels } from '@farm/agent-protocol/failures';

export interface WaitingFacts {
  deviceName: string | null;
  deviceStatus: string | null;
  lastSeenAt: Date | null;
  accountStatus?: string | null | undefined;
  /** The post's task for its current schedule, if one was made. */
  task?:
    | {
        status: string;
        dispatchedAt: Date | null;
        nextAttemptAt: Date | null;
        failureCode: FailureCode | null;
        /** No recipe can publish it: the task is a person's, done by hand on the phone. */
        byHand?: boolean | undefined;
      }
    | undefined;
}

/**
 * Why a due post has not reached a phone yet, in the words the post card shows; nothing when it is on its way.
 * The code is one of the failure codes where one fits.
 */
export function waitingReason(facts: WaitingFacts): { code: FailureCode | null; message: string } | undefined {
  if (facts.accountStatus === 'paused' || facts.accountStatus === 'suspended') {
    return { code: null, message: `The account is ${facts.accountStatus}: resume it to publish` };
  }
  if (!facts.deviceName) return { code: 'no_device', message: 'The account has no phone' };
  // No task yet is the scheduler's matter (the caller says so); one on a phone or settled needs no words.
  if (!facts.task || facts.task.dispatchedAt !== null || facts.task.status !== 'pending') return undefined;
  if (facts.task.byHand) return { code: null, message: 'Waiting for a person: no recipe publishes on this platform, so it is posted by hand' };
  if (!facts.lastSeenAt) return { code: 'no_agent', message: `Waiting for a person: ${facts.deviceName} has no phone agent connected` };
  if (facts.deviceStatus === 'offline') return { code: 'device_offline', message: `Waiting for a person: ${facts.deviceName} is offline` };
  if (facts.task.nextAttemptAt && facts.task.failureCode) {
    return { code: facts.task.failureCode, message: `Trying again soon after: ${failureLabels[facts.task.failureCode]}` };
  }
  return undefined;
}
