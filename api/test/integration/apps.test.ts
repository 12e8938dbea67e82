/**
 * The app library (issue #42): uploads read for what they are, the size cap and the storage quota, permissions and
 * tenancy, pins per group, and the phones whose app version no recipe covers. APKs are built by the test
 * (test/helpers/apk.ts says how).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appMessages, type AppCoverageWarning, type AppLibrary, type AppVersion, type DeviceGroup, type StorageUsage } from '@farm/contracts';
import { configureAutomation, defaultSettings } from '@farm/workers';
import { buildTestApp, inviteVa, signUp, type Client, type TestApp } from '../helpers/app.ts';
import { buildApk, buildSplitSet, buildZip } from '../helpers/apk.ts';
import { expectError, expectFieldError, expectStatus } from '../helpers/assertions.ts';
import { buildDevice } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ appUploadMaxBytes: 64 * 1024 });
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => {
  configureAutomation({ storageQuotaBytes: defaultSettings.storageQuotaBytes });
});

const upload = (client: Client, bytes: Buffer, fileName = 'app.apk', type = 'application/octet-stream') =>
  client.request<AppVersion & { error?: string; details?: unknown }>('POST', `/api/apps?fileName=${encodeURIComponent(fileName)}`, bytes, {
    'content-type': type,
  });

async function uploaded(client: Client, bytes: Buffer, fileName = 'app.apk'): Promise<AppVersion> {
  const answer = await upload(client, bytes, fileName);
  expectStatus(answer, 201);
  return answer.body;
}

const usage = async (client: Client) => (await client.get<StorageUsage>('/api/storage')).body.usedBytes;

describe('the app library', () => {
  it('reads an APK for what it is, lists it for everyone, counts it in storage, and removes it', async () => {
    const operator = await signUp(t.app);
    const va = await inviteVa(t.app, operator);
    const before = await usage(operator);
    const bytes = buildApk({ package: 'com.instagram.android', versionCode: 372019234, versionName: '312.0.0.32.119', abis: ['arm64-v8a', 'armeabi-v7a'] });
    // What the form says of the file does not matter: the package and version come from its manifest.
    const version = await uploaded(operator, bytes, 'whatever-name.apk');
    expect(version).toMatchObject({
      package: 'com.instagram.android',
      versionCode: 372019234,
      versionName: '312.0.0.32.119',
      minSdk: 24,
      abis: ['arm64-v8a', 'armeabi-v7a'],
      kind: 'apk',
      fileName: 'whatever-name.apk',
      size: bytes.length,
      files: [{ name: 'base', size: bytes.length }],
    });
    // The shipped Instagram recipes were tested on 440–447: this older version is not covered, said in words.
    expect(version.coverage.covered).toBe(false);
    expect(version.coverage.reason).toMatch(/^com\.instagram\.android 312\.0\.0\.32\.119 is outside the versions .* was tested on/);
    expect(await usage(operator)).toBe(before + bytes.length);

    const listed = await va.get<AppLibrary>('/api/apps');
    expectStatus(listed, 200);
    expect(listed.body.versions.map((row) => row.id)).toEqual([version.id]);
    expect(listed.body.maxUploadBytes).toBe(64 * 1024);

    // The same version again is refused, whatever the file is called.
    expectError(await upload(operator, bytes, 'again.apk'), 409, appMessages.versionTaken('com.instagram.android', '312.0.0.32.119', 372019234));

    const actions = (await operator.get<{ action: string }[]>('/api/audit-log')).body.map((row) => row.action);
    expect(actions).toContain('app.uploaded');
    expectStatus(await va.delete(`/api/apps/${version.id}`), 403);
    expectStatus(await operator.delete(`/api/apps/${version.id}`), 204);
    expectStatus(await operator.delete(`/api/apps/${version.id}`), 404);
    expect(await usage(operator)).toBe(before);
    expect((await operator.get<AppLibrary>('/api/apps')).body.versions).toEqual([]);
  });

  it('takes a split set: each APK stored on its own, the ABIs of every split', async () => {
    const operator = await signUp(t.app);
    const set = buildSplitSet({ package: 'com.zhiliaoapp.musically', versionCode: 2023805030, versionName: '38.5.3' }, [
      { split: 'config.arm64_v8a', abis: ['arm64-v8a'] },
      { split: 'config.xxhdpi' },
    ]);
    const version = await uploaded(operator, set, 'tiktok.apkm');
    expect(version).toMatchObject({ kind: 'split_set', package: 'com.zhiliaoapp.musically', versionName: '38.5.3', abis: ['arm64-v8a'] });
    expect(version.files.map((file) => file.name)).toEqual(['base', 'config.arm64_v8a', 'config.xxhdpi']);
    expect(await usage(operator)).toBe(version.files.reduce((sum, file) => sum + file.size, 0));
  });

  it('refuses bad uploads with a sentence naming the file, and keeps nothing of them', async () => {
    const operator = await signUp(t.app);
    const va = await inviteVa(t.app, operator);
    const apk = buildApk({ package: 'com.example.app', versionCode: 1 });
    expectStatus(await upload(va, apk), 403);
    expectFieldError(
      await upload(operator, Buffer.from('GIF89a not an app')),
      'file',
      'The file app.apk is not an APK or a split set (.apks, .xapk, .apkm): the file is not a ZIP archive',
    );
    expectFieldError(
      await upload(operator, buildZip([{ name: 'notes.txt', data: Buffer.from('hello') }]), 'notes.zip'),
      'file',
      'The file notes.zip is not an APK or a split set: it holds no AndroidManifest.xml and no .apk files',
    );
    expectFieldError(await upload(operator, Buffer.alloc(0)), 'file', appMessages.emptyFile);
    expectFieldError(await operator.request('POST', '/api/apps', apk, { 'content-type': 'application/octet-stream' }), 'fileName', 'File name is required');
    const tooLarge = await upload(operator, buildApk({ package: 'com.example.big', versionCode: 1, padding: 200 * 1024 }));
    expectError(tooLarge, 413, appMessages.tooLarge('64 KB'));
    expect(tooLarge.body.details).toEqual([{ field: 'file', message: appMessages.tooLarge('64 KB') }]);
    expectStatus(await operator.request('POST', '/api/apps?fileName=a.apk', { not: 'bytes' }), 415);
    expect((await operator.get<AppLibrary>('/api/apps')).body.versions).toEqual([]);
    expect(await usage(operator)).toBe(0);
  });

  it('refuses an upload past the workspace storage quota', async () => {
    const operator = await signUp(t.app);
    const apk = buildApk({ package: 'com.example.quota', versionCode: 5 });
    configureAutomation({ storageQuotaBytes: apk.length - 1 });
    const answer = await upload(operator, apk);
    expectStatus(answer, 413);
    expect(answer.body.error).toMatch(/^This workspace's storage is full/);
    expect((await operator.get<AppLibrary>('/api/apps')).body.versions).toEqual([]);
  });

  it('keeps each workspace to its own library', async () => {
    const operator = await signUp(t.app);
    const stranger = await signUp(t.app);
    const version = await uploaded(operator, buildApk({ package: 'com.example.mine', versionCode: 3 }));
    expect((await stranger.get<AppLibrary>('/api/apps')).body.versions).toEqual([]);
    expectStatus(await stranger.delete(`/api/apps/${version.id}`), 404);
    // Another workspace may hold the same version.
    await uploaded(stranger, buildApk({ package: 'com.example.mine', versionCode: 3 }));
  });
});

describe('pinned versions', () => {
  it('pins a group to a version, refuses another workspace’s group, and keeps a pinned version in the library', async () => {
    const operator = await signUp(t.app);
    const stranger = await signUp(t.app);
    const va = await inviteVa(t.app, operator);
    const version = await uploaded(operator, buildApk({ package: 'com.instagram.android', versionCode: 100, versionName: '445.0.0.1.1' }));
    expect(version.coverage).toEqual({ covered: true, reason: null });
    const group = (await operator.post<DeviceGroup>('/api/groups', { name: 'Client Acme' })).body;
    const foreign = (await stranger.post<DeviceGroup>('/api/groups', { name: 'Theirs' })).body;

    expectStatus(await va.put('/api/apps/pins', { groupId: group.id, versionId: version.id }), 403);
    expectFieldError(
      await operator.put('/api/apps/pins', { groupId: foreign.id, versionId: version.id }),
      'groupId',
      'The group was not found in this workspace',
    );
    expectFieldError(await operator.put('/api/apps/pins', { groupId: group.id, versionId: 'nope' }), 'versionId', 'Version id must be an id');
    const pinned = await operator.put<{ pins: unknown[] }>('/api/apps/pins', { groupId: group.id, versionId: version.id });
    expectStatus(pinned, 200);
    expect(pinned.body.pins).toEqual([
      expect.objectContaining({ groupId: group.id, package: 'com.instagram.android', versionCode: 100, versionName: '445.0.0.1.1' }),
    ]);

    expectError(await operator.delete(`/api/apps/${version.id}`), 409, appMessages.pinnedVersionInUse('"Client Acme"'));
    expectStatus(await stranger.delete(`/api/apps/pins/${group.id}/com.instagram.android`), 404);
    const unpinned = await operator.delete<{ pins: unknown[] }>(`/api/apps/pins/${group.id}/com.instagram.android`);
    expectStatus(unpinned, 200);
    expect(unpinned.body.pins).toEqual([]);
    expectStatus(await operator.delete(`/api/apps/${version.id}`), 204);
  });
});

describe('coverage warnings', () => {
  it('warns of each phone whose installed app version no recipe covers', async () => {
    const operator = await signUp(t.app);
    const stranger = await signUp(t.app);
    const old = await buildDevice(operator, { name: 'Old IG' });
    const fresh = await buildDevice(operator, { name: 'Fresh IG' });
    const workspaceId = operator.user!.workspaceId!;
    await t.db
      .insertInto('deviceSoftware')
      .values([
        { deviceId: old.id, workspaceId, apps: JSON.stringify([{ package: 'com.instagram.android', version: '312.0.0.32.119' }]) },
        {
          deviceId: fresh.id,
          workspaceId,
          apps: JSON.stringify([
            { package: 'com.instagram.android', version: '445.0.0.1.1' },
            { package: 'com.zhiliaoapp.musically', version: null },
          ]),
        },
      ])
      .execute();
    const warnings = await operator.get<AppCoverageWarning[]>('/api/apps/coverage');
    expectStatus(warnings, 200);
    expect(warnings.body).toEqual([
      expect.objectContaining({ deviceId: old.id, deviceName: 'Old IG', package: 'com.instagram.android', version: '312.0.0.32.119' }),
    ]);
    expect(warnings.body[0]?.reason).toMatch(/is outside the versions/);
    expect((await stranger.get<AppCoverageWarning[]>('/api/apps/coverage')).body).toEqual([]);
  });
});
