import { failureLabels, RECIPE_PAUSED_NOTE, type Task } from '@farm/contracts';
import dayjs from 'dayjs';
import relativeTime from 'dayjs/plugin/relativeTime';

dayjs.extend(relativeTime);

export interface DeliveryLine {
  tone: 'blue' | 'yellow' | 'red' | 'dimmed';
  text: string;
}

const reasonOf = (task: Pick<Task, 'failureCode' | 'failureMessage'>) =>
  task.failureMessage ?? (task.failureCode ? failureLabels[task.failureCode] : 'no reason given');
const attempts = (n: number) => `${n} attempt${n === 1 ? '' : 's'}`;

/** Where a task stands with its phone, in a line: sent, running, waiting to try again, or why it failed. */
export function taskDeliveryLine(task: Task, now: Date = new Date()): DeliveryLine | null {
  if (task.status === 'pending' && task.dispatchedAt) return { tone: 'blue', text: `Sent to the phone (attempt ${task.attempt}), waiting for it to start` };
  if (task.status === 'in-progress' && task.dispatchedAt) {
    return { tone: 'blue', text: `Running on the phone (attempt ${task.attempt})${task.progressNote ? `: ${task.progressNote}` : ''}` };
  }
  if (task.status === 'pending' && task.failureCode && task.attempt > 0) {
    const when = task.nextAttemptAt && Date.parse(task.nextAttemptAt) > now.getTime() ? dayjs(task.nextAttemptAt).from(now) : 'soon';
    return { tone: 'yellow', text: `Attempt ${task.attempt} failed: ${reasonOf(task)}. Trying again ${when}` };
  }
  // A paused recipe holds it back until an operator sends it to a VA or turns the recipe back on.
  if (task.status === 'pending' && task.progressNote === RECIPE_PAUSED_NOTE) return { tone: 'yellow', text: `Waiting: ${RECIPE_PAUSED_NOTE.toLowerCase()}` };
  if (task.status === 'failed') return { tone: 'red', text: `Failed${task.attempt > 0 ? ` after ${attempts(task.attempt)}` : ''}: ${reasonOf(task)}` };
  if (task.status === 'cancelled') return { tone: 'dimmed', text: `Cancelled: ${reasonOf(task)}` };
  return null;
}
