/** The console's one Socket.IO client, created on first use and kept out of React state and stores. */
import type { ServerToClientEvents } from '@farm/api/contracts';
import { io, type Socket } from 'socket.io-client';

export type ConsoleSocket = Socket<ServerToClientEvents, Record<string, never>>;

let socket: ConsoleSocket | undefined;

export function getSocket(): ConsoleSocket {
  // WebSocket only: no long-polling, so several API instances need no sticky sessions. Same origin,
  // so the session cookie authenticates the handshake (the dev server proxies /socket.io).
  socket ??= io({ path: '/socket.io', transports: ['websocket'], withCredentials: true, autoConnect: false });
  return socket;
}
