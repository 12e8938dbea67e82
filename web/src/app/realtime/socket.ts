/**
 * The console's Socket.IO clients, created on first use and kept out of React state and stores: the console's
 * own socket, and the live screen's on the `/live` namespace, which is open only while a Live view is.
 */
import type { LiveClientToServer, LiveServerToClient, ServerToClientEvents } from '@farm/contracts';
import { io, type Socket } from 'socket.io-client';

export type ConsoleSocket = Socket<ServerToClientEvents, Record<string, never>>;
export type LiveSocket = Socket<LiveServerToClient, LiveClientToServer>;

let socket: ConsoleSocket | undefined;
let liveSocket: LiveSocket | undefined;
let liveViews = 0;

export function getSocket(): ConsoleSocket {
  // WebSocket only: no long-polling, so several API instances need no sticky sessions. Same origin,
  // so the session cookie authenticates the handshake (the dev server proxies /socket.io).
  socket ??= io({ path: '/socket.io', transports: ['websocket'], withCredentials: true, autoConnect: false });
  return socket;
}

/** The live screen's socket: same server, path and session cookie as the console's, namespace `/live`. */
export function getLiveSocket(): LiveSocket {
  liveSocket ??= io('/live', { path: '/socket.io', transports: ['websocket'], withCredentials: true, autoConnect: false });
  return liveSocket;
}

/**
 * One more Live view is open: connects the live socket if it is not. The returned function closes this view's
 * hold, and the socket with the last one, so frames flow only while someone is looking.
 */
export function openLiveSocket(): { socket: LiveSocket; close: () => void } {
  const live = getLiveSocket();
  liveViews += 1;
  if (!live.connected && !live.active) live.connect();
  let closed = false;
  return {
    socket: live,
    close: () => {
      if (closed) return;
      closed = true;
      liveViews -= 1;
      if (liveViews === 0) live.disconnect();
    },
  };
}
