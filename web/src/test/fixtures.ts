/** Rows as the API answers them, for component and store tests: one builder per shape, overridden where a test cares. */
import type { Device, Task } from '@farm/contracts';

const stamp = '2026-03-01T10:00:00.000Z';

export function deviceFixture(overrides: Partial<Device> = {}): Device {
  return {
    id: 'd1',
    name: 'Pixel 1',
    status: 'online',
    battery: 80,
    lastActive: stamp,
    assignedToId: null,
    sessionTime: 0,
    lastSeenAt: stamp,
    agentProtocol: 2,
    hostId: null,
    serial: null,
    model: null,
    androidVersion: null,
    screenOn: true,
    controlledById: null,
    controlledByName: null,
    createdAt: stamp,
    updatedAt: stamp,
    ...overrides,
  };
}

export function taskFixture(overrides: Partial<Task> = {}): Task {
  return {
    id: 't1',
    title: 'Warm up account',
    description: null,
    type: 'warmup',
    priority: 'medium',
    status: 'pending',
    deviceId: null,
    assignedToId: null,
    deadline: null,
    startedAt: null,
    completedAt: null,
    attempt: 0,
    maxAttempts: 3,
    dispatchedAt: null,
    leaseExpiresAt: null,
    nextAttemptAt: null,
    progress: null,
    progressNote: null,
    failureCode: null,
    failureMessage: null,
    postId: null,
    campaignSessionId: null,
    accountId: null,
    createdAt: stamp,
    updatedAt: stamp,
    ...overrides,
  };
}
