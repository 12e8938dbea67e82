/** Phone agents for tests: a bare protocol 1 socket driven by hand, and credentials made through the real routes. */
import { io, type Socket } from 'socket.io-client';
import { PhoneAgent, type Ack } from '@farm/agent-protocol';
import { DeviceBackend } from '@farm/agent-protocol/agent';
import { SimulatedPhoneUi } from '@farm/agent-protocol/simphone';
import type { Client, TestApp } from '../helpers/app.ts';
import { buildAccount, buildDevice, buildPost } from '../helpers/factories.ts';

/** A bare agent socket: the test speaks for the phone, message by message. */
export function bareAgent(url: string, token: string, options: { reconnection?: boolean } = {}): Socket {
  return io(`${url}/agent`, {
    forceNew: true,
    transports: ['websocket'],
    auth: { token },
    reconnection: options.reconnection ?? false,
    reconnectionDelay: 100,
  });
}

export function send(socket: Socket, event: string, message: unknown): Promise<Ack> {
  return new Promise((resolve) => socket.emit(event, message, resolve));
}

export const helloV1 = { protocol: 1, agentVersion: 'test-v1', battery: 90 };

/** A device of the operator's workspace with a credential for its agent. */
export async function enrolledPhone(operator: Client, overrides: Record<string, unknown> = {}) {
  const device = await buildDevice(operator, { name: 'Pixel test', ...overrides });
  const credential = await operator.post(`/api/devices/${device.id}/credentials`);
  if (credential.status !== 201) throw new Error(`credential: ${credential.status}`);
  return { device, token: credential.body.token as string };
}

/**
 * A phone of the operator's workspace running the real agent on the simulated phone UI (1080 × 2400, or `ui`),
 * connected to the instance at `url`; what closes it goes on `closers`.
 */
export async function simulatedPhone(
  url: string,
  operator: Client,
  name: string,
  closers: (() => unknown)[],
  ui = new SimulatedPhoneUi({ serial: `SIM-${name}`, width: 1080, height: 2400 }),
) {
  const { device, token } = await enrolledPhone(operator, { name });
  const backend = await new DeviceBackend(ui, { agentVersion: 'test/2', preflight: 'no-account' }).start();
  const agent = new PhoneAgent({ url, token, backend, reconnectionDelayMs: 100 });
  closers.push(
    () => agent.close(),
    () => backend.close(),
  );
  await until(async () => agent.connected, `${name} connected`);
  return { device, ui, agent };
}

/** Waits until `check` answers something truthy, or fails after `timeoutMs`. */
export async function until<T>(check: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A post of the account scheduled an hour ahead (with `fields`), then made due now and handed to posts.due, which
 * turns it into its task for the account's phone.
 */
export async function duePost(t: TestApp, client: Client, accountId: string, fields: Record<string, unknown> = {}) {
  const post = await buildPost(client, accountId, { status: 'scheduled', scheduledAt: new Date(Date.now() + 3600_000).toISOString(), ...fields });
  await t.db
    .updateTable('posts')
    .set({ scheduledAt: new Date(Date.now() - 1000) })
    .where('id', '=', post.id)
    .execute();
  await t.app.ctx.jobs!.runNow('posts.due');
  return post;
}

/** Automation work for a phone: a post of an account on the device, due now and turned into its task. */
export async function duePostTask(t: TestApp, operator: Client, deviceId: string, caption = 'Spring drop') {
  const account = await buildAccount(operator, { deviceId, status: 'active' });
  const post = await duePost(t, operator, account.id, { caption });
  const task = await t.db.selectFrom('tasks').selectAll().where('postId', '=', post.id).executeTakeFirstOrThrow();
  return { account, post, task };
}
