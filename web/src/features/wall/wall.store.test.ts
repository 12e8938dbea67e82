import type { Device, WallSnapshot, WallTile } from '@farm/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../shared/api';
import { FakeSocket } from '../../test/fake-socket';
import { startWallFeed, type WallFeedSocket } from './wall.events';
import { createWallStore, initialWallState, vaMayHaveChanged, withDevice, withPulse, withSnapshot, type WallState } from './wall.store';
import { deviceFixture } from '../../test/fixtures';

const stamp = '2025-01-01T00:00:00.000Z';
const later = '2025-01-01T00:00:09.000Z';

function tile(id: string, overrides: Partial<WallTile> = {}): WallTile {
  return {
    id,
    name: `Pixel ${id}`,
    status: 'online',
    battery: 80,
    lastActive: stamp,
    screenshotUrl: null,
    currentTask: null,
    vaName: null,
    controlledByName: null,
    ...overrides,
  };
}
const device = (id: string, overrides: Partial<Device> = {}): Device =>
  deviceFixture({ id, name: `Pixel ${id}`, lastActive: stamp, lastSeenAt: stamp, createdAt: stamp, updatedAt: stamp, ...overrides });
function snapshot(...tiles: WallTile[]): WallSnapshot {
  return { workspaceName: 'North Farm', tiles, groups: [], groupId: null };
}
function ready(...tiles: WallTile[]): WallState {
  return { ...initialWallState(), ...withSnapshot(initialWallState(), snapshot(...tiles)) };
}

describe('wall store transitions', () => {
  it('keeps every tile where it was when a later snapshot comes in another order; new phones append', () => {
    const state = ready(tile('a'), tile('b'), tile('c'));
    const next = withSnapshot(state, snapshot(tile('c'), tile('d'), tile('a'), tile('b')));
    expect(next.order).toEqual(['a', 'b', 'c', 'd']);

    const without = withSnapshot({ ...state, ...next }, snapshot(tile('d'), tile('a'), tile('c')));
    expect(without.order).toEqual(['a', 'c', 'd']);
  });

  it('patches status and battery from a pulse, leaving other tiles as they were', () => {
    const state = ready(tile('a'), tile('b'));
    const patch = withPulse(state, [
      { id: 'a', status: 'busy', battery: 41, lastActive: later },
      { id: 'zz', status: 'online', battery: 1, lastActive: later },
    ]);
    expect(patch?.tiles?.a).toMatchObject({ status: 'busy', battery: 41, lastActive: later, name: 'Pixel a' });
    expect(patch?.tiles?.b).toBe(state.tiles.b);
    expect(withPulse(state, [{ id: 'b', status: 'online', battery: 80, lastActive: stamp }])).toBeNull();
  });

  it('keeps a heartbeat newer than a snapshot that raced it', () => {
    const state = { ...ready(tile('a')), ...withPulse(ready(tile('a')), [{ id: 'a', status: 'busy', battery: 41, lastActive: later }]) };
    const next = withSnapshot(state, snapshot(tile('a', { vaName: 'Maria' })));
    expect(next.tiles?.a).toMatchObject({ status: 'busy', battery: 41, vaName: 'Maria' });
  });

  it('shows who controls a phone from device events, kept across a snapshot that does not name it', () => {
    const state = ready(tile('a'));
    const controlled = { ...state, ...withDevice(state, device('a', { controlledById: 'u2', controlledByName: 'Grace Hopper' })) };
    expect(controlled.tiles.a).toMatchObject({ controlledByName: 'Grace Hopper' });
    expect(withSnapshot(controlled, snapshot(tile('a', { vaName: 'Maria', controlledByName: 'Grace Hopper' }))).tiles?.a).toMatchObject({
      vaName: 'Maria',
      controlledByName: 'Grace Hopper',
    });
    const released = { ...controlled, ...withDevice(controlled, device('a')) };
    expect(released.tiles.a?.controlledByName).toBeNull();
  });

  it('appends a created phone and tells when a device event may have changed the VA', () => {
    const state = ready(tile('a', { vaName: 'Maria' }));
    expect(withDevice(state, device('n'))?.order).toEqual(['a', 'n']);
    expect(vaMayHaveChanged(state, device('a', { assignedToId: 'u1' }))).toBe(false);
    expect(vaMayHaveChanged(state, device('a', { assignedToId: null }))).toBe(true);
    const known = { ...state, ...withDevice(state, device('a', { assignedToId: 'u1' })) };
    expect(vaMayHaveChanged(known, device('a', { assignedToId: 'u2' }))).toBe(true);
    expect(vaMayHaveChanged(known, device('a', { assignedToId: 'u1' }))).toBe(false);
  });
});

describe('startWallFeed', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function start(fetchSnapshot: () => Promise<WallSnapshot>) {
    const store = createWallStore();
    const socket = new FakeSocket();
    const onUnauthorized = vi.fn();
    const fetch = vi.fn(fetchSnapshot);
    const stop = startWallFeed({ store, socket: socket as unknown as WallFeedSocket, fetchSnapshot: fetch, onUnauthorized, snapshotDelayMs: 100 });
    return { store, socket, fetch, onUnauthorized, stop };
  }

  it('loads the snapshot, then patches tiles from pushed events', async () => {
    const { store, socket, stop } = start(async () => snapshot(tile('a'), tile('b')));
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState()).toMatchObject({ load: 'ready', workspaceName: 'North Farm', order: ['a', 'b'] });

    socket.push('devices.pulse', { devices: [{ id: 'b', status: 'offline', battery: 12, lastActive: later }] });
    socket.push('screenshot.added', { deviceId: 'a', sessionId: null, url: '/api/objects/shot-1', capturedAt: later });
    socket.push('device.created', device('c'));
    socket.push('device.deleted', { id: 'a' });
    socket.push('device.updated', { id: 'b', battery: 'lots' });

    const state = store.getState();
    expect(state.order).toEqual(['b', 'c']);
    expect(state.tiles.b).toMatchObject({ status: 'offline', battery: 12 });
    stop();
  });

  it("shows a phone's new screenshot", async () => {
    const { store, socket, stop } = start(async () => snapshot(tile('a')));
    await vi.advanceTimersByTimeAsync(0);
    socket.push('screenshot.added', { deviceId: 'a', sessionId: null, url: '/api/objects/shot-2', capturedAt: later });
    expect(store.getState().tiles.a?.screenshotUrl).toBe('/api/objects/shot-2');
    stop();
  });

  it('takes one fresh snapshot for a burst of session starts and ends', async () => {
    const { socket, fetch, stop } = start(async () => snapshot(tile('a')));
    await vi.advanceTimersByTimeAsync(0);
    expect(fetch).toHaveBeenCalledTimes(1);

    socket.push('session.started', {
      id: 's1',
      deviceId: 'a',
      vaId: null,
      taskId: null,
      currentTask: 'Warm up',
      duration: 0,
      screenshots: 0,
      isActive: true,
      startedAt: later,
      endedAt: null,
    });
    socket.push('session.ended', {
      id: 's0',
      deviceId: 'a',
      vaId: null,
      taskId: null,
      currentTask: null,
      duration: 9,
      screenshots: 0,
      isActive: false,
      startedAt: stamp,
      endedAt: later,
    });
    await vi.advanceTimersByTimeAsync(150);
    expect(fetch).toHaveBeenCalledTimes(2);
    stop();
  });

  it('recovers by itself: retries a failed snapshot, and refetches after a reconnect that did not recover', async () => {
    let fail = true;
    const { store, socket, fetch, stop } = start(async () => {
      if (fail) throw new TypeError('Failed to fetch');
      return snapshot(tile('a'));
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().load).toBe('loading');
    fail = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.getState().load).toBe('ready');

    socket.serverConnects();
    socket.drops();
    expect(store.getState().connection.status).toBe('reconnecting');
    const before = fetch.mock.calls.length;
    socket.serverConnects({ recovered: true });
    expect(fetch).toHaveBeenCalledTimes(before);
    socket.drops();
    socket.serverConnects({ recovered: false });
    expect(fetch).toHaveBeenCalledTimes(before + 1);
    expect(store.getState().connection.status).toBe('live');
    stop();
  });

  it('says so when the wall link is revoked', async () => {
    let revoked = false;
    const { store, socket, onUnauthorized, stop } = start(async () => {
      if (revoked) throw new ApiError(401, '{"error":"This wall link is invalid or was revoked"}');
      return snapshot(tile('a'));
    });
    await vi.advanceTimersByTimeAsync(0);
    socket.connect();
    socket.serverConnects();

    revoked = true;
    socket.drops('io server disconnect');
    await vi.advanceTimersByTimeAsync(1000);
    socket.refused('unauthorized');
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().load).toBe('unauthorized');
    expect(onUnauthorized).toHaveBeenCalledOnce();
    stop();
  });

  it('closes its socket and listeners when stopped', async () => {
    const { socket, stop } = start(async () => snapshot());
    await vi.advanceTimersByTimeAsync(0);
    stop();
    expect(socket.listenerCount).toBe(0);
    expect(socket.active).toBe(false);
  });

  it('on a wall of one group, patches its phones and leaves out phones not in it until a snapshot says they joined', () => {
    const group = { id: 'g1', name: 'Rack A', kind: 'group' as const, phones: 1 };
    const state = { ...initialWallState(), ...withSnapshot(initialWallState(), { ...snapshot(tile('a')), groups: [group], groupId: 'g1' }) };
    expect(state).toMatchObject({ groupId: 'g1', groups: [group] });
    expect(withDevice(state, device('n'))).toBeNull();
    expect(withDevice(state, device('a', { name: 'Renamed' }))?.tiles?.a?.name).toBe('Renamed');
    const joined = { ...state, ...withSnapshot(state, { ...snapshot(tile('a'), tile('n')), groups: [{ ...group, phones: 2 }], groupId: 'g1' }) };
    expect(joined.order).toEqual(['a', 'n']);
  });
});
