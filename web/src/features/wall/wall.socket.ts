/**
 * The wall's own Socket.IO client, separate from the console's: with a wall link it authenticates by the
 * link's token (and hears only phone, session and screenshot events); without one, by the session cookie.
 */
import type { ServerToClientEvents } from '@farm/contracts';
import { io, type Socket } from 'socket.io-client';

export type WallSocket = Socket<ServerToClientEvents, Record<string, never>>;

export function createWallSocket(token: string | null): WallSocket {
  return io({
    path: '/socket.io',
    transports: ['websocket'],
    withCredentials: true,
    autoConnect: false,
    // Never share the console's connection (a TV has none; a signed-in wall must not take over the console's).
    forceNew: true,
    ...(token ? { auth: { wallToken: token } } : {}),
  });
}
