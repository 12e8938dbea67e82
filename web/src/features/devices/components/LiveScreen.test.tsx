import type { Device, Me } from '@farm/contracts';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AppProviders } from '../../../app/providers';
import { getLiveSocket } from '../../../app/realtime/socket';
import { ME_KEY } from '../../auth/auth.api';
import { createQueryClient } from '../../../shared/api';
import type { FakeSocket } from '../../../test/fake-socket';
import { deviceFixture } from '../../../test/fixtures';
import { buildMe, stubApi } from '../../../test/render';
import { LiveScreen } from './LiveScreen';

vi.mock('socket.io-client', async () => {
  const { FakeSocket } = await import('../../../test/fake-socket');
  return { io: () => new FakeSocket() };
});

const live = getLiveSocket() as unknown as FakeSocket;
const phone = (overrides: Partial<Device> = {}) => deviceFixture({ id: 'd1', name: 'Pixel 7 #04', ...overrides });
const stamp = '2026-03-01T10:00:00.000Z';

function frame(seq: number, overrides: Record<string, unknown> = {}) {
  return { deviceId: 'd1', seq, width: 720, height: 1600, source: 'minicap', capturedAt: stamp, data: new Uint8Array([0xff, 0xd8, seq]), ...overrides };
}

interface Setup {
  me?: Me;
  device?: Device;
  watch?: unknown;
}

async function open({ me = buildMe(), device = phone(), watch = { ok: true, streaming: true, canControl: true } }: Setup = {}) {
  stubApi({ 'GET /api/auth/me': { user: me } });
  live.answer('live.watch', () => watch);
  live.answer('live.input', () => ({ ok: true, latencyMs: 84 }));
  live.answer('live.control', () => ({ ok: true }));
  live.answer('live.keep', () => ({ ok: true }));
  live.answer('live.release', () => ({ ok: true }));
  const queryClient = createQueryClient();
  const tree = (shown: Device) => (
    <MemoryRouter>
      <AppProviders queryClient={queryClient} env="test">
        <LiveScreen device={shown} />
      </AppProviders>
    </MemoryRouter>
  );
  const view = render(tree(device));
  act(() => live.serverConnects());
  // The signed-in person is known once /me answers.
  await waitFor(() => expect(queryClient.getQueryData(ME_KEY)).toBeDefined());
  return { ...view, rerenderWith: (next: Device) => view.rerender(tree(next)) };
}

/**
 * Pushes a frame; returns its ack, the screen (the element that takes input, named for the phone) and the picture in
 * it (the JPEG, which loads).
 */
function showFrame(seq: number, overrides: Record<string, unknown> = {}) {
  const ack = vi.fn();
  act(() => live.push('live.frame', frame(seq, overrides), ack));
  const screenElement = screen.getByRole('img', { name: 'Live screen of Pixel 7 #04' });
  const image = screenElement.querySelector('img') as HTMLImageElement;
  vi.spyOn(screenElement, 'getBoundingClientRect').mockReturnValue({
    left: 100,
    top: 50,
    width: 200,
    height: 400,
    right: 300,
    bottom: 450,
    x: 100,
    y: 50,
    toJSON: () => ({}),
  });
  return { ack, image, screen: screenElement };
}

let urls = 0;
beforeEach(() => {
  urls = 0;
  live.emitted.length = 0;
  Object.defineProperty(URL, 'createObjectURL', { configurable: true, writable: true, value: vi.fn(() => `blob:frame-${++urls}`) });
  Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, writable: true, value: vi.fn() });
});

describe('LiveScreen', () => {
  it('watches the phone, draws each frame and acknowledges it only once it is on screen', async () => {
    const view = await open();
    expect(live.sent('live.watch')).toEqual([{ deviceId: 'd1' }]);
    expect(screen.getByText('Waiting for the screen...')).toBeTruthy();

    const { ack, image } = showFrame(1);
    expect(image.getAttribute('src')).toBe('blob:frame-1');
    expect(ack).not.toHaveBeenCalled();
    fireEvent.load(image);
    expect(ack).toHaveBeenCalledTimes(1);
    expect(screen.getByText('JPEG (minicap)')).toBeTruthy();
    expect(screen.getByText('1 fps')).toBeTruthy();

    // The next frame replaces it; the one before is let go once the new one is drawn.
    const second = showFrame(2);
    expect(second.image.getAttribute('src')).toBe('blob:frame-2');
    fireEvent.load(second.image);
    expect(second.ack).toHaveBeenCalledTimes(1);
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:frame-1');

    // Another phone's frames are not this view's.
    const other = vi.fn();
    act(() => live.push('live.frame', frame(3, { deviceId: 'd2' }), other));
    expect(screen.getByRole('img', { name: 'Live screen of Pixel 7 #04' }).querySelector('img')?.getAttribute('src')).toBe('blob:frame-2');

    // Closing the view stops watching and, as the last Live view, closes the live socket.
    view.unmount();
    expect(live.sent('live.unwatch')).toEqual([{ deviceId: 'd1' }]);
    expect(live.active).toBe(false);
  });

  it('watches again after the live socket reconnects, and shows why there is no picture', async () => {
    await open();
    const { image } = showFrame(1);
    fireEvent.load(image);

    act(() => live.push('live.status', { deviceId: 'd1', streaming: false, reason: 'The phone is offline' }));
    expect(screen.getByText('The phone is offline')).toBeTruthy();
    // The last frame stays, dimmed.
    expect(screen.getByRole('img', { name: 'Live screen of Pixel 7 #04' }).style.opacity).toBe('0.35');

    act(() => live.drops());
    expect(screen.getByText('Connection lost. Reconnecting...')).toBeTruthy();
    act(() => live.serverConnects());
    expect(live.sent('live.watch')).toHaveLength(2);
  });

  it('sends a tap at the click as fractions of the picture while in control, and shows the input latency', async () => {
    await open({ device: phone({ controlledById: 'u1', controlledByName: 'Ada Lovelace' }) });
    const { image, screen: surface } = showFrame(1);
    fireEvent.load(image);

    fireEvent.mouseDown(surface, { button: 0, clientX: 150, clientY: 150 });
    fireEvent.mouseUp(surface, { button: 0, clientX: 150, clientY: 150 });
    expect(live.sent('live.input')).toEqual([{ deviceId: 'd1', seq: 1, input: { kind: 'tap', x: 0.25, y: 0.25 } }]);
    // The figure shown is the relay's share: from the input to the first picture the phone sent after applying it.
    expect(screen.queryByText(/^Input relay \d+ ms$/)).toBeNull();
    const after = showFrame(2, { inputSeq: 1 });
    fireEvent.load(after.image);
    expect(screen.getByText(/^Input relay \d+ ms$/).getAttribute('title')).toMatch(/^From your input leaving this browser .* not counted\.$/);

    // A drag is a swipe from where it started to where it ended.
    fireEvent.mouseDown(surface, { button: 0, clientX: 200, clientY: 400 });
    fireEvent.mouseUp(surface, { button: 0, clientX: 200, clientY: 130 });
    expect(live.sent('live.input')[1]).toMatchObject({ seq: 2, input: { kind: 'swipe', from: { x: 0.5, y: 0.875 }, to: { x: 0.5, y: 0.2 } } });

    // Enter and Backspace are keys; what was typed before them goes first.
    fireEvent.keyDown(surface, { key: 'h' });
    fireEvent.keyDown(surface, { key: 'i' });
    fireEvent.keyDown(surface, { key: 'Enter' });
    expect(live.sent('live.input').slice(2)).toEqual([
      { deviceId: 'd1', seq: 3, input: { kind: 'text', text: 'hi' } },
      { deviceId: 'd1', seq: 4, input: { kind: 'key', key: 'enter' } },
    ]);

    fireEvent.click(screen.getByRole('button', { name: 'Home' }));
    fireEvent.click(screen.getByRole('button', { name: 'Rotate' }));
    expect(
      live
        .sent('live.input')
        .slice(4)
        .map((sent) => (sent as { input: unknown }).input),
    ).toEqual([{ kind: 'key', key: 'home' }, { kind: 'rotate' }]);

    fireEvent.click(screen.getByRole('button', { name: 'Hand back' }));
    expect(live.sent('live.release')).toEqual([{ deviceId: 'd1' }]);
    expect(screen.getByText('Nobody is in control')).toBeTruthy();
  });

  it('ignores clicks when the person is not in control, and offers Take control', async () => {
    const view = await open();
    const { image, screen: surface } = showFrame(1);
    fireEvent.load(image);

    fireEvent.mouseDown(surface, { button: 0, clientX: 150, clientY: 150 });
    fireEvent.mouseUp(surface, { button: 0, clientX: 150, clientY: 150 });
    fireEvent.keyDown(surface, { key: 'a' });
    expect(live.sent('live.input')).toEqual([]);
    expect(screen.queryByRole('button', { name: 'Home' })).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Take control' }));
    expect(live.sent('live.control')).toEqual([{ deviceId: 'd1' }]);
    expect(screen.getByText('You are in control')).toBeTruthy();

    // The device row catches up, then someone else takes the phone over.
    view.rerenderWith(phone({ controlledById: 'u1', controlledByName: 'Ada Lovelace' }));
    view.rerenderWith(phone({ controlledById: 'u2', controlledByName: 'Grace Hopper' }));
    expect(screen.getByText('In use by Grace Hopper')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Take over' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Ask to take over' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Take over' }));
    expect(live.sent('live.control').at(-1)).toEqual({ deviceId: 'd1', takeOver: true });
  });

  it('lets a VA ask to take over but not take it, and hides control from people the server refuses it', async () => {
    const view = await open({ me: buildMe({ id: 'u3', role: 'va' }), device: phone({ controlledById: 'u2', controlledByName: 'Grace Hopper' }) });
    expect(screen.getByRole('button', { name: 'Ask to take over' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Take over' })).toBeNull();
    view.unmount();

    await open({ watch: { ok: true, streaming: true, canControl: false } });
    expect(screen.queryByRole('button', { name: 'Take control' })).toBeNull();
  });

  it('asks "Still using" the phone before it is released, and Keep control keeps it', async () => {
    await open({ device: phone({ controlledById: 'u1', controlledByName: 'Ada Lovelace' }) });
    act(() => live.push('live.idle', { deviceId: 'd1', deviceName: 'Pixel 7 #04', releaseInMs: 30_000 }));
    expect(screen.getByText('Still using Pixel 7 #04?')).toBeTruthy();
    expect(screen.getByText('The phone is handed back in 30 s so its tasks can run again.')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Keep control' }));
    expect(live.sent('live.keep')).toEqual([{ deviceId: 'd1' }]);
    expect(screen.queryByText('Still using Pixel 7 #04?')).toBeNull();
  });

  it('offers to hand over to the person who asks', async () => {
    await open({ device: phone({ controlledById: 'u1', controlledByName: 'Ada Lovelace' }) });
    live.answer('live.handover', () => ({ ok: true }));
    act(() => live.push('live.asked', { deviceId: 'd1', userId: 'u3', name: 'Maria Santos' }));
    expect(screen.getByText('Maria Santos asks to take over')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Hand over' }));
    expect(live.sent('live.handover')).toEqual([{ deviceId: 'd1', userId: 'u3' }]);
    expect(screen.getByText('In use by Maria Santos')).toBeTruthy();
  });

  it('shows the refusal as the server words it', async () => {
    await open({ watch: { ok: false, error: 'You may not watch this phone' } });
    expect(screen.getByText('You may not watch this phone')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Take control' })).toBeNull();
  });
});
