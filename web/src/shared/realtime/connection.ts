/**
 * The state of a Socket.IO connection as people should see it, for the console's socket and the wall's alike:
 * live, (re)connecting, or offline. It also keeps a socket trying after the cases Socket.IO gives up on
 * (a handshake the server refused for a passing reason, a server-side disconnect), except a refused sign-in.
 */
import type { Socket } from 'socket.io-client';

export type ConnectionStatus = 'connecting' | 'live' | 'reconnecting' | 'offline';

export interface ConnectionState {
  status: ConnectionStatus;
  /** When the connection was last lost (or first attempted); null while live. */
  downSince: number | null;
}

/** The handshake error the gateway answers when the cookie or wall token is not (or no longer) valid. */
export const UNAUTHORIZED = 'unauthorized';

/** Waits before retrying a handshake Socket.IO does not retry by itself: 1 s, 2 s, 4 s … up to 15 s. */
export function retryDelay(attempt: number): number {
  return Math.min(15_000, 1000 * 2 ** Math.max(0, attempt));
}

export interface WatchConnectionOptions {
  /** The server refused the handshake as unauthorized: no retry follows. */
  onUnauthorized?: () => void;
  now?: () => number;
  /** Whether the browser believes it has a network; navigator.onLine by default. */
  isOnline?: () => boolean;
}

type AnySocket = Pick<Socket, 'connected' | 'active' | 'connect' | 'on' | 'off'>;

export function initialConnectionState(socket: Pick<Socket, 'connected'>, now = Date.now()): ConnectionState {
  return socket.connected ? { status: 'live', downSince: null } : { status: 'connecting', downSince: now };
}

/**
 * Reports every change of the socket's connection state. Returns the function that stops watching
 * (it does not disconnect the socket).
 */
export function watchConnection(socket: AnySocket, report: (state: ConnectionState) => void, options: WatchConnectionOptions = {}): () => void {
  const now = options.now ?? Date.now;
  const isOnline = options.isOnline ?? (() => typeof navigator === 'undefined' || navigator.onLine !== false);
  let state = initialConnectionState(socket, now());
  let attempt = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const set = (wanted: ConnectionStatus) => {
    const status: ConnectionStatus = wanted !== 'live' && !isOnline() ? 'offline' : wanted;
    if (status === state.status) return;
    state = { status, downSince: status === 'live' ? null : (state.downSince ?? now()) };
    report(state);
  };

  const retryLater = () => {
    if (retryTimer !== undefined) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      if (!socket.connected && !socket.active) socket.connect();
    }, retryDelay(attempt++));
  };

  const onConnect = () => {
    attempt = 0;
    clearTimeout(retryTimer);
    retryTimer = undefined;
    set('live');
  };
  const onDisconnect = (reason: string) => {
    if (reason === 'io client disconnect') return;
    set(socket.active ? 'reconnecting' : 'offline');
    // The server closed the socket on purpose (a revoked link or session, a restart): try again, and let
    // the handshake decide whether this browser may come back.
    if (!socket.active) retryLater();
  };
  const onConnectError = (error: Error) => {
    if (socket.active) {
      set('reconnecting');
      return;
    }
    if (error.message === UNAUTHORIZED) {
      set('offline');
      options.onUnauthorized?.();
      return;
    }
    set('reconnecting');
    retryLater();
  };
  const onOffline = () => set('offline');
  const onOnline = () => {
    if (socket.connected) {
      set('live');
      return;
    }
    set('reconnecting');
    if (!socket.active) socket.connect();
  };

  socket.on('connect', onConnect);
  socket.on('disconnect', onDisconnect);
  socket.on('connect_error', onConnectError);
  const hasWindow = typeof window !== 'undefined';
  if (hasWindow) {
    window.addEventListener('offline', onOffline);
    window.addEventListener('online', onOnline);
  }
  report(state);

  return () => {
    clearTimeout(retryTimer);
    socket.off('connect', onConnect);
    socket.off('disconnect', onDisconnect);
    socket.off('connect_error', onConnectError);
    if (hasWindow) {
      window.removeEventListener('offline', onOffline);
      window.removeEventListener('online', onOnline);
    }
  };
}
