/**
 * App jobs and tasks on one phone (issue 50): `pm install -r` kills the app a task drives, so an install waits until
 * the running task has ended, and from the moment an install is queued the phone takes no new task: the server is
 * told (`agent.hold`), and a task dispatched anyway is neither started nor acknowledged, so the server gives it out
 * again once the install ended (the task runs exactly once). Both orders, with the real PhoneAgent and HostApps
 * against an in-process Socket.IO server standing in for the console.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server, type Socket as ServerSocket } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import type { PackagePhone } from '../adb/adb.packages.ts';
import type { FleetHostMessage } from '../fleet/fleet.messages.ts';
import { HostApps, simulatedPackagePhone } from '../host/host.apps.ts';
import type { Ack } from '../messages.ts';
import type { PhoneBackend, WorkOutcome } from './phone-agent.backend.ts';
import { PhoneAgent } from './phone-agent.ts';

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What happened, in order: the console's messages and the phone's commands. */
type Seen = string[];

/** A phone agent whose tasks run until the test lets them end, a console that records, and a host's app jobs. */
async function phoneAndHost() {
  const seen: Seen = [];
  const http = createServer();
  const io = new Server(http);
  let phoneSocket: ServerSocket | undefined;
  io.of('/agent').on('connection', (socket) => {
    phoneSocket = socket;
    socket.on('agent.hello', (_message: unknown, ack: (answer: unknown) => void) =>
      ack({ ok: true, protocol: 2, heartbeatMs: 60_000, deviceId: 'd1', deviceName: 'Phone one' }),
    );
    socket.on('agent.hold', (message: { holding: boolean }) => seen.push(`hold ${message.holding}`));
    socket.on('task.ack', (message: { taskId: string; attempt: number }) => seen.push(`ack ${message.taskId}#${message.attempt}`));
    socket.on('task.result', (message: { taskId: string; status: string }, ack: (answer: Ack) => void) => {
      seen.push(`result ${message.taskId} ${message.status}`);
      ack({ ok: true });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const ends = new Map<string, () => void>();
  const backend: PhoneBackend = {
    describe: () => ({ model: 'Pixel 7', androidVersion: '14', agentVersion: 'test/2' }),
    state: () => ({ battery: 90, charging: true, screenOn: true, status: 'online' }),
    screenshot: async () => undefined,
    run: (_work, context) => {
      seen.push(`run ${context.taskId}`);
      return new Promise<WorkOutcome>((resolve) => ends.set(context.taskId, () => resolve({ status: 'completed' })));
    },
  };
  const agent = new PhoneAgent({ url, token: 'device-token', backend, reconnectionDelayMs: 100 });
  closers.push(
    () => io.close(),
    () => agent.close(),
  );
  await until(() => agent.connected, 'the agent to connect');

  let releaseInstall: (() => void) | undefined;
  const sim = simulatedPackagePhone();
  const packagePhone: PackagePhone = {
    pushFile: async () => undefined,
    exec: async (command) => {
      if (/^pm install /.test(command)) {
        seen.push('pm install');
        await new Promise<void>((resolve) => (releaseInstall = resolve));
      }
      return sim.exec(command);
    },
  };
  const results: FleetHostMessage<'host.app'>[] = [];
  const apps = new HostApps({
    server: url,
    token: 'host-token',
    dir: mkdtempSync(join(tmpdir(), 'appjob-')),
    phone: () => packagePhone,
    work: () => agent,
    send: (_name, message) => results.push(message),
    fetch: (async () => new Response(Buffer.from('apk!!'))) as unknown as typeof fetch,
  });
  const dispatch = (taskId: string, attempt: number) =>
    phoneSocket?.emit('task.dispatch', {
      taskId,
      attempt,
      type: 'warmup',
      title: 'Warm up',
      deadline: null,
      protocol: 2,
      work: { kind: 'manual', description: 'Check the phone' },
      ackWithinMs: 10_000,
    });
  const install = () =>
    apps.take({
      jobId: 'rollout-1',
      serial: 'R58M1',
      action: 'install',
      package: 'com.instagram.android',
      files: [{ objectKey: 'k-base', name: 'base', size: 5 }],
      allowDowngrade: false,
    });
  return { seen, agent, results, dispatch, install, endTask: (id: string) => ends.get(id)?.(), endInstall: () => releaseInstall?.() };
}

describe('an install and the phone’s tasks', () => {
  it('waits for the running task to end before installing, and holds the phone from new tasks from the start', async () => {
    const phone = await phoneAndHost();
    phone.dispatch('task-1', 1);
    await until(() => phone.seen.includes('run task-1'), 'the task to run');
    phone.install();
    await until(() => phone.seen.includes('hold true'), 'the hold');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(phone.seen).not.toContain('pm install');

    phone.endTask('task-1');
    await until(() => phone.seen.includes('pm install'), 'the install');
    phone.endInstall();
    await until(() => phone.results.length === 1, 'the install’s result');
    await until(() => phone.seen.includes('hold false'), 'the hold let go');
    expect(phone.results[0]).toMatchObject({ ok: true });
    expect(phone.seen).toEqual(['run task-1', 'ack task-1#1', 'hold true', 'result task-1 completed', 'pm install', 'hold false']);
  });

  it('leaves a task dispatched during an install unstarted and unacknowledged; it runs once when given out again', async () => {
    const phone = await phoneAndHost();
    phone.install();
    await until(() => phone.seen.includes('pm install'), 'the install');
    phone.dispatch('task-2', 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(phone.seen).toEqual(['hold true', 'pm install']);

    phone.endInstall();
    await until(() => phone.seen.includes('hold false'), 'the hold let go');
    // The lease of the unacknowledged attempt ended; the server gives the task out again.
    phone.dispatch('task-2', 2);
    await until(() => phone.seen.includes('run task-2'), 'the task to run');
    phone.endTask('task-2');
    await until(() => phone.seen.includes('result task-2 completed'), 'its result');
    expect(phone.seen.filter((line) => line === 'run task-2')).toHaveLength(1);
    expect(phone.seen).toEqual(['hold true', 'pm install', 'hold false', 'run task-2', 'ack task-2#2', 'result task-2 completed']);
  });
});
