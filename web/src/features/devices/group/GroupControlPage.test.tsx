/** Devices → Group control: operators only; the phones of the address held, an action's summary and each phone's result. */
import { groupResult } from '@farm/agent-protocol/group';
import { act, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeSocket } from '../../../test/fake-socket';
import { buildMe, renderScreen, stubApi } from '../../../test/render';
import { useAuthStore } from '../../auth/auth.store';
import { GroupControlPage } from './GroupControlPage';

const live = vi.hoisted(() => ({ socket: null as unknown }));
vi.mock('../../../app/realtime/socket', async (original) => ({
  ...(await original<object>()),
  openLiveSocket: () => ({ socket: live.socket, close: () => undefined }),
}));

const path = '/devices/group-control?ids=a,b,c&leader=a';
const route = '/devices/group-control';

function phones(leaderId: string, ids: string[]) {
  return { leaderId, phones: ids.map((deviceId) => ({ deviceId, name: `Pixel ${deviceId.toUpperCase()}`, held: true, leader: deviceId === leaderId })) };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('Group control page', () => {
  it('tells a VA that group control is for operators', async () => {
    useAuthStore.getState().setUser(buildMe({ role: 'va' }));
    stubApi({});
    renderScreen(<GroupControlPage />, { path, route, role: 'va' });
    expect(await screen.findByText('Group control is for operators: ask an operator to drive phones together.')).toBeTruthy();
  });

  it('holds the phones of the address, sends Home and shows the summary and each phone’s result', async () => {
    useAuthStore.getState().setUser(buildMe());
    stubApi({ 'GET /api/groups': [], 'GET /api/apps': { versions: [], pins: [], maxUploadBytes: 1 } });
    const socket = new FakeSocket();
    live.socket = socket;
    socket.answer('live.watch', () => ({ ok: true, streaming: true, canControl: true }));
    socket.answer('live.group.start', (body) => ({ ok: true, ...phones('a', (body as { deviceIds: string[] }).deviceIds) }));
    socket.serverConnects();
    renderScreen(<GroupControlPage />, { path, route });

    expect(await screen.findByRole('heading', { level: 1, name: 'Group control' })).toBeTruthy();
    expect(
      screen.getByText(
        'Drive phones together for setup and navigation: Settings, the launcher, system dialogs and the Play Store’s settings. Apps with accounts are refused.',
      ),
    ).toBeTruthy();
    expect(await screen.findByText('3 of 3 phones held')).toBeTruthy();
    expect(socket.sent('live.group.start')).toEqual([{ deviceIds: ['a', 'b', 'c'], leaderId: 'a' }]);
    expect(screen.getByRole('heading', { level: 2, name: 'Pixel A' })).toBeTruthy();
    expect(screen.getAllByRole('article').map((tile) => tile.getAttribute('aria-label'))).toEqual(['Pixel B', 'Pixel C']);

    socket.answer('live.group.act', () => ({
      ok: true,
      actionId: 'x1',
      summary: 'Home: Done on 2, Different screen on 1',
      results: [
        { actionId: 'x1', deviceId: 'a', result: groupResult('x1', 'done') },
        { actionId: 'x1', deviceId: 'b', result: groupResult('x1', 'done') },
        { actionId: 'x1', deviceId: 'c', result: groupResult('x1', 'different_screen', { reason: 'It shows another app.' }) },
      ],
    }));
    fireEvent.click(within(screen.getByRole('group', { name: 'Phone buttons' })).getByRole('button', { name: 'Home' }));
    expect(socket.sent('live.group.act')).toEqual([{ action: { kind: 'key', key: 'home' } }]);
    const lines = await screen.findByRole('list', { name: 'Actions, newest first' });
    expect(within(lines).getByText('Home: Done on 2, Different screen on 1')).toBeTruthy();
    const tileC = screen.getByRole('article', { name: 'Pixel C' });
    expect(within(tileC).getAllByText('Different screen').length).toBeGreaterThan(0);
    expect(within(tileC).getByText(': It shows another app.')).toBeTruthy();
    expect(within(screen.getByRole('article', { name: 'Pixel B' })).getByText('Done')).toBeTruthy();

    // Retry goes to the one that missed; a refusal names its phone and says why.
    const why = 'Group control is for setup: Instagram is in front.';
    socket.answer('live.group.act', () => ({
      ok: true,
      actionId: 'x2',
      summary: 'Home: Refused on 1',
      results: [{ actionId: 'x2', deviceId: 'c', result: groupResult('x2', 'refused', { reason: why }) }],
    }));
    fireEvent.click(screen.getByRole('button', { name: 'Retry on the ones that missed (1)' }));
    expect(socket.sent('live.group.act')[1]).toEqual({ action: { kind: 'key', key: 'home' }, only: ['c'] });
    expect(await within(lines).findByText(`Pixel C: ${why}`)).toBeTruthy();
    expect(within(screen.getByRole('article', { name: 'Pixel C' })).getByText('Screen not compared yet')).toBeTruthy();

    // Drop moves a phone to Dropped; Stop all hands every phone back.
    socket.answer('live.group.drop', () => ({ ok: true, ...phones('a', ['a', 'b']) }));
    fireEvent.click(screen.getByRole('button', { name: 'Drop Pixel C' }));
    const dropped = await screen.findByRole('region', { name: 'Dropped' });
    expect(within(dropped).getByRole('button', { name: 'Add back: Pixel C' })).toBeTruthy();
    act(() => {
      fireEvent.click(screen.getByRole('button', { name: 'Stop all' }));
    });
    expect(socket.sent('live.group.stop')).toEqual([{}]);
    expect(await screen.findByText('Every phone was handed back; their tasks run again.')).toBeTruthy();
  });
});
