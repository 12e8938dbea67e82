import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeSocket } from '../../test/fake-socket';
import { retryDelay, watchConnection, type ConnectionState } from './connection';

function watch(socket: FakeSocket, online = { value: true }) {
  const states: ConnectionState[] = [];
  const onUnauthorized = vi.fn();
  const stop = watchConnection(socket as never, (state) => states.push(state), { onUnauthorized, isOnline: () => online.value });
  return { states, onUnauthorized, stop, last: () => states[states.length - 1] };
}

describe('watchConnection', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('goes connecting → live → reconnecting → live, remembering when the connection was lost', () => {
    const socket = new FakeSocket();
    const { states, last } = watch(socket);
    expect(last()).toEqual({ status: 'connecting', downSince: 1_000_000 });

    socket.serverConnects();
    expect(last()).toEqual({ status: 'live', downSince: null });

    vi.advanceTimersByTime(3000);
    socket.drops();
    expect(last()).toEqual({ status: 'reconnecting', downSince: 1_003_000 });
    socket.refused('websocket error', { byMiddleware: false });
    expect(states).toHaveLength(3);

    socket.serverConnects();
    expect(last()?.status).toBe('live');
  });

  it('retries a handshake the server refused for a passing reason, but not a refused sign-in', () => {
    const socket = new FakeSocket();
    const { last, onUnauthorized } = watch(socket);
    socket.connect();

    socket.refused('unavailable');
    expect(last()?.status).toBe('reconnecting');
    expect(socket.connectCalls).toBe(1);
    vi.advanceTimersByTime(retryDelay(0));
    expect(socket.connectCalls).toBe(2);

    socket.refused('unauthorized');
    expect(last()?.status).toBe('offline');
    expect(onUnauthorized).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(60_000);
    expect(socket.connectCalls).toBe(2);
  });

  it('tries again after the server closed the socket (a restart, a revoked link)', () => {
    const socket = new FakeSocket();
    watch(socket);
    socket.connect();
    socket.serverConnects();

    socket.drops('io server disconnect');
    vi.advanceTimersByTime(retryDelay(0));
    expect(socket.connectCalls).toBe(2);
  });

  it('reads offline while the browser has no network', () => {
    const socket = new FakeSocket();
    const online = { value: true };
    const { last } = watch(socket, online);
    socket.serverConnects();

    online.value = false;
    window.dispatchEvent(new Event('offline'));
    expect(last()?.status).toBe('offline');
    socket.drops();
    expect(last()?.status).toBe('offline');

    online.value = true;
    window.dispatchEvent(new Event('online'));
    expect(last()?.status).toBe('reconnecting');
  });

  it('stops listening when asked', () => {
    const socket = new FakeSocket();
    const { stop } = watch(socket);
    stop();
    expect(socket.listenerCount).toBe(0);
  });
});
