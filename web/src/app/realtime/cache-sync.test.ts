import type { Activity, Device, Session, Stats } from '@farm/api/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../shared/api';
import { createCacheSync } from './cache-sync';

const stamp = '2025-01-01T00:00:00.000Z';

function device(overrides: Partial<Device> = {}): Device {
  return { id: 'd1', name: 'Pixel 1', status: 'online', battery: 80, lastActive: stamp, assignedToId: null, sessionTime: 0, createdAt: stamp, updatedAt: stamp, ...overrides };
}
function activity(overrides: Partial<Activity> = {}): Activity {
  return { id: 'a9', userId: null, action: 'Started warm-up', deviceId: 'd1', type: 'info', createdAt: stamp, ...overrides };
}
function session(overrides: Partial<Session> = {}): Session {
  return { id: 's1', deviceId: 'd1', vaId: null, taskId: null, currentTask: null, duration: 10, screenshots: 0, isActive: true, startedAt: stamp, endedAt: null, ...overrides };
}

describe('createCacheSync', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('patches a changed device in every cached list and its own entry', () => {
    const client = createQueryClient();
    client.setQueryData(['/api/devices'], [device(), device({ id: 'd2', name: 'Pixel 2' })]);
    client.setQueryData(['/api/devices', { limit: '4' }], [device()]);
    client.setQueryData(['/api/devices', 'd1'], device());
    const sync = createCacheSync(client, 50);

    sync.apply('device.updated', device({ battery: 12, status: 'busy' }));

    expect(client.getQueryData<Device[]>(['/api/devices'])?.[0]?.battery).toBe(12);
    expect(client.getQueryData<Device[]>(['/api/devices'])?.[1]?.name).toBe('Pixel 2');
    expect(client.getQueryData<Device[]>(['/api/devices', { limit: '4' }])?.[0]?.status).toBe('busy');
    expect(client.getQueryData<Device>(['/api/devices', 'd1'])?.battery).toBe(12);
    sync.dispose();
  });

  it('ignores unknown events and payloads that fail their schema', () => {
    const client = createQueryClient();
    client.setQueryData(['/api/devices'], [device()]);
    const sync = createCacheSync(client, 50);

    sync.apply('device.exploded', device({ battery: 1 }));
    sync.apply('device.updated', { id: 'd1', battery: 'full' });

    expect(client.getQueryData<Device[]>(['/api/devices'])?.[0]?.battery).toBe(80);
    sync.dispose();
  });

  it('puts new activity on top of the feeds it belongs to, keeping their size', () => {
    const client = createQueryClient();
    client.setQueryData(['/api/activities', { limit: '2' }], [activity({ id: 'a1' }), activity({ id: 'a2' })]);
    client.setQueryData(['/api/activities', { deviceId: 'd2', limit: '10' }], [activity({ id: 'a3', deviceId: 'd2' })]);
    const sync = createCacheSync(client, 50);

    sync.apply('activity.created', activity());

    expect(client.getQueryData<Activity[]>(['/api/activities', { limit: '2' }])?.map((row) => row.id)).toEqual(['a9', 'a1']);
    expect(client.getQueryData<Activity[]>(['/api/activities', { deviceId: 'd2', limit: '10' }])?.map((row) => row.id)).toEqual(['a3']);
    sync.dispose();
  });

  it('drops a deleted row from lists', () => {
    const client = createQueryClient();
    client.setQueryData(['/api/devices'], [device(), device({ id: 'd2' })]);
    const sync = createCacheSync(client, 50);

    sync.apply('device.deleted', { id: 'd1' });

    expect(client.getQueryData<Device[]>(['/api/devices'])?.map((row) => row.id)).toEqual(['d2']);
    sync.dispose();
  });

  it('refreshes lists once, later, when rows are created or filtered lists may no longer match', async () => {
    const client = createQueryClient();
    client.setQueryData(['/api/sessions', { active: 'true', limit: '3' }], [session()]);
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    const sync = createCacheSync(client, 50);

    sync.apply('session.started', session({ id: 's2' }));
    sync.apply('session.started', session({ id: 's3' }));
    sync.apply('session.updated', session({ isActive: false }));
    expect(client.getQueryData<Session[]>(['/api/sessions', { active: 'true', limit: '3' }])?.[0]?.isActive).toBe(false);
    expect(invalidate).not.toHaveBeenCalled();

    await vi.advanceTimersByTimeAsync(60);
    const keys = invalidate.mock.calls.map(([filters]) => filters?.queryKey?.[0] ?? 'predicate');
    expect(keys.filter((key) => key === '/api/sessions')).toHaveLength(1);
    expect(keys).toContain('predicate');
    sync.dispose();
  });

  it('takes pushed all-time stats as they are', () => {
    const client = createQueryClient();
    const stats: Stats = { activeSessions: 3, totalDevices: 10, onlineDevices: 7, completedTasks: 4, totalTasks: 9, totalSessionTime: 100, successRate: 44.4, avgSessionTime: 11, range: null };
    const sync = createCacheSync(client, 50);

    sync.apply('stats.changed', stats);

    expect(client.getQueryData(['/api/analytics/stats'])).toEqual(stats);
    sync.dispose();
  });
});
