import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { getLiveSocket } from '../../../app/realtime/socket';
import type { FakeSocket } from '../../../test/fake-socket';
import { deviceFixture } from '../../../test/fixtures';
import { buildMe, renderRoutes, Route, stubApi } from '../../../test/render';
import { DeviceDetailsModal } from './DeviceDetailsModal';

vi.mock('socket.io-client', async () => {
  const { FakeSocket } = await import('../../../test/fake-socket');
  return { io: () => new FakeSocket() };
});

const live = getLiveSocket() as unknown as FakeSocket;

describe('DeviceDetailsModal', () => {
  it('shows who is using the phone, and watches its screen only while the Live tab is open', async () => {
    stubApi({ 'GET /api/auth/me': { user: buildMe() } });
    live.answer('live.watch', () => ({ ok: true, streaming: true, canControl: true }));
    const device = deviceFixture({ id: 'd1', name: 'Pixel 7 #04', controlledById: 'u2', controlledByName: 'Grace Hopper' });
    renderRoutes(<Route path="/" element={<DeviceDetailsModal device={device} canManage={false} onClose={() => undefined} />} />);

    expect(screen.getByText('In use by Grace Hopper')).toBeTruthy();
    expect(screen.getByRole('region', { name: 'Hands-on use' })).toBeTruthy();
    expect(live.active).toBe(false);

    fireEvent.click(screen.getByRole('tab', { name: 'Live' }));
    expect(live.active).toBe(true);
    act(() => live.serverConnects());
    expect(live.sent('live.watch')).toEqual([{ deviceId: 'd1' }]);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Ask to take over' })).toBeTruthy());

    fireEvent.click(screen.getByRole('tab', { name: 'Details' }));
    expect(live.sent('live.unwatch')).toEqual([{ deviceId: 'd1' }]);
    expect(live.active).toBe(false);
  });
});
