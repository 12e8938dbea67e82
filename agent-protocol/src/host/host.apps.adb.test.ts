/**
 * A slow install end to end (issue 50): the console sends a farm host `app.run`; the host fetches the APK, and the
 * fake adb server's phone takes 25 s to answer `pm install` (scaled: every limit and the 25 s are 25 times shorter).
 * The install completes within its limit, the host says where it stands meanwhile, the health check's shell echo is
 * answered during it, and the phone is never reported unresponsive. An install past its limit fails and says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid } from '../../test/fake-android.ts';
import { fakeConsole } from '../../test/fake-console.ts';
import type { AdbPhone } from '../adb/adb.phone.ts';
import { commandLimits, limitsWith } from '../adb/adb.shell.ts';
import { AgentState } from '../agent/state.ts';
import type { AppJob, FleetHostMessage } from '../fleet/fleet.messages.ts';
import { FarmHost } from './host.ts';

const SCALE = 25;
const scaled = limitsWith(Object.fromEntries(Object.entries(commandLimits).map(([kind, ms]) => [kind, ms / SCALE])));
const SERIAL = 'SLOWAPP01';
const APK = Buffer.from(JSON.stringify({ package: 'com.instagram.android', versionCode: 371000, versionName: '371.0.0' }));

async function until<T>(check: () => T | undefined | null | false, what: string, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a slow install through a farm host', () => {
  const closers: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function farm(limits = scaled) {
    const console_ = await fakeConsole({ appFiles: new Map([['k-ig', APK]]) });
    closers.push(() => console_.close());
    const server = new FakeAdbServer();
    await server.listen();
    closers.push(() => server.close());
    const phone = new FakeAndroid({ serial: SERIAL });
    phone.packageManager.installDelayMs = 25_000 / SCALE;
    server.plug(phone);
    const dir = mkdtempSync(join(tmpdir(), 'farm-host-slow-app-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const logs: string[] = [];
    const host = new FarmHost({
      server: console_.url,
      token: 'host-token',
      state: new AgentState(dir),
      backend: 'adb',
      adbHost: '127.0.0.1',
      adbPort: server.port,
      scrcpyServer: false,
      adb: { adbBin: '/nonexistent/adb', probeMs: 0, reconnectMs: 50 },
      apps: { limits, progressMs: 100 },
      log: (line) => logs.push(line),
    });
    closers.push(() => host.close());
    await host.start();
    await until(() => host.agent(SERIAL)?.connected, 'the phone’s agent to connect');
    const control = await until(() => console_.host(), 'the host’s hello');
    const job: AppJob = {
      jobId: 'rollout-slow',
      serial: SERIAL,
      action: 'install',
      package: 'com.instagram.android',
      files: [{ objectKey: 'k-ig', name: 'base', size: APK.length }],
      allowDowngrade: false,
    };
    const said = <N extends string>(name: N) => console_.hostSaid.filter((item) => item.name === name).map((item) => item.message);
    return { console: console_, phone, host, control, job, said, logs };
  }

  it('completes a 25 s install, reports it installing meanwhile, answers the health echo, and stays responsive', async () => {
    const { phone, host, control, job, said, logs } = await farm();
    expect(await control.timeout(5000).emitWithAck('app.run', job)).toEqual({ ok: true });
    await until(() => phone.packageManager.installing === 1, 'the install to start on the phone');
    // The fleet health check's echo (host.fleet.ts runs it through the phone's exec) with its 5 s limit, scaled.
    const adbPhone = host.backend(SERIAL)?.phone as unknown as AdbPhone;
    expect(await adbPhone.exec('echo farm-ok', 5_000 / SCALE)).toContain('farm-ok');
    expect(phone.packageManager.installing).toBe(1);
    await until(
      () => (said('host.app-progress') as FleetHostMessage<'host.app-progress'>[]).some((item) => item.stage === 'installing' && item.elapsedMs >= 200),
      'progress while installing',
    );

    const [result] = await until(() => said('host.app').length > 0 && (said('host.app') as FleetHostMessage<'host.app'>[]), 'the result');
    expect(result).toMatchObject({ jobId: 'rollout-slow', serial: SERIAL, ok: true, code: null });
    expect(phone.packageManager.apps.get('com.instagram.android')?.versionName).toBe('371.0.0');
    expect(phone.packageManager.calls).toEqual(['install -r /data/local/tmp/farm-apps/com.instagram.android.apk']);
    const stages = (said('host.app-progress') as FleetHostMessage<'host.app-progress'>[]).map((item) => item.stage);
    expect([...new Set(stages)]).toEqual(['waiting_for_task', 'downloading', 'installing']);
    expect(adbPhone.health).toBe('responsive');
    expect((said('host.health') as FleetHostMessage<'host.health'>[]).filter((item) => !item.ok)).toEqual([]);
    expect(logs.filter((line) => /not answering/.test(line))).toEqual([]);
    expect(host.agent(SERIAL)?.connected).toBe(true);
  });

  it('fails an install past its limit, in words', async () => {
    const { control, job, said } = await farm({ ...scaled, install: 25_000 / SCALE / 4 });
    await control.timeout(5000).emitWithAck('app.run', job);
    const [result] = await until(() => said('host.app').length > 0 && (said('host.app') as FleetHostMessage<'host.app'>[]), 'the result');
    expect(result).toMatchObject({
      ok: false,
      code: 'install_timeout',
      reason: expect.stringMatching(/^The phone did not finish in time, which counts as not answering: .*got no answer within 250 ms/),
    });
  });
});
