/** The APK reader on APKs built by the test (see test/helpers/apk.ts for how, and from which AOSP layout). */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApk, buildManifest, buildSplitSet, buildZip, overlappingZip } from '../../../test/helpers/apk.ts';
import { ApkError, readUploadedApp } from './apps.apk.ts';
import { ManifestError, readManifest } from './apps.axml.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'apk-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function read(bytes: Buffer, name = 'app.apk', maxBytes = 500 * 1024 ** 2) {
  n += 1;
  const path = join(dir, `upload-${n}`);
  await writeFile(path, bytes);
  return readUploadedApp(path, join(dir, `work-${n}`), name, { maxBytes, beforeExtract: async () => undefined });
}

describe('the manifest reader', () => {
  it('reads package, version code and name, split and minimum SDK from UTF-8 and UTF-16 string pools', () => {
    for (const utf8 of [true, false]) {
      expect(
        readManifest(buildManifest({ package: 'com.instagram.android', versionCode: 372019234, versionName: '312.0.0.32.119', minSdk: 28, utf8 })),
      ).toEqual({
        package: 'com.instagram.android',
        versionCode: 372019234,
        versionName: '312.0.0.32.119',
        split: null,
        minSdk: 28,
      });
    }
    expect(readManifest(buildManifest({ package: 'com.zhiliaoapp.musically', versionCode: 2023805030, split: 'config.arm64_v8a' })).split).toBe(
      'config.arm64_v8a',
    );
  });

  it('leaves a version name given through a resource unknown, and refuses what is not compiled XML', () => {
    expect(readManifest(buildManifest({ package: 'com.example.app', versionCode: 3, versionName: null })).versionName).toBeNull();
    expect(() => readManifest(Buffer.from('<manifest package="x"/>'))).toThrow(ManifestError);
    expect(() => readManifest(buildManifest({ package: 'com.example.app', versionCode: 3 }).subarray(0, 120))).toThrow(ManifestError);
  });
});

describe('reading an upload', () => {
  it('reads a single APK and its ABIs from lib/<abi>/', async () => {
    const app = await read(buildApk({ package: 'com.example.app', versionCode: 42, versionName: '4.2', abis: ['x86_64', 'arm64-v8a'] }));
    expect(app).toMatchObject({ kind: 'apk', package: 'com.example.app', versionCode: 42, versionName: '4.2', abis: ['arm64-v8a', 'x86_64'] });
    expect(app.files.map((file) => file.name)).toEqual(['base']);
  });

  it('reads a split set: base first, splits by name, ABIs from every file, each APK copied out', async () => {
    const bytes = buildSplitSet(
      { package: 'com.zhiliaoapp.musically', versionCode: 2023805030, versionName: '38.5.3' },
      [{ split: 'config.en' }, { split: 'config.arm64_v8a', abis: ['arm64-v8a'] }],
      [{ name: 'info.json', data: Buffer.from('{"pname":"com.fake.other","versioncode":"1"}') }],
    );
    const app = await read(bytes, 'tiktok.apkm');
    expect(app).toMatchObject({ kind: 'split_set', package: 'com.zhiliaoapp.musically', versionCode: 2023805030, versionName: '38.5.3', abis: ['arm64-v8a'] });
    expect(app.files.map((file) => file.name)).toEqual(['base', 'config.arm64_v8a', 'config.en']);
    expect((await readdir(join(dir, `work-${n}`))).length).toBe(3);
  });

  it("takes bundletool's splits/ folder and leaves standalones/ out", async () => {
    const base = { package: 'com.example.bundle', versionCode: 7 };
    const bytes = buildZip([
      { name: 'toc.pb', data: Buffer.from([1, 2, 3]) },
      { name: 'splits/base-master.apk', data: buildApk(base) },
      { name: 'splits/base-arm64_v8a.apk', data: buildApk({ ...base, split: 'config.arm64_v8a', abis: ['arm64-v8a'] }) },
      { name: 'standalones/standalone-x86.apk', data: buildApk({ ...base, abis: ['x86'] }) },
    ]);
    const app = await read(bytes, 'bundle.apks');
    expect(app.files.map((file) => file.name)).toEqual(['base', 'config.arm64_v8a']);
    expect(app.abis).toEqual(['arm64-v8a']);
  });

  it('refuses, in a sentence, what is not an installable app', async () => {
    const refusal = async (bytes: Buffer, name = 'app.apk') => {
      const error = await read(bytes, name).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApkError);
      return (error as Error).message;
    };
    expect(await refusal(Buffer.from('%PDF-1.7 not a zip at all'), 'notes.pdf')).toMatch(
      /^The file notes\.pdf is not an APK or a split set \(\.apks, \.xapk, \.apkm\)/,
    );
    expect(await refusal(buildZip([{ name: 'photo.jpg', data: Buffer.alloc(10) }]), 'photos.zip')).toBe(
      'The file photos.zip is not an APK or a split set: it holds no AndroidManifest.xml and no .apk files',
    );
    expect(await refusal(buildApk({ package: 'com.example.app', versionCode: 1, split: 'config.en' }))).toBe(
      'The file app.apk is only the split "config.en" of com.example.app: upload the whole set (.apks, .xapk or .apkm)',
    );
    expect(
      await refusal(buildZip([{ name: 'split_config.en.apk', data: buildApk({ package: 'com.a.b', versionCode: 1, split: 'config.en' }) }]), 's.apks'),
    ).toBe('The file s.apks has no base APK, only splits: export the whole set again');
    const mixed = buildZip([
      { name: 'base.apk', data: buildApk({ package: 'com.a.b', versionCode: 1 }) },
      { name: 'split_config.en.apk', data: buildApk({ package: 'com.a.b', versionCode: 2, split: 'config.en' }) },
    ]);
    expect(await refusal(mixed, 'm.xapk')).toBe('The file m.xapk mixes versions of com.a.b: version codes 1 and 2');
    const twoApps = buildZip([
      { name: 'base.apk', data: buildApk({ package: 'com.a.b', versionCode: 1 }) },
      { name: 'other.apk', data: buildApk({ package: 'com.c.d', versionCode: 1, split: 'config.en' }) },
    ]);
    expect(await refusal(twoApps, 'x.xapk')).toBe('The file x.xapk mixes apps: com.a.b and com.c.d');
    expect(await refusal(buildZip([{ name: 'AndroidManifest.xml', data: Buffer.from('<manifest/>') }]))).toBe(
      'The file app.apk: the APK manifest is not compiled Android XML',
    );
  });
});

describe('what an upload may not do to the reader', () => {
  const base = { package: 'com.example.app', versionCode: 9 };

  it('refuses a manifest of 200,000 references to one 32 KB string at once, decoding none of them', () => {
    const manifest = buildManifest({ ...base, repeatedString: { length: 32_000, references: 200_000 } });
    expect(manifest.length).toBeGreaterThan(800_000);
    const started = performance.now();
    const heap = process.memoryUsage().heapUsed;
    expect(() => readManifest(manifest)).toThrow(new ManifestError('The APK manifest holds more than 16 MB of strings'));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(64 * 1024 * 1024);
    // A few references to a long string are a manifest like any other.
    expect(readManifest(buildManifest({ ...base, repeatedString: { length: 32_000, references: 10 } })).package).toBe('com.example.app');
  });

  it('reads versionCodeMajor into the long version code', () => {
    expect(readManifest(buildManifest({ ...base, versionCode: 5, versionCodeMajor: 3 })).versionCode).toBe(3 * 2 ** 32 + 5);
    expect(readManifest(buildManifest({ ...base, versionCode: 0xffffffff, versionCodeMajor: 1 })).versionCode).toBe(2 * 2 ** 32 - 1);
    expect(() => readManifest(buildManifest({ ...base, versionCodeMajor: 2 ** 21 }))).toThrow(
      new ManifestError(`The APK manifest's versionCodeMajor ${2 ** 21} is larger than this console can store (at most ${2 ** 21 - 1})`),
    );
  });

  it('refuses package names the package manager would not take', () => {
    for (const name of ['example', 'com.example.app; reboot', '1com.example', 'com..example', 'com.example.', 'com.-x.y', `com.${'a'.repeat(252)}`])
      expect(() => readManifest(buildManifest({ ...base, package: name })), name).toThrow(ManifestError);
    expect(() => readManifest(buildManifest({ ...base, package: 'com.example app' }))).toThrow(
      new ManifestError(
        'The APK manifest names the package "com.example app", which is not an Android package name (segments of letters, digits and underscores, each starting with a letter, at least two, at most 255 characters)',
      ),
    );
    expect(readManifest(buildManifest({ ...base, package: 'com.Example_2.app9' })).package).toBe('com.Example_2.app9');
  });

  it('refuses a split set whose entry inflates past the upload cap, from what it declares or what comes out', async () => {
    const zeros = Buffer.alloc(300 * 1024);
    const honest = buildZip([
      { name: 'base.apk', data: buildApk(base), stored: true },
      { name: 'split_config.en.apk', data: zeros },
    ]);
    expect(honest.length).toBeLessThan(8 * 1024);
    await expect(read(honest, 'bomb.apks', 64 * 1024)).rejects.toThrow(
      'The file bomb.apks: its APKs inflate to more than 64 KB, the largest app upload (APP_UPLOAD_MAX_BYTES)',
    );
    // Declaring 1 KB does not buy more: the entry is stopped where its declared size ends.
    const liar = buildZip([
      { name: 'base.apk', data: buildApk(base), stored: true },
      { name: 'split_config.en.apk', data: zeros, declaredSize: 1024 },
    ]);
    const refused = await read(liar, 'liar.apks', 64 * 1024).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApkError);
    expect((refused as Error).message).toMatch(/^The file liar\.apks: the ZIP entry split_config\.en\.apk is damaged: too many bytes in the stream/);
    expect(await readdir(join(dir, `work-${n}`)).catch(() => 'removed')).toBe('removed');
  });

  it('refuses entries that share their bytes (the overlapping ZIP bomb) and entries whose checksum is wrong', async () => {
    const overlapping = overlappingZip([
      { name: 'base.apk', data: buildApk(base), stored: true },
      { name: 'split_config.en.apk', data: buildApk(base), stored: true },
    ]);
    await expect(read(overlapping, 'o.apks')).rejects.toThrow(
      'The file o.apks is not an APK or a split set (.apks, .xapk, .apkm): the ZIP entries base.apk and split_config.en.apk overlap; a ZIP archive whose files share bytes is refused',
    );
    const apk = buildApk(base);
    // The manifest's bytes changed after its CRC-32 was written: one flipped byte in the stored string pool.
    const damaged = buildZip([{ name: 'AndroidManifest.xml', data: buildManifest(base), stored: true }]);
    const at = 30 + 'AndroidManifest.xml'.length + 100;
    damaged.writeUInt8(damaged.readUInt8(at) ^ 0xff, at);
    await expect(read(damaged)).rejects.toThrow('The file app.apk: the ZIP entry AndroidManifest.xml is damaged: its checksum does not match');
    expect((await read(apk)).package).toBe('com.example.app');
  });
});
