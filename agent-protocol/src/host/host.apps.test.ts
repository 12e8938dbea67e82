/**
 * App jobs on a farm host: APKs fetched from the console and installed, a split set in one session, removals, and the
 * package manager's refusals reported in words. The phone's `pm` answers with the outputs recorded in
 * test/fixtures/EVIDENCE.md ("Package manager").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackagePhone } from '../adb/adb.packages.ts';
import type { AppJob, FleetHostMessage } from '../fleet/fleet.messages.ts';
import { HostApps, simulatedPackagePhone } from './host.apps.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'host-apps-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A phone whose `pm` answers from a table of outputs; it records the commands it ran and the files pushed. */
function fakePhone(
  answers: { install?: string; props?: Record<string, string>; locale?: string } = {},
): PackagePhone & { commands: string[]; pushed: string[] } {
  const sim = simulatedPackagePhone();
  const commands: string[] = [];
  const pushed: string[] = [];
  return {
    commands,
    pushed,
    async exec(command) {
      commands.push(command);
      const prop = /^getprop (\S+)$/.exec(command)?.[1];
      if (prop) return `${answers.props?.[prop] ?? ''}\n`;
      if (answers.install && /^pm (install|install-commit) /.test(command)) return `${answers.install}\n__farm_pm_exit=1\n`;
      return sim.exec(command);
    },
    async pushFile(local) {
      pushed.push(local);
    },
    ...(answers.locale ? { locale: async () => answers.locale ?? null } : {}),
  };
}

function harness(phone: PackagePhone | undefined, files: Record<string, Buffer>) {
  const sent: FleetHostMessage<'host.app'>[] = [];
  const progress: FleetHostMessage<'host.app-progress'>[] = [];
  const asked: string[] = [];
  const apps = new HostApps({
    server: 'http://console.test',
    token: 'host-token',
    dir,
    phone: () => phone,
    send: (_name, message) => sent.push(message),
    progress: (message) => progress.push(message),
    fetch: (async (url: URL, init?: RequestInit) => {
      asked.push(`${url.pathname} ${(init?.headers as Record<string, string> | undefined)?.authorization ?? ''}`);
      const key = url.pathname.split('/').pop() ?? '';
      const bytes = files[key];
      return bytes ? new Response(bytes) : new Response('not found', { status: 404 });
    }) as typeof fetch,
  });
  return { apps, sent, asked, progress };
}

const job = (overrides: Partial<AppJob> = {}): AppJob => ({
  jobId: 'rollout-1',
  serial: 'R58M1',
  action: 'install',
  package: 'com.example.app',
  files: [{ objectKey: 'k-base', name: 'base', size: 5 }],
  allowDowngrade: false,
  ...overrides,
});

describe('app jobs on a host', () => {
  it('fetches the APK with the host credential, installs it, and reports success', async () => {
    const phone = fakePhone();
    const { apps, sent, asked } = harness(phone, { 'k-base': Buffer.from('hello') });
    await apps.run(job());
    expect(asked).toEqual(['/api/agent/apps/k-base Bearer host-token']);
    expect(phone.commands.some((command) => command.startsWith('pm install -r '))).toBe(true);
    expect(sent).toEqual([{ jobId: 'rollout-1', serial: 'R58M1', ok: true, code: null, reason: null, detail: 'Success' }]);
  });

  it('installs a split set in one session, the base first', async () => {
    const phone = fakePhone();
    const { apps, sent } = harness(phone, { 's-base': Buffer.from('base!'), 's-abi': Buffer.from('abi') });
    await apps.run(
      job({
        files: [
          { objectKey: 's-base', name: 'base', size: 5 },
          { objectKey: 's-abi', name: 'config.arm64_v8a', size: 3 },
        ],
      }),
    );
    const verbs = phone.commands.filter((command) => command.startsWith('pm ')).map((command) => command.split(' ')[1]);
    expect(verbs).toEqual(['install-create', 'install-write', 'install-write', 'install-commit']);
    expect(sent[0]?.ok).toBe(true);
  });

  it('fetches and installs only the splits the phone needs, and says where the job stands as it goes', async () => {
    const phone = fakePhone({ props: { 'ro.product.cpu.abilist': 'arm64-v8a,armeabi-v7a,armeabi', 'ro.sf.lcd_density': '420' }, locale: 'fr-FR' });
    const names = ['base', 'config.armeabi_v7a', 'config.arm64_v8a', 'config.mdpi', 'config.xxhdpi', 'config.de', 'config.fr'];
    const files = Object.fromEntries(names.map((name) => [`n-${name.replace(/\W/g, '_')}`, Buffer.from(name)]));
    const { apps, sent, asked, progress } = harness(phone, files);
    await apps.run(job({ files: names.map((name) => ({ objectKey: `n-${name.replace(/\W/g, '_')}`, name, size: name.length })) }));
    expect(sent[0]?.ok).toBe(true);
    expect(asked.map((line) => line.split(' ')[0]?.split('/').pop())).toEqual(['n-base', 'n-config_arm64_v8a', 'n-config_xxhdpi', 'n-config_fr']);
    const written = phone.commands.filter((command) => command.startsWith('pm install-write')).map((command) => command.split(' ')[5]);
    expect(written).toEqual(["'base'", "'config.arm64_v8a'", "'config.xxhdpi'", "'config.fr'"]);
    expect(progress.map((message) => message.stage)).toEqual(['downloading', 'installing']);
    expect(progress[0]).toMatchObject({ jobId: 'rollout-1', serial: 'R58M1' });
  });

  it('reports the package manager’s refusal in words, and a download cut short', async () => {
    const refusing = fakePhone({ install: 'Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 1 is older than current 2]' });
    const first = harness(refusing, { 'd-base': Buffer.from('hello') });
    await first.apps.run(job({ files: [{ objectKey: 'd-base', name: 'base', size: 5 }] }));
    expect(first.sent[0]).toMatchObject({
      ok: false,
      code: 'INSTALL_FAILED_VERSION_DOWNGRADE',
      reason: 'The phone has a newer version installed: allow the downgrade to roll back.',
    });

    const second = harness(fakePhone(), { 'c-base': Buffer.from('hel') });
    await second.apps.run(job({ files: [{ objectKey: 'c-base', name: 'base', size: 5 }] }));
    expect(second.sent[0]).toMatchObject({ ok: false, code: 'download_failed', reason: 'The APK download was cut short.' });

    const gone = harness(undefined, {});
    await gone.apps.run(job());
    expect(gone.sent[0]).toMatchObject({ ok: false, code: 'phone_missing' });
  });

  it('removes an app, and refuses a job that does not read as one', async () => {
    const phone = fakePhone();
    const { apps, sent } = harness(phone, {});
    await apps.run(job({ action: 'remove', files: [] }));
    expect(phone.commands[0]).toMatch(/^pm uninstall com\.example\.app/);
    expect(sent[0]?.ok).toBe(true);
    const answers: unknown[] = [];
    apps.take({ jobId: 'x', serial: 'R58M1', action: 'format' }, (answer) => answers.push(answer));
    expect(answers).toEqual([{ ok: false, error: expect.stringContaining('action') }]);
  });
});
