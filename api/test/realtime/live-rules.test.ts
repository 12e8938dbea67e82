/**
 * Permissions that change end live controls and watches at once, on every instance: the change is made on A, the
 * live screens are open on B (two API instances sharing Redis), and again in one process (the in-process bus).
 * A VA whose phone is unassigned loses control; an operator demoted to VA loses control of a phone not theirs and
 * cannot take it again; ending a person's sessions disconnects their live sockets on the other instance.
 */
import type { FastifyInstance } from 'fastify';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInstance, buildTestApp, Client, people, type TestApp } from '../helpers/app.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { buildDevice } from '../helpers/factories.ts';
import { connected, listen, next } from './sockets.ts';

const redisUrl = process.env.REDIS_URL;

type Answer = { ok: boolean; [key: string]: unknown };
const ask = (socket: Socket, event: string, message: unknown) => new Promise<Answer>((resolve) => socket.emit(event, message, resolve));

function cut(socket: Socket, what: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: the live socket was not cut`)), timeoutMs);
    socket.once('disconnect', (reason) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}

function suite(name: string, options: { redis: boolean }) {
  describe(name, () => {
    let a: TestApp;
    let b: FastifyInstance;
    let urlB: string;
    const sockets: Socket[] = [];

    beforeAll(async () => {
      a = await buildTestApp(options.redis ? { redisUrl } : {});
      const urlA = await listen(a.app);
      // Without Redis the "other instance" is A itself: the in-process bus.
      // B keeps sessions it looked up for a long while: only the revocation it hears may drop them.
      b = options.redis ? await buildInstance(a.database, { ...a.config, redisUrl, readCacheMs: 30_000 }) : a.app;
      urlB = options.redis ? await listen(b) : urlA;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.disconnect();
      if (b !== a?.app) await b?.close();
      await a?.close();
    });

    async function live(client: Client): Promise<Socket> {
      const socket = io(`${urlB}/live`, { forceNew: true, transports: ['websocket'], reconnection: false, extraHeaders: { cookie: `sid=${client.cookie}` } });
      sockets.push(socket);
      await connected(socket);
      return socket;
    }

    it("ends a VA's control when their phone is unassigned, and refuses the next input", async () => {
      const { operator, va } = await people(a.app);
      const device = await buildDevice(operator, { name: 'Pixel reassigned', assignedToId: va.user!.id });
      const socket = await live(va);
      expect(await ask(socket, 'live.watch', { deviceId: device.id })).toMatchObject({ ok: true, canControl: true });
      expect(await ask(socket, 'live.control', { deviceId: device.id })).toEqual({ ok: true });

      const released = next<{ deviceId: string; reason: string }>(socket, 'live.released');
      expectStatus(await operator.patch(`/api/devices/${device.id}`, { assignedToId: null }), 200);
      expect(await released).toEqual({
        deviceId: device.id,
        reason: 'Your access changed: you can control only the phones assigned to you, and Pixel reassigned is not',
      });
      expect(await ask(socket, 'live.input', { deviceId: device.id, seq: 1, input: { kind: 'tap', x: 0.5, y: 0.5 } })).toEqual({
        ok: false,
        error: 'Take control of this phone first',
      });
      expect(await ask(socket, 'live.keep', { deviceId: device.id })).toMatchObject({ ok: false });
      // The phone is free again, and the usage session says why it ended.
      const phone = await operator.get<{ controlledById: string | null }>(`/api/devices/${device.id}`);
      expect(phone.body.controlledById).toBeNull();
      // Watching stays: any member may watch the workspace's phones.
      expect(socket.connected).toBe(true);
    });

    it('ends a demoted operator’s control at once, and they cannot take it again', async () => {
      const { operator, va } = await people(a.app);
      expectStatus(await operator.patch(`/api/users/${va.user!.id}`, { role: 'operator' }), 200);
      const device = await buildDevice(operator, { name: 'Pixel demoted' });
      const socket = await live(va);
      expect(await ask(socket, 'live.watch', { deviceId: device.id })).toMatchObject({ ok: true, canControl: true });
      expect(await ask(socket, 'live.control', { deviceId: device.id })).toEqual({ ok: true });

      const released = next<{ deviceId: string; reason: string }>(socket, 'live.released');
      expectStatus(await operator.patch(`/api/users/${va.user!.id}`, { role: 'va' }), 200);
      expect((await released).reason).toBe('Your access changed: you can control only the phones assigned to you, and Pixel demoted is not');
      // The socket knows its person is a VA now: control and take-over are refused.
      expect(await ask(socket, 'live.control', { deviceId: device.id, takeOver: true })).toEqual({
        ok: false,
        error: 'You can control only the phones assigned to you; Pixel demoted is not',
      });
    });

    it("ending a person's sessions disconnects their live sockets on the other instance", async () => {
      const { operator, va } = await people(a.app);
      const device = await buildDevice(operator, { name: 'Pixel ended', assignedToId: va.user!.id });
      const socket = await live(va);
      expect(await ask(socket, 'live.watch', { deviceId: device.id })).toMatchObject({ ok: true });
      expect(await ask(socket, 'live.control', { deviceId: device.id })).toEqual({ ok: true });
      const onB = new Client(b, va.cookie);
      expectStatus(await onB.get('/api/auth/me'), 200);
      const disconnected = cut(socket, 'ended sessions');
      expectStatus(await operator.delete(`/api/users/${va.user!.id}/sessions`), 204);
      expect(await disconnected).toBe('io server disconnect');
      // B no longer takes the ended session, though it had looked it up a moment ago.
      expectStatus(await onB.get('/api/auth/me'), 401);
      // Its control ended with it: the phone is free for the next person.
      const operatorSocket = await live(operator);
      expect(await ask(operatorSocket, 'live.watch', { deviceId: device.id })).toMatchObject({ ok: true });
      expect(await ask(operatorSocket, 'live.control', { deviceId: device.id })).toEqual({ ok: true });
    });
  });
}

suite('live rules in one process', { redis: false });
if (redisUrl) suite('live rules across two API instances on Redis', { redis: true });
