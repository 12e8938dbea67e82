import type { Activity, Device, HostFleet, PhoneHealth, Session, Stats, Task } from '@farm/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../shared/api';
import { screenshotsKey, type Screenshot } from '../../shared/resources';
import { deviceFixture, taskFixture } from '../../test/fixtures';
import { mergeRows } from '../../shared/realtime/live-cache';
import { createCacheSync } from './cache-sync';

const stamp = '2025-01-01T00:00:00.000Z';

const device = (overrides: Partial<Device> = {}): Device =>
  deviceFixture({ lastActive: stamp, lastSeenAt: stamp, createdAt: stamp, updatedAt: stamp, ...overrides });
function activity(overrides: Partial<Activity> = {}): Activity {
  return { id: 'a9', userId: null, action: 'Started warm-up', deviceId: 'd1', type: 'info', createdAt: stamp, ...overrides };
}
const task = (overrides: Partial<Task> = {}): Task => taskFixture({ title: 'Warm up', createdAt: stamp, updatedAt: stamp, ...overrides });
function session(overrides: Partial<Session> = {}): Session {
  return {
    id: 's1',
    deviceId: 'd1',
    vaId: null,
    taskId: null,
    currentTask: null,
    duration: 10,
    screenshots: 0,
    isActive: true,
    startedAt: stamp,
    endedAt: null,
    ...overrides,
  };
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

  it('patches lists read page by page: in place, new rows on top, rows past the loaded pages left to them', () => {
    const client = createQueryClient();
    const key = ['/api/tasks', { status: 'pending', paged: '2' }];
    const older = '2024-12-01T00:00:00.000Z';
    client.setQueryData(key, {
      pages: [
        { rows: [task({ id: 't3', createdAt: stamp }), task({ id: 't2', createdAt: stamp })], next: 'c1' },
        { rows: [task({ id: 't1', createdAt: '2024-12-15T00:00:00.000Z' })], next: 'c2' },
      ],
      pageParams: [undefined, 'c1'],
    });
    const sync = createCacheSync(client, 50);

    sync.apply('task.updated', task({ id: 't2', title: 'Renamed', createdAt: stamp }));
    sync.apply('task.created', task({ id: 't9', createdAt: '2025-02-01T00:00:00.000Z' }));
    sync.apply('task.created', task({ id: 't0', createdAt: older }));
    sync.apply('task.updated', task({ id: 't3', status: 'completed', createdAt: stamp }));

    const data = client.getQueryData<{ pages: { rows: Task[]; next?: string }[] }>(key)!;
    expect(data.pages.map((page) => page.rows.map((row) => row.id))).toEqual([['t9', 't2'], ['t1']]);
    expect(data.pages[0]!.rows[1]!.title).toBe('Renamed');
    expect(data.pages.at(-1)!.next).toBe('c2');
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

  it('puts started sessions in their place in the lists they match, with no refetch', () => {
    const client = createQueryClient();
    client.setQueryData(['/api/sessions', { active: 'true', limit: '3' }], [session({ startedAt: '2025-01-01T00:00:00.000Z' })]);
    client.setQueryData(['/api/sessions'], [session({ startedAt: '2025-01-01T00:00:00.000Z' })]);
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    const sync = createCacheSync(client, 50);

    sync.apply('session.started', session({ id: 's2', startedAt: '2025-01-01T00:01:00.000Z' }));
    sync.apply('session.started', session({ id: 's3', startedAt: '2025-01-01T00:02:00.000Z' }));
    sync.apply('session.started', session({ id: 's4', startedAt: '2025-01-01T00:03:00.000Z' }));
    sync.apply('session.updated', session({ id: 's3', startedAt: '2025-01-01T00:02:00.000Z', isActive: false }));

    const ids = (key: unknown[]) => client.getQueryData<Session[]>(key)?.map((row) => `${row.id}${row.isActive ? '' : ' (paused)'}`);
    expect(ids(['/api/sessions', { active: 'true', limit: '3' }])).toEqual(['s4', 's3 (paused)', 's2']);
    expect(ids(['/api/sessions'])).toEqual(['s4', 's3 (paused)', 's2', 's1']);
    expect(invalidate).not.toHaveBeenCalledWith(expect.objectContaining({ queryKey: ['/api/sessions'] }));
    sync.dispose();
  });

  it('drops an ended session from active lists, and refetches a full page that lost a row, once, later', async () => {
    const client = createQueryClient();
    client.setQueryData(['/api/sessions', { active: 'true', limit: '2' }], [session({ id: 's2' }), session()]);
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    const sync = createCacheSync(client, 50);

    sync.apply('session.ended', session({ isActive: false, endedAt: stamp }));
    expect(client.getQueryData<Session[]>(['/api/sessions', { active: 'true', limit: '2' }])?.map((row) => row.id)).toEqual(['s2']);
    expect(invalidate).not.toHaveBeenCalled();

    await vi.advanceTimersByTimeAsync(60);
    expect(invalidate).toHaveBeenCalledTimes(2); // the stale page, and the derived analytics
    sync.dispose();
  });

  it('refetches, coalesced, the lists whose filters the browser cannot decide', async () => {
    const client = createQueryClient();
    client.setQueryData(['/api/tasks', { from: '2025-01-01T00:00:00.000Z' }], [task()]);
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    const sync = createCacheSync(client, 50);

    sync.apply('task.updated', task({ title: 'Renamed' }));
    sync.apply('task.updated', task({ title: 'Renamed again' }));
    expect(client.getQueryData<Task[]>(['/api/tasks', { from: '2025-01-01T00:00:00.000Z' }])?.[0]?.title).toBe('Renamed again');

    await vi.advanceTimersByTimeAsync(60);
    const refetched = client
      .getQueryCache()
      .findAll()
      .filter((query) => invalidate.mock.calls.some(([filters]) => filters?.predicate?.(query)));
    expect(refetched.map((query) => query.queryKey)).toEqual([['/api/tasks', { from: '2025-01-01T00:00:00.000Z' }]]);
    sync.dispose();
  });

  it('takes pushed all-time stats as they are', () => {
    const client = createQueryClient();
    const stats: Stats = {
      activeSessions: 3,
      totalDevices: 10,
      onlineDevices: 7,
      completedTasks: 4,
      totalTasks: 9,
      totalSessionTime: 100,
      successRate: 44.4,
      avgSessionTime: 11,
      range: null,
    };
    const sync = createCacheSync(client, 50);

    sync.apply('stats.changed', stats);

    expect(client.getQueryData(['/api/analytics/stats'])).toEqual(stats);
    sync.dispose();
  });

  it('applies heartbeat pulses to every cached device list and item, at most every pulse interval', async () => {
    const client = createQueryClient();
    const other = device({ id: 'd2', name: 'Pixel 2', createdAt: '2025-01-02T00:00:00.000Z' });
    client.setQueryData(['/api/devices'], [device(), other]);
    client.setQueryData(['/api/devices', { limit: '4' }], [device()]);
    client.setQueryData(['/api/devices', 'd1'], device());
    const sync = createCacheSync(client, 50, 250);

    const later = '2025-01-01T00:00:05.000Z';
    sync.apply('devices.pulse', { devices: [{ id: 'd1', status: 'busy', battery: 64, lastActive: later }] });
    const all = client.getQueryData<Device[]>(['/api/devices']);
    expect(all?.[0]).toMatchObject({ id: 'd1', status: 'busy', battery: 64, lastActive: later, name: 'Pixel 1' });
    expect(all?.[1]).toBe(other);
    expect(client.getQueryData<Device[]>(['/api/devices', { limit: '4' }])?.[0]?.battery).toBe(64);
    expect(client.getQueryData<Device>(['/api/devices', 'd1'])?.status).toBe('busy');

    // A second pulse within the interval waits for it; the newest figure of each phone wins.
    sync.apply('devices.pulse', { devices: [{ id: 'd1', status: 'busy', battery: 63, lastActive: '2025-01-01T00:00:06.000Z' }] });
    sync.apply('devices.pulse', { devices: [{ id: 'd1', status: 'busy', battery: 62, lastActive: '2025-01-01T00:00:07.000Z' }] });
    expect(client.getQueryData<Device>(['/api/devices', 'd1'])?.battery).toBe(64);
    await vi.advanceTimersByTimeAsync(260);
    expect(client.getQueryData<Device>(['/api/devices', 'd1'])?.battery).toBe(62);
    sync.dispose();
  });

  it('moves pulsed phones between lists filtered by status', () => {
    const client = createQueryClient();
    const d2 = device({ id: 'd2', name: 'Pixel 2', status: 'offline', createdAt: '2025-01-02T00:00:00.000Z' });
    client.setQueryData(['/api/devices'], [device(), d2]);
    client.setQueryData(['/api/devices', { status: 'online' }], [device()]);
    client.setQueryData(['/api/devices', { status: 'offline' }], [d2]);
    const sync = createCacheSync(client, 50, 0);

    sync.apply('devices.pulse', {
      devices: [
        { id: 'd1', status: 'offline', battery: 80, lastActive: '2025-01-01T00:00:05.000Z' },
        { id: 'd2', status: 'online', battery: 90, lastActive: '2025-01-01T00:00:05.000Z' },
      ],
    });

    expect(client.getQueryData<Device[]>(['/api/devices', { status: 'online' }])?.map((row) => row.id)).toEqual(['d2']);
    expect(client.getQueryData<Device[]>(['/api/devices', { status: 'offline' }])?.map((row) => row.id)).toEqual(['d1']);
    sync.dispose();
  });

  it('ignores a pulse older than what a device row already shows', () => {
    const client = createQueryClient();
    client.setQueryData(['/api/devices'], [device({ lastActive: '2025-01-01T00:00:10.000Z', status: 'busy' })]);
    const sync = createCacheSync(client, 50, 0);

    sync.apply('devices.pulse', { devices: [{ id: 'd1', status: 'online', battery: 10, lastActive: '2025-01-01T00:00:05.000Z' }] });

    expect(client.getQueryData<Device[]>(['/api/devices'])?.[0]?.status).toBe('busy');
    sync.dispose();
  });

  it('appends a created device to lists that end with it, never past a full page', () => {
    const client = createQueryClient();
    client.setQueryData(['/api/devices'], [device()]);
    client.setQueryData(['/api/devices', { limit: '1' }], [device()]);
    const sync = createCacheSync(client, 50);

    sync.apply('device.created', device({ id: 'd2', createdAt: '2025-01-02T00:00:00.000Z' }));

    expect(client.getQueryData<Device[]>(['/api/devices'])?.map((row) => row.id)).toEqual(['d1', 'd2']);
    expect(client.getQueryData<Device[]>(['/api/devices', { limit: '1' }])?.map((row) => row.id)).toEqual(['d1']);
    sync.dispose();
  });

  it("keeps the signed-in person's task list (assignedToId=me) live from pushed assignments", () => {
    const client = createQueryClient();
    client.setQueryData(['/api/auth/me'], { user: { id: 'u1' } });
    client.setQueryData(['/api/tasks', { assignedToId: 'me' }], [task({ assignedToId: 'u1' })]);
    const sync = createCacheSync(client, 50);

    sync.apply('task.assigned', task({ id: 't2', title: 'Post a reel', assignedToId: 'u1', createdAt: '2025-01-02T00:00:00.000Z' }));
    expect(client.getQueryData<Task[]>(['/api/tasks', { assignedToId: 'me' }])?.map((row) => row.id)).toEqual(['t2', 't1']);

    sync.apply('task.updated', task({ id: 't2', status: 'in-progress', assignedToId: 'u1', createdAt: '2025-01-02T00:00:00.000Z' }));
    expect(client.getQueryData<Task[]>(['/api/tasks', { assignedToId: 'me' }])?.[0]?.status).toBe('in-progress');

    sync.apply('task.updated', task({ assignedToId: 'u9' }));
    expect(client.getQueryData<Task[]>(['/api/tasks', { assignedToId: 'me' }])?.map((row) => row.id)).toEqual(['t2']);
    sync.dispose();
  });

  it("puts a phone's new screenshot on top of its cached gallery", () => {
    const client = createQueryClient();
    const first: Screenshot = { id: 'x1', deviceId: 'd1', sessionId: null, url: '/api/objects/a', capturedAt: stamp };
    client.setQueryData(screenshotsKey('d1'), [first]);
    const sync = createCacheSync(client, 50);

    const shot = { deviceId: 'd1', sessionId: null, url: '/api/objects/b', capturedAt: '2025-01-01T00:00:15.000Z' };
    sync.apply('screenshot.added', shot);
    sync.apply('screenshot.added', shot);

    expect(client.getQueryData<Screenshot[]>(screenshotsKey('d1'))?.map((row) => row.url)).toEqual(['/api/objects/b', '/api/objects/a']);
    sync.dispose();
  });
  it('writes a pushed phone health into the grid, its details and its host’s panel, and reads a nudged panel again', async () => {
    const client = createQueryClient();
    const deviceId = '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b';
    const hostId = '7a0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b';
    const health: PhoneHealth = {
      deviceId,
      batteryLevel: 80,
      temperatureC: 31,
      batteryHealth: 'good',
      freeBytes: 9e9,
      totalBytes: 24e9,
      uptimeSeconds: 7200,
      androidVersion: '14',
      appVersions: {},
      unresponsiveReason: null,
      vitalsAt: stamp,
      healthAt: null,
      usbController: null,
      usbHub: null,
      usbPort: null,
    };
    client.setQueryData(['/api/devices/health'], [health]);
    client.setQueryData([`/api/devices/${deviceId}/health`], health);
    const fleet: HostFleet = { hostId, settings: undefined as never, usb: null, usbAt: null, phones: [{ ...health, name: 'Pixel 1', serial: 'S1' }] };
    client.setQueryData([`/api/hosts/${hostId}/fleet`], fleet);
    const sync = createCacheSync(client, 50);

    const hot = { ...health, temperatureC: 47.5, batteryHealth: 'overheat' as const, unresponsiveReason: 'No frame.' };
    sync.apply('device.health', hot);
    expect(client.getQueryData<PhoneHealth[]>(['/api/devices/health'])).toEqual([hot]);
    expect(client.getQueryData<PhoneHealth>([`/api/devices/${deviceId}/health`])).toEqual(hot);
    expect(client.getQueryData<HostFleet>([`/api/hosts/${hostId}/fleet`])?.phones).toEqual([{ ...hot, name: 'Pixel 1', serial: 'S1' }]);
    // A phone the grid had no row for joins it; a phone whose details were never read gets no entry.
    const other = { ...health, deviceId: '8b0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b' };
    sync.apply('device.health', other);
    expect(client.getQueryData<PhoneHealth[]>(['/api/devices/health'])).toHaveLength(2);
    expect(client.getQueryData([`/api/devices/${other.deviceId}/health`])).toBeUndefined();

    sync.apply('host.fleet', { hostId });
    expect(client.getQueryState([`/api/hosts/${hostId}/fleet`])?.isInvalidated).toBe(false);
    await vi.advanceTimersByTimeAsync(60);
    expect(client.getQueryState([`/api/hosts/${hostId}/fleet`])?.isInvalidated).toBe(true);
    sync.dispose();
  });
});

describe('mergeRows', () => {
  const byNumber = (a: { id: string }, b: { id: string }) => Number(a.id) - Number(b.id);
  const rows = (...ids: number[]) => ids.map((id) => ({ id: String(id) }));

  it('inserts in order, trims to the page, and skips rows past a full page', () => {
    expect(mergeRows(rows(1, 3), rows(2), () => true, byNumber, 3).rows.map((row) => row.id)).toEqual(['1', '2', '3']);
    expect(mergeRows(rows(1, 3, 5), rows(2), () => true, byNumber, 3).rows.map((row) => row.id)).toEqual(['1', '2', '3']);
    const full = rows(1, 3, 5);
    expect(mergeRows(full, rows(7), () => true, byNumber, 3).rows).toBe(full);
  });

  it('drops rows that stop matching, and calls a full page that lost one stale', () => {
    expect(mergeRows(rows(1, 2), rows(2), () => false, byNumber, 5)).toEqual({ rows: rows(1), stale: false });
    expect(mergeRows(rows(1, 2), rows(2), () => false, byNumber, 2)).toEqual({ rows: rows(1), stale: true });
  });

  it('patches in place but calls the list stale when a filter cannot be decided', () => {
    const patched = { id: '2', name: 'new' };
    const result = mergeRows<{ id: string; name?: string }>(rows(1, 2), [patched], () => undefined, byNumber, 5);
    expect(result.rows[1]).toBe(patched);
    expect(result.stale).toBe(true);
  });
});
