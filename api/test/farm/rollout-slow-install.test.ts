/**
 * A rollout through the whole chain (issue 50): an operator uploads an APK to the app library and rolls it out; a
 * real farm host (`FarmHost`, adb backend) connected to the console over /agent takes the job, fetches the APK from
 * the console and installs it on a phone of the fake adb server whose `pm install` answers after 25 s. Scaled: the
 * 25 s and the host's package manager limits are ten times shorter (2.5 s; installs 60 s), so the file runs in seconds.
 * The APK is built as the app library's tests build it (a ZIP with a binary manifest), and the fake phone reads its
 * package and version from that manifest as a phone does (agent-protocol/test/fake-apk.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '@farm/agent-protocol';
import { AgentState } from '@farm/agent-protocol/agent';
import { FarmHost } from '@farm/agent-protocol/host';
import type { AdbPhone } from '@farm/agent-protocol/adb';
import type { AppRollout, AppVersion } from '@farm/contracts';
import { commandLimits, limitsWith, type CommandLimits } from '../../../agent-protocol/src/adb/adb.shell.ts';
import { FakeAdbServer } from '../../../agent-protocol/test/fake-adb.server.ts';
import { FakeAndroid } from '../../../agent-protocol/test/fake-android.ts';
import type { PmAnswer } from '../../../agent-protocol/test/fake-pm.ts';
import { buildApk } from '../helpers/apk.ts';
import { expectStatus } from '../helpers/assertions.ts';
import { realtimeApp } from '../helpers/realtime.ts';
import { duePostTask, until } from '../realtime/phones.ts';
import { connected, record } from '../realtime/sockets.ts';

const SCALE = 10;
const INSTALL_MS = 25_000 / SCALE;
/**
 * The first case's install, longer than the scaled 2.5 s so that a busy test machine still reads the rollout's row
 * and the held task while the phone installs: past the quick commands' scaled 1 s, well within the install's 60 s.
 */
const HELD_INSTALL_MS = 6_000;
const scaled = limitsWith(Object.fromEntries(Object.entries(commandLimits).map(([kind, ms]) => [kind, ms / SCALE])));

const { t, url, operator, closers, browserSocket, enrollHost } = await realtimeApp({ automation: { heartbeatMs: 1000 } });

/** A farm host on its own fake adb server with one phone whose `pm install` takes 25 s (scaled), enrolled and online. */
async function farm(name: string, serial: string, limits: CommandLimits) {
  const server = new FakeAdbServer();
  await server.listen();
  const phone = new FakeAndroid({ serial });
  phone.packageManager.installDelayMs = INSTALL_MS;
  server.plug(phone);
  const dir = await mkdtemp(join(tmpdir(), 'farm-rollout-'));
  const { token } = await enrollHost(name);
  const logs: string[] = [];
  const host = new FarmHost({
    server: url,
    token,
    state: new AgentState(dir),
    backend: 'adb',
    adbHost: '127.0.0.1',
    adbPort: server.port,
    scrcpyServer: false,
    adb: { adbBin: '/nonexistent/adb', probeMs: 0, reconnectMs: 50 },
    apps: { limits, progressMs: 100 },
    log: (line) => logs.push(line),
  });
  // Closed before the app (closers run last first): the host, then its adb server, then its state folder goes.
  closers.push(
    () => rm(dir, { recursive: true, force: true }),
    () => server.close(),
    () => host.close(),
  );
  await host.start();
  await until(async () => host.agent(serial)?.connected, `${serial}'s agent connected`);
  const device = await until(async () => {
    const rows = (await operator.get('/api/devices?limit=1000')).body as { id: string; serial: string; status: string }[];
    return rows.find((row) => row.serial === serial && row.status !== 'offline');
  }, `${serial} online in the console`);
  return { host, phone, device, dir, logs };
}

/** Uploaded over a real connection, as the console's app library takes it from a browser. */
async function uploaded(bytes: Buffer): Promise<AppVersion> {
  const answer = await fetch(`${url}/api/apps?fileName=app.apk`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', cookie: `sid=${operator.cookie ?? ''}` },
    body: bytes,
  });
  const body = (await answer.json()) as AppVersion;
  expect(answer.status, JSON.stringify(body)).toBe(201);
  return body;
}

async function rollOut(versionId: string, deviceId: string): Promise<string> {
  const started = await operator.post<AppRollout>('/api/apps/rollouts', { action: 'install', versionId, deviceIds: [deviceId] });
  expectStatus(started, 201);
  return started.body.id;
}

const rollout = async (id: string) => (await operator.get<AppRollout>(`/api/apps/rollouts/${id}`)).body;
const ended = (id: string) =>
  until(
    async () => {
      const now = await rollout(id);
      return now.status === 'done' || now.status === 'stopped' ? now : null;
    },
    'the rollout to end',
    20_000,
  );
const taskRow = (id: string) => t.db.selectFrom('tasks').select(['status', 'dispatchedAt', 'attempt']).where('id', '=', id).executeTakeFirstOrThrow();

describe('a rollout through a farm host to a phone with a 25 s install', () => {
  it('completes, shows the install going on, keeps the phone healthy, and holds a task dispatched meanwhile', async () => {
    const serial = 'ROLL-SLOW-1';
    const { host, phone, device, dir, logs } = await farm('Rack slow', serial, scaled);
    phone.packageManager.installDelayMs = HELD_INSTALL_MS;
    const browser = browserSocket(operator);
    await connected(browser);
    const seen = record(browser);
    // What the phone's package manager answered, and the task's row read the moment the install answered.
    const pm = phone.packageManager;
    const handle = pm.handle.bind(pm);
    let atAnswer: Promise<Awaited<ReturnType<typeof taskRow>>> | undefined;
    let taskId: string | undefined;
    pm.handle = (args: readonly string[]): PmAnswer | undefined => {
      const answer = handle(args);
      void answer?.running?.then(() => {
        if (taskId) atAnswer = taskRow(taskId);
      });
      return answer;
    };

    const apk = buildApk({ package: 'com.example.reels', versionCode: 371, versionName: '371.0.0' });
    const version = await uploaded(apk);
    const id = await rollOut(version.id, device.id);
    await until(async () => pm.installing === 1, 'the install to start on the phone');

    // A post comes due for the phone while it installs: the console holds it (read, then the install still runs).
    const { task } = await duePostTask(t, operator, device.id, 'During the install');
    taskId = task.id;
    const during = await taskRow(task.id);
    expect(pm.installing).toBe(1);
    expect(during).toMatchObject({ status: 'pending', dispatchedAt: null });
    // The phone's row says it is installing, with the time so far, while the phone is at it.
    const row = await until(async () => {
      const phoneRow = (await rollout(id)).phones[0];
      return phoneRow?.code === 'installing' && /^Installing on the phone… [1-9] s$/.test(phoneRow.reason ?? '') ? phoneRow : null;
    }, 'the phone’s row to show the install going on');
    // Read before this: the row said so while the phone was still installing.
    expect(pm.installing).toBe(1);
    expect(row.status).toBe('sent');
    const stillHeld = await taskRow(task.id);
    expect(pm.installing).toBe(1);
    expect(stillHeld).toMatchObject({ status: 'pending', dispatchedAt: null });

    const done = await ended(id);
    expect(done.status).toBe('done');
    expect(done.phones[0]).toMatchObject({ status: 'succeeded', code: null, reason: null });
    // The console's live view saw the stage too.
    const shown = (seen.get('app.rollout') ?? []) as AppRollout[];
    expect(shown.some((item) => item.id === id && item.phones[0]?.code === 'installing')).toBe(true);

    // The phone received the uploaded file once and exactly one `pm install` of it.
    expect(pm.calls).toEqual(['install -r /data/local/tmp/farm-apps/com.example.reels.apk']);
    const pushed = phone.pushed.filter((file) => file.path.startsWith('/data/local/tmp/farm-apps/'));
    expect(pushed).toHaveLength(1);
    expect(pushed[0]!.data.equals(apk)).toBe(true);
    expect(pm.apps.get('com.example.reels')).toMatchObject({ versionCode: 371, versionName: '371.0.0' });

    // Not unresponsive: the host's phone, its log, and the console (online, no health problem).
    const adbPhone = host.backend(serial)?.phone as unknown as AdbPhone;
    expect(adbPhone.health).toBe('responsive');
    expect(logs.filter((line) => /not answering/.test(line))).toEqual([]);
    expect((await operator.get(`/api/devices/${device.id}`)).body.status).not.toBe('offline');
    const health = (await operator.get(`/api/devices/${device.id}/health`)).body as { unresponsiveReason: string | null } | null;
    expect(health?.unresponsiveReason ?? null).toBeNull();

    // The task was still held when the install answered, and went to the phone once the install ended.
    await until(async () => atAnswer, 'the row read at the answer');
    expect(await atAnswer).toMatchObject({ status: 'pending', dispatchedAt: null });
    // Read by its lease's count, which stays: the phone here has no Instagram, so its run fails at once and the task
    // waits for its retry with `dispatchedAt` cleared, often before a poll could see it set.
    const sent = await until(async () => {
      const now = await taskRow(task.id);
      return now.attempt > 0 ? now : null;
    }, 'the held task to go out after the install');
    expect(sent.attempt).toBe(1);
    await until(async () => new Journal(new AgentState(dir).journalPath(serial)).get(task.id), 'the phone’s agent to take the task');
  });

  it('says a phone did not finish an install past its limit in time, and stops the rollout with it counted', async () => {
    const serial = 'ROLL-LATE-1';
    const { phone, device } = await farm('Rack late', serial, { ...scaled, install: INSTALL_MS / 4 });
    const version = await uploaded(buildApk({ package: 'com.example.late', versionCode: 5, versionName: '5.0' }));
    const id = await rollOut(version.id, device.id);
    const stopped = await ended(id);
    expect(stopped.status).toBe('stopped');
    expect(stopped.phones[0]).toMatchObject({ status: 'failed', code: 'install_timeout' });
    expect(stopped.phones[0]?.reason).toMatch(
      new RegExp(`^The phone did not finish in time, which counts as not answering: .*got no answer within ${INSTALL_MS / 4} ms`),
    );
    // The phone got the install once; the rollout's end counts the phone among the failed ones in the feed.
    expect(phone.commands.filter((command) => command.startsWith('pm install -r ') && command.includes('/data/local/tmp/farm-apps/'))).toHaveLength(1);
    const feed = (await operator.get('/api/activities')).body as { items?: { action: string }[] } | { action: string }[];
    const actions = (Array.isArray(feed) ? feed : (feed.items ?? [])).map((item) => item.action);
    expect(actions).toContain('Rollout of com.example.late 5.0 stopped after its first stage: 1 phone(s) failed, the rest were not sent');
    // The phone's package manager had the file in its session before the host stopped waiting, so it finishes the
    // install on its own; the row keeps saying the phone did not finish in time (a late answer changes nothing).
    await until(async () => phone.packageManager.installing === 0, 'the phone to finish the install on its own');
    expect(phone.packageManager.apps.get('com.example.late')).toMatchObject({ versionCode: 5, versionName: '5.0' });
    expect((await rollout(id)).phones[0]).toMatchObject({ status: 'failed', code: 'install_timeout' });
  });
});
