/**
 * Logout, deactivation, a new password and a new phone credential end the sockets they concern at once, even
 * while Redis (the socket adapter between API instances) is paused or down: this instance cuts its own sockets
 * first and tells the others after. The Redis here is the test's own redis-server, paused with SIGSTOP.
 */
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, type Ack } from '@farm/agent-protocol';
import { defaultRateLimits } from '../../src/config.ts';
import { buildTestApp, Client, people, signUp, type TestApp } from '../helpers/app.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { buildDevice } from '../helpers/factories.ts';
import { redisPort, startRedis, type OwnRedis } from '../helpers/redis-server.ts';
import { connect, connected, listen } from './sockets.ts';

const PASSWORD = 'correct horse battery';
let redis: OwnRedis;
let t: TestApp;
let url: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  redis = await startRedis(redisPort(0));
  // Writes are counted in Redis too, as in production: a paused Redis must not hold them either.
  t = await buildTestApp({ redisUrl: redis.url, rateLimits: { ...defaultRateLimits(), signup: null, login: null, writes: { max: 10_000, windowMs: 60_000 } } });
  url = await listen(t.app);
});
afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  redis?.resume();
  // The app closes its Redis connections cleanly only with a Redis to say goodbye to.
  if (t && !(await redisAnswers())) redis = await startRedis(redisPort(0));
  await t?.close();
  await redis?.stop();
});

async function redisAnswers(): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 500, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** Resolves when the server ends the socket; a socket the server never ends leaves the test waiting, and failing. */
function cut(socket: Socket, what: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: the socket was not cut`)), timeoutMs);
    socket.once('disconnect', (reason) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}

function browser(client: Client): Socket {
  const socket = connect(url, client);
  socket.io.opts.reconnection = false;
  sockets.push(socket);
  return socket;
}

async function login(email: string): Promise<Client> {
  const client = new Client(t.app);
  expectStatus(await client.post('/api/auth/login', { email, password: PASSWORD }), 200);
  return client;
}

async function phone(operator: Client): Promise<{ socket: Socket; deviceId: string }> {
  const device = await buildDevice(operator, { name: 'Pixel revoked' });
  const credential = await operator.post<{ token: string }>(`/api/devices/${device.id}/credentials`);
  const socket = io(`${url}/agent`, { forceNew: true, transports: ['websocket'], auth: { token: credential.body.token }, reconnection: false });
  sockets.push(socket);
  await connected(socket);
  const ack = await new Promise<Ack>((resolve) => socket.emit('agent.hello', { protocol: PROTOCOL_VERSION, agentVersion: 'test', battery: 80 }, resolve));
  expect(ack).toMatchObject({ ok: true });
  return { socket, deviceId: device.id };
}

describe('revocation with Redis paused', () => {
  it('logout, deactivation, a new password and a new phone credential cut their sockets before Redis answers', async () => {
    const { operator, va } = await people(t.app);
    const email = operator.user!.email;
    const leaving = await login(email);
    const elsewhere = await login(email);
    const leavingSocket = browser(leaving);
    const elsewhereSocket = browser(elsewhere);
    const vaSocket = browser(va);
    const operatorSocket = browser(operator);
    await Promise.all([connected(leavingSocket), connected(elsewhereSocket), connected(vaSocket), connected(operatorSocket)]);
    const { socket: agentSocket, deviceId } = await phone(operator);

    redis.pause();
    try {
      const loggedOut = cut(leavingSocket, 'logout');
      expectStatus(await leaving.post('/api/auth/logout'), 204);
      expect(await loggedOut).toBe('io server disconnect');

      const deactivated = cut(vaSocket, 'deactivation');
      expectStatus(await operator.patch(`/api/users/${va.user!.id}`, { isActive: false }), 200);
      expect(await deactivated).toBe('io server disconnect');

      const passwordChanged = cut(elsewhereSocket, 'password change');
      expectStatus(await operator.patch('/api/users/me', { currentPassword: PASSWORD, password: 'a new password here' }), 200);
      expect(await passwordChanged).toBe('io server disconnect');

      const revoked = cut(agentSocket, 'credential revocation');
      expectStatus(await operator.post(`/api/devices/${deviceId}/credentials`), 201);
      expect(await revoked).toBe('io server disconnect');

      // The session that changed the password keeps its socket.
      expect(operatorSocket.connected).toBe(true);
    } finally {
      redis.resume();
    }
  });
});

describe('revocation with Redis down', () => {
  it('logout cuts the socket while Redis is stopped', async () => {
    const person = await signUp(t.app, { password: PASSWORD });
    const socket = browser(person);
    await connected(socket);
    await redis.stop();
    const loggedOut = cut(socket, 'logout');
    expectStatus(await person.post('/api/auth/logout'), 204);
    expect(await loggedOut).toBe('io server disconnect');
  });
});
