import { describe, expect, it } from 'vitest';
import type { Task } from '@farm/contracts';
import { taskFixture } from '../../test/fixtures';
import { taskDeliveryLine } from './task.delivery';

const stamp = '2026-11-23T10:00:00.000Z';
const task = (overrides: Partial<Task>): Task =>
  taskFixture({ title: 'Publish', type: 'post', priority: 'high', deviceId: 'd1', createdAt: stamp, updatedAt: stamp, ...overrides });

describe('where a task stands with its phone', () => {
  const now = new Date('2026-11-23T10:00:00Z');
  it('says nothing of a task waiting for its first hand-over', () => {
    expect(taskDeliveryLine(task({}), now)).toBeNull();
  });
  it('follows it onto the phone', () => {
    expect(taskDeliveryLine(task({ attempt: 1, dispatchedAt: stamp }), now)?.text).toBe('Sent to the phone (attempt 1), waiting for it to start');
    expect(taskDeliveryLine(task({ attempt: 2, dispatchedAt: stamp, status: 'in-progress', progressNote: 'Write the caption' }), now)?.text).toBe(
      'Running on the phone (attempt 2): Write the caption',
    );
  });
  it('says when a paused recipe holds it back', () => {
    expect(taskDeliveryLine(task({ progressNote: 'Recipe paused for this app version' }), now)).toEqual({
      tone: 'yellow',
      text: 'Waiting: recipe paused for this app version',
    });
  });
  it('says why an attempt failed and when the next one goes', () => {
    const line = taskDeliveryLine(task({ attempt: 1, failureCode: 'network', failureMessage: 'No signal', nextAttemptAt: '2026-11-23T10:05:00Z' }), now);
    expect(line).toEqual({ tone: 'yellow', text: 'Attempt 1 failed: No signal. Trying again in 5 minutes' });
  });
  it('gives the reason of a failure or a cancel, in the words of its code when the phone gave none', () => {
    expect(taskDeliveryLine(task({ status: 'failed', attempt: 3, failureCode: 'lease_expired', failureMessage: null }), now)).toEqual({
      tone: 'red',
      text: 'Failed after 3 attempts: The phone stopped reporting progress',
    });
    expect(taskDeliveryLine(task({ status: 'cancelled', failureCode: 'cancelled', failureMessage: 'The post was deleted' }), now)).toEqual({
      tone: 'dimmed',
      text: 'Cancelled: The post was deleted',
    });
  });
});
