import { BATCH_EVENT, type WallSnapshot } from '@farm/contracts';
import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { FakeSocket } from '../../test/fake-socket';
import { deviceFixture } from '../../test/fixtures';
import { answer, renderRoutes, Route, stubApi } from '../../test/render';
import { WallPage } from './WallPage';

const sockets: FakeSocket[] = [];
const tokens: (string | null)[] = [];
vi.mock('./wall.socket', () => ({
  createWallSocket: (token: string | null) => {
    const socket = new FakeSocket();
    sockets.push(socket);
    tokens.push(token);
    return socket;
  },
}));

const stamp = '2025-01-01T00:00:00.000Z';
const snapshot: WallSnapshot = {
  workspaceName: 'North Farm',
  groups: [],
  groupId: null,
  tiles: [
    {
      id: 'a',
      name: 'Pixel 1',
      status: 'busy',
      battery: 64,
      lastActive: stamp,
      screenshotUrl: '/api/objects/s1',
      currentTask: 'Warm up',
      vaName: 'Maria Santos',
      controlledByName: null,
    },
    {
      id: 'b',
      name: 'Pixel 2',
      status: 'offline',
      battery: 12,
      lastActive: stamp,
      screenshotUrl: null,
      currentTask: null,
      vaName: null,
      controlledByName: null,
    },
  ],
};

describe('WallPage', () => {
  it('opens with a wall token: its own socket, every phone as a tile, images read with the token', async () => {
    const calls = stubApi({ 'GET /api/wall?token=tv-1': snapshot });
    renderRoutes(<Route path="/monitor/wall" element={<WallPage />} />, '/monitor/wall?token=tv-1');

    expect(await screen.findByRole('heading', { name: 'North Farm' })).toBeTruthy();
    expect(tokens.at(-1)).toBe('tv-1');
    const first = screen.getByRole('article', { name: /^Pixel 1: Busy, battery 64%, Warm up, VA Maria Santos/ });
    expect(first.querySelector('img')?.getAttribute('src')).toBe('/api/objects/s1?wall=tv-1');
    expect(screen.getByRole('article', { name: /^Pixel 2: Offline/ }).textContent).toContain('No screenshot yet');
    expect(calls.map((call) => call.url)).toEqual(['/api/wall?token=tv-1']);

    // A heartbeat and a new screenshot, sent together as one batch, change the tiles in place.
    const socket = sockets.at(-1);
    act(() => {
      socket?.push(BATCH_EVENT, {
        changes: [
          { event: 'devices.pulse', payload: { devices: [{ id: 'b', status: 'online', battery: 90, lastActive: '2025-01-01T00:00:05.000Z' }] } },
          { event: 'screenshot.added', payload: { deviceId: 'b', sessionId: null, url: '/api/objects/s2', capturedAt: '2025-01-01T00:00:05.000Z' } },
        ],
      });
    });
    const second = screen.getByRole('article', { name: /^Pixel 2: Online, battery 90%/ });
    expect(second.querySelector('img')?.getAttribute('src')).toBe('/api/objects/s2?wall=tv-1');
    expect(screen.getAllByRole('article').map((tile) => tile.getAttribute('aria-label')?.split(':')[0])).toEqual(['Pixel 1', 'Pixel 2']);
  });

  it('shows who is using a phone, and opens a tile full size', async () => {
    stubApi({ 'GET /api/wall': snapshot });
    renderRoutes(<Route path="/monitor/wall" element={<WallPage />} />, '/monitor/wall');
    expect(await screen.findByRole('heading', { name: 'North Farm' })).toBeTruthy();

    const socket = sockets.at(-1);
    act(() => {
      socket?.push(
        'device.updated',
        deviceFixture({ id: 'a', name: 'Pixel 1', status: 'busy', battery: 64, lastActive: stamp, controlledById: 'u2', controlledByName: 'Grace Hopper' }),
      );
    });
    const tile = screen.getByRole('article', { name: /^Pixel 1: .*, in use by Grace Hopper$/ });
    expect(tile.textContent).toContain('In use by Grace Hopper');

    fireEvent.click(screen.getByRole('button', { name: 'Open Pixel 1 full size' }));
    const large = await screen.findByRole('img', { name: 'Screenshot of Pixel 1, full size' });
    expect(large.getAttribute('src')).toBe('/api/objects/s1');
    expect(screen.getByRole('dialog', { name: 'Pixel 1' })).toBeTruthy();
  });

  it('says so when the wall link is revoked', async () => {
    stubApi({ 'GET /api/wall?token=gone': answer(401, { error: 'This wall link is invalid or was revoked' }) });
    renderRoutes(<Route path="/monitor/wall" element={<WallPage />} />, '/monitor/wall?token=gone');
    expect(await screen.findByText('This wall link is invalid or was revoked')).toBeTruthy();
  });
});
