/**
 * Devices → Apps at 1280 px and 375 px: an operator uploads an APK (the console reads its package and version),
 * rolls it out to a group of three phones with a first stage of two, and follows each phone's result live; the third
 * phone gets the job only once both of the first stage succeeded. The farm host is the test: a socket speaking the
 * host's messages (`app.run` in, `host.app` out) for three phones on the API's /agent namespace.
 */
import { join } from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { io, type Socket } from 'socket.io-client';
// The APK is built in code, as the API's tests build theirs (the helper says how, after AOSP's ResourceTypes.h).
import { buildApk } from '../../api/test/helpers/apk';
import { SCREENSHOT_DIR } from './support/screenshots';
import { choose, dialog, expectToast, PASSWORD, unique, uniqueEmail } from './support/ui';

const json = { 'Content-Type': 'application/json' };
/** How long the fake host takes to "install": long enough to see a phone installing and the rest waiting. */
const INSTALL_MS = 3000;

async function post<T>(request: APIRequestContext, url: string, data: unknown): Promise<T> {
  const answer = await request.post(url, { data, headers: json });
  expect(answer.status(), `${url}: ${await answer.text()}`).toBeLessThan(300);
  return (await answer.json()) as T;
}

function connect(baseURL: string, auth: Record<string, string>): Promise<Socket> {
  const socket = io(`${baseURL}/agent`, { transports: ['websocket'], auth, reconnection: false, forceNew: true });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

const send = (socket: Socket, event: string, message: unknown) => new Promise<{ ok: boolean }>((resolve) => socket.emit(event, message, resolve));

interface Job {
  jobId: string;
  serial: string;
  package: string;
  files: { objectKey: string; size: number }[];
}

/** A farm host that installs apps: it takes each job, "installs" for a moment, and reports success. */
class FakeHost {
  readonly jobs: { job: Job; at: number }[] = [];
  readonly answered: { serial: string; at: number }[] = [];
  private readonly sockets: Socket[] = [];

  static async start(baseURL: string, token: string, serials: string[]): Promise<FakeHost> {
    const host = new FakeHost();
    const control = await connect(baseURL, { hostToken: token });
    host.sockets.push(control);
    control.on('app.run', (job: Job, ack: (answer: { ok: boolean }) => void) => {
      host.jobs.push({ job, at: Date.now() });
      ack({ ok: true });
      setTimeout(() => {
        host.answered.push({ serial: job.serial, at: Date.now() });
        control.emit('host.app', { jobId: job.jobId, serial: job.serial, ok: true, code: null, reason: null, detail: 'Success' });
      }, INSTALL_MS);
    });
    expect(await send(control, 'host.hello', { agentVersion: 'e2e-host', backend: 'adb', phones: serials.length, features: ['apps'] })).toMatchObject({
      ok: true,
    });
    for (const serial of serials) {
      const phone = await connect(baseURL, { hostToken: token, serial, model: 'Pixel 8' });
      host.sockets.push(phone);
      expect(await send(phone, 'agent.hello', { protocol: 1, agentVersion: 'e2e-v1', battery: 80 })).toMatchObject({ ok: true });
    }
    return host;
  }

  close(): void {
    for (const socket of this.sockets) socket.disconnect();
  }
}

for (const width of [1280, 375]) {
  test(`apps: upload an APK and roll it out to a group in stages (${width} px)`, async ({ browser, baseURL }) => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    await post(page.request, '/api/auth/signup', { name: 'Abe Apps', email: uniqueEmail('abe'), password: PASSWORD, role: 'operator' });
    const created = await post<{ host: { id: string }; code: string }>(page.request, '/api/hosts', { name: unique('Rack') });
    const { token } = await post<{ token: string }>(page.request, '/api/agent/enroll', { code: created.code });
    const serials = [1, 2, 3].map((n) => `E2E-${width}-${n}`);
    const host = await FakeHost.start(baseURL!, token, serials);
    const devices = await expect
      .poll(async () => ((await (await page.request.get('/api/devices')).json()) as { id: string; serial: string; name: string }[]).length, { timeout: 10_000 })
      .toBe(3)
      .then(async () => (await (await page.request.get('/api/devices')).json()) as { id: string; serial: string; name: string }[]);
    const groupName = unique('Hub');
    await post(page.request, '/api/groups', { name: groupName, deviceIds: devices.map((device) => device.id) });

    const packageName = `com.example.e2e${width}`;
    const apk = buildApk({ package: packageName, versionCode: 41, versionName: '4.1', abis: ['arm64-v8a'] });
    await page.goto('/devices/apps');
    const section = page.getByRole('region', { name: 'Apps', exact: true });
    await expect(section.getByText('No apps yet.')).toBeVisible();
    await section.locator('input[type="file"]').setInputFiles({ name: 'anything.apk', mimeType: 'application/vnd.android.package-archive', buffer: apk });
    await section.getByRole('button', { name: 'Upload' }).click();
    await expectToast(page, 'App Added', `${packageName} 4.1 (41) is in the library.`);
    const library = section.getByRole('table', { name: 'App library' });
    await expect(library.getByText(packageName, { exact: true })).toBeVisible();
    await expect(library.getByText('arm64-v8a')).toBeVisible();

    await section.getByRole('button', { name: `Roll out ${packageName} 4.1 (41)` }).click();
    const rollout = dialog(page, 'Roll out an app');
    await choose(rollout, 'Or a group', `${groupName} (3)`);
    await expect(rollout.getByRole('textbox', { name: 'Phones in the first stage' })).toHaveValue('2');
    await rollout.getByRole('button', { name: 'Start Rollout' }).click();

    // The first two install while the third waits; then the third; each result comes in live.
    const results = rollout.getByRole('table', { name: `Phones of the rollout of ${packageName}` });
    await expect(results.getByRole('row', { name: /: Installing$/ })).toHaveCount(2);
    await expect(results.getByRole('row', { name: /: Waiting$/ })).toHaveCount(1);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `apps-rollout-first-stage-${width}.png`) });
    await expectToast(page, 'Rollout Started', '3 phone(s), 2 first.');
    await expect(results.getByRole('row', { name: /: Succeeded$/ })).toHaveCount(3, { timeout: 15_000 });
    await expect(rollout.getByText('Done', { exact: true })).toBeVisible();
    await page.screenshot({ path: join(SCREENSHOT_DIR, `apps-rollout-done-${width}.png`) });

    // The third phone was sent its job only after both of the first stage answered.
    expect(host.jobs).toHaveLength(3);
    const third = host.jobs[2]!;
    const firstAnswers = host.answered.filter((answer) => host.jobs.slice(0, 2).some(({ job }) => job.serial === answer.serial));
    expect(firstAnswers).toHaveLength(2);
    expect(third.at).toBeGreaterThanOrEqual(Math.max(...firstAnswers.map((answer) => answer.at)));
    expect(third.job.package).toBe(packageName);

    await rollout.getByRole('button', { name: 'Close' }).last().click();
    await expect(rollout).toBeHidden();
    // Nothing spills sideways on a phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    host.close();
    await context.close();
  });
}
