/** Two API instances sharing Redis: a change made through one reaches browsers connected to the other. */
import type { FastifyInstance } from 'fastify';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInstance, buildTestApp, Client, people, type TestApp } from '../helpers/app.ts';
import { buildDevice, buildTask } from '../helpers/factories.ts';
import { connect, connected, listen, next, pause, record } from './sockets.ts';

const redisUrl = process.env.REDIS_URL;

describe.runIf(redisUrl)('realtime across two API instances on Redis', () => {
  let a: TestApp;
  let b: FastifyInstance;
  let urlB: string;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    a = await buildTestApp({ redisUrl });
    await listen(a.app);
    b = await buildInstance(a.database, { ...a.config, redisUrl });
    urlB = await listen(b);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.disconnect();
    await b?.close();
    await a?.close();
  });

  it('relays a change made on A to a browser on B, and to that workspace only', async () => {
    const { operator, va, stranger } = await people(a.app);
    const onB = connect(urlB, new Client(b, operator.cookie));
    const vaOnB = connect(urlB, new Client(b, va.cookie));
    const strangerOnB = connect(urlB, new Client(b, stranger.cookie));
    sockets.push(onB, vaOnB, strangerOnB);
    await Promise.all([connected(onB), connected(vaOnB), connected(strangerOnB)]);
    const strangerSaw = record(strangerOnB);

    const arriving = next<{ name: string }>(onB, 'device.created');
    const device = await buildDevice(operator, { name: 'Made on A', assignedToId: va.user!.id });
    expect((await arriving).name).toBe('Made on A');

    const assigned = next<{ id: string }>(vaOnB, 'task.assigned');
    const task = await buildTask(operator, { deviceId: device.id });
    expect((await assigned).id).toBe(task.id);

    await pause(300);
    expect([...strangerSaw.keys()]).toEqual([]);
  });

  it('recovers missed events for a browser that dropped, through the shared stream', async () => {
    const { operator } = await people(a.app);
    const socket = connect(urlB, new Client(b, operator.cookie));
    sockets.push(socket);
    await connected(socket);
    const seen = record(socket);
    const first = next(socket, 'device.created');
    await buildDevice(operator, { name: 'Before' });
    await first;
    // Listening before the drop: under load the socket may be back before the device below is made.
    const back = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.io.engine.close();
    await buildDevice(operator, { name: 'During the gap' });
    await back;
    await pause(300);
    expect(socket.recovered).toBe(true);
    expect(((seen.get('device.created') ?? []) as { name: string }[]).map((d) => d.name)).toContain('During the gap');
  });
});
