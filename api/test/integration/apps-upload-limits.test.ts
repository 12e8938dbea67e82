/**
 * What an app upload may not do to the API: inflate past the upload cap, overlap its entries, decode a manifest's
 * strings into gigabytes, pass the storage quota twice at once, come more than 20 times an hour, or hold up other
 * people's reads while it is read. Each test is the attack, answered with a 4xx and a sentence, with nothing stored.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appMessages, messages, type AppLibrary, type AppVersion, type StorageUsage } from '@farm/contracts';
import { configureAutomation, defaultSettings } from '@farm/workers';
import { buildTestApp, signUp, type Answer, type Client, type TestApp } from '../helpers/app.ts';
import { buildApk, buildManifest, buildZip, overlappingZip } from '../helpers/apk.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { listen } from '../realtime/sockets.ts';
import { testConfig } from '../helpers/config.ts';
import { defaultRateLimits } from '../../src/config.ts';

const CAP = 2 * 1024 * 1024;

let t: TestApp;
let url: string;
beforeAll(async () => {
  // Tests turn the upload limit off; here it is on, at its production default.
  const config = testConfig('unused');
  t = await buildTestApp({ appUploadMaxBytes: CAP, rateLimits: { ...config.rateLimits, appUploads: defaultRateLimits().appUploads } });
  url = await listen(t.app);
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => {
  configureAutomation({ storageQuotaBytes: defaultSettings.storageQuotaBytes });
});

type Upload = AppVersion & { error?: string; details?: unknown };
const upload = (client: Client, bytes: Buffer, fileName = 'app.apk', headers: Record<string, string> = {}) =>
  client.request<Upload>('POST', `/api/apps?fileName=${encodeURIComponent(fileName)}`, bytes, {
    'content-type': 'application/octet-stream',
    ...headers,
  });

const usage = async (client: Client) => (await client.get<StorageUsage>('/api/storage')).body.usedBytes;

/** Nothing of a refused upload is kept: no version, no stored byte, no reservation left holding the quota. */
async function expectNothingKept(client: Client): Promise<void> {
  expect((await client.get<AppLibrary>('/api/apps')).body.versions).toEqual([]);
  expect(await usage(client)).toBe(0);
  const held = await t.db
    .selectFrom('storageReservations')
    .select('id')
    .where('workspaceId', '=', client.user?.workspaceId ?? '')
    .execute();
  expect(held).toEqual([]);
}

const base = { package: 'com.example.app', versionCode: 9 };

describe('an app upload that would fill the disk or the memory', () => {
  it('refuses a small split set whose entry inflates past the upload cap, and keeps nothing', async () => {
    const operator = await signUp(t.app);
    const bomb = buildZip([
      { name: 'base.apk', data: buildApk(base), stored: true },
      // 16 MB of zeros deflate to about 16 KB.
      { name: 'split_config.en.apk', data: Buffer.alloc(16 * 1024 * 1024) },
    ]);
    expect(bomb.length).toBeLessThan(100 * 1024);
    const message = 'The file bomb.apks: its APKs inflate to more than 2 MB, the largest app upload (APP_UPLOAD_MAX_BYTES)';
    const answer = await upload(operator, bomb, 'bomb.apks');
    expectError(answer, 413, message);
    expect(answer.body.details).toEqual([{ field: 'file', message }]);
    await expectNothingKept(operator);

    // The same entry declaring 1 KB is stopped where its declared size ends.
    const liar = buildZip([
      { name: 'base.apk', data: buildApk(base), stored: true },
      { name: 'split_config.en.apk', data: Buffer.alloc(16 * 1024 * 1024), declaredSize: 1024 },
    ]);
    const refused = await upload(operator, liar, 'liar.apks');
    expectStatus(refused, 400);
    expect(refused.body.error).toMatch(/^The file liar\.apks: the ZIP entry split_config\.en\.apk is damaged: too many bytes in the stream/);
    await expectNothingKept(operator);
  });

  it('refuses a 1 MB manifest of 200,000 references to one 32 KB string, quickly and in a sentence', async () => {
    const operator = await signUp(t.app);
    const manifest = buildManifest({ ...base, repeatedString: { length: 32_000, references: 200_000 } });
    expect(manifest.length).toBeGreaterThan(800_000);
    const apk = buildZip([{ name: 'AndroidManifest.xml', data: manifest }]);
    const heap = process.memoryUsage().heapUsed;
    const started = performance.now();
    expectFieldError(await upload(operator, apk, 'strings.apk'), 'file', 'The file strings.apk: the APK manifest holds more than 16 MB of strings');
    expect(performance.now() - started).toBeLessThan(5000);
    // Decoded one by one, the pool is 6.4 GB of text.
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(128 * 1024 * 1024);
    await expectNothingKept(operator);
  });

  it('refuses a set whose entries share their bytes (overlapping local headers)', async () => {
    const operator = await signUp(t.app);
    const overlapping = overlappingZip([
      { name: 'base.apk', data: buildApk(base), stored: true },
      { name: 'split_config.en.apk', data: buildApk({ ...base, split: 'config.en' }), stored: true },
      { name: 'split_config.fr.apk', data: buildApk({ ...base, split: 'config.fr' }), stored: true },
    ]);
    expectFieldError(
      await upload(operator, overlapping, 'overlap.apks'),
      'file',
      'The file overlap.apks is not an APK or a split set (.apks, .xapk, .apkm): the ZIP entries base.apk and split_config.en.apk overlap; a ZIP archive whose files share bytes is refused',
    );
    await expectNothingKept(operator);
  });

  it('answers a read sent while the attack is read before the attack’s own answer', async () => {
    const operator = await signUp(t.app);
    const bomb = buildZip([
      { name: 'base.apk', data: buildApk(base), stored: true },
      { name: 'split_config.en.apk', data: Buffer.alloc(16 * 1024 * 1024), declaredSize: CAP - 64 * 1024 },
    ]);
    const order: string[] = [];
    const attack = upload(operator, bomb, 'slow.apks').then((answer) => {
      order.push('attack');
      return answer;
    });
    const read = operator.get('/api/devices').then((answer) => {
      order.push('read');
      return answer;
    });
    const [attacked, devices] = await Promise.all([attack, read]);
    expectStatus(devices, 200);
    expectStatus(attacked, 400);
    expect(order).toEqual(['read', 'attack']);
    await expectNothingKept(operator);
  });
});

describe('the storage quota, held before the upload is written', () => {
  it('lets exactly one of two uploads racing at the edge through', async () => {
    const operator = await signUp(t.app);
    const first = buildApk({ package: 'com.example.first', versionCode: 1, padding: 32 * 1024 });
    const second = buildApk({ package: 'com.example.second', versionCode: 1, padding: 32 * 1024 });
    configureAutomation({ storageQuotaBytes: first.length + second.length - 1 });
    const answers = await Promise.all([upload(operator, first), upload(operator, second)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 413]);
    const refused = answers.find((answer) => answer.status === 413) as Answer<Upload>;
    expect(refused.body.error).toMatch(/^This workspace's storage is full: .+ used, and this file needs 32\.\d KB more\./);
    const passed = answers.find((answer) => answer.status === 201) as Answer<Upload>;
    expect((await operator.get<AppLibrary>('/api/apps')).body.versions.map((version) => version.id)).toEqual([passed.body.id]);
    expect(await usage(operator)).toBe(passed.body.size);
  });

  it('refuses a second upload while the first is still arriving: its bytes are held from the start', async () => {
    const operator = await signUp(t.app);
    const first = buildApk({ package: 'com.example.first', versionCode: 1, padding: 32 * 1024 });
    const second = buildApk({ package: 'com.example.second', versionCode: 1, padding: 32 * 1024 });
    configureAutomation({ storageQuotaBytes: first.length + second.length - 1 });
    // The first upload, over real HTTP, sends 1,000 bytes, then waits until the second one has its answer.
    const request = httpRequest(`${url}/api/apps?fileName=first.apk`, {
      method: 'POST',
      headers: { cookie: `sid=${operator.cookie ?? ''}`, 'content-type': 'application/octet-stream', 'content-length': String(first.length) },
    });
    const pending = new Promise<number>((resolve, reject) => {
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
    });
    request.write(first.subarray(0, 1000));
    const workspaceId = operator.user?.workspaceId ?? '';
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if ((await t.db.selectFrom('storageReservations').select('id').where('workspaceId', '=', workspaceId).execute()).length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await usage(operator)).toBe(first.length);
    const answer = await upload(operator, second, 'second.apk');
    expectStatus(answer, 413);
    expect(answer.body.error).toMatch(/^This workspace's storage is full/);
    request.end(first.subarray(1000));
    expect(await pending).toBe(201);
    expect(await usage(operator)).toBe(first.length);
  });
});

describe('the rate of uploads', () => {
  it('answers the 21st upload of an hour in a workspace with 429, Retry-After and a sentence', async () => {
    const operator = await signUp(t.app);
    for (let index = 0; index < 20; index += 1)
      expectFieldError(
        await upload(operator, Buffer.from('not an app')),
        'file',
        'The file app.apk is not an APK or a split set (.apks, .xapk, .apkm): the file is not a ZIP archive',
      );
    const refused = await upload(operator, buildApk(base));
    expectError(refused, 429, messages.tooManyAppUploads);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    // Another workspace has its own budget.
    expectStatus(await upload(await signUp(t.app), buildApk(base)), 201);
  });
});

describe('what the manifest says', () => {
  it('refuses a package name the package manager would not take', async () => {
    const operator = await signUp(t.app);
    expectFieldError(
      await upload(operator, buildApk({ ...base, package: 'com.example.app;reboot' })),
      'file',
      `The file app.apk: ${appMessages.badPackage('com.example.app;reboot')[0]?.toLowerCase()}${appMessages.badPackage('com.example.app;reboot').slice(1)}`,
    );
    await expectNothingKept(operator);
  });

  it('reads versionCodeMajor into the version code it stores and shows', async () => {
    const operator = await signUp(t.app);
    const long = 3 * 2 ** 32 + 7;
    const answer = await upload(operator, buildApk({ ...base, versionCode: 7, versionCodeMajor: 3, versionName: '3.0' }));
    expectStatus(answer, 201);
    expect(answer.body.versionCode).toBe(long);
    expect((await operator.get<AppLibrary>('/api/apps')).body.versions.map((version) => version.versionCode)).toEqual([long]);
    expectError(
      await upload(operator, buildApk({ ...base, versionCode: 7, versionCodeMajor: 3, versionName: '3.0' })),
      409,
      appMessages.versionTaken(base.package, '3.0', long),
    );
    // The same low 32 bits under another major are another version.
    expectStatus(await upload(operator, buildApk({ ...base, versionCode: 7, versionCodeMajor: 4 })), 201);
  });
});
