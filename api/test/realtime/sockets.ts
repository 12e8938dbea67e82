/** Browser-like Socket.IO clients against a listening app, signed in through the real HTTP routes. */
import type { AddressInfo } from 'node:net';
import { io, type Socket } from 'socket.io-client';
import type { FastifyInstance } from 'fastify';
import type { Client } from '../helpers/app.ts';
import { eachServerEvent } from '@farm/contracts';

export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export function connect(url: string, client?: Client): Socket {
  return io(url, {
    // Each test client gets its own connection: a shared one would carry another client's cookie.
    forceNew: true,
    transports: ['websocket'],
    reconnectionDelay: 50,
    reconnectionDelayMax: 200,
    ...(client?.cookie ? { extraHeaders: { cookie: `sid=${client.cookie}` } } : {}),
  });
}

export function connected(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.connected) return resolve();
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
}

/** Everything a socket receives, by event name, to assert on later. */
export function record(socket: Socket): Map<string, unknown[]> {
  const seen = new Map<string, unknown[]>();
  socket.onAny((name: string, message: unknown) =>
    eachServerEvent(name, message, (event, payload) => {
      seen.set(event, [...(seen.get(event) ?? []), payload]);
    }),
  );
  return seen;
}

/** The next event of this name, alone or in a batch. */
export function next<T = unknown>(socket: Socket, event: string, timeoutMs = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    let found = false;
    const listener = (name: string, message: unknown) =>
      eachServerEvent(name, message, (each, payload) => {
        if (found || each !== event) return;
        found = true;
        clearTimeout(timer);
        socket.offAny(listener);
        resolve(payload as T);
      });
    const timer = setTimeout(() => {
      socket.offAny(listener);
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.onAny(listener);
  });
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
