/**
 * What an uploaded file is, read from its bytes (never from the form): a single APK, or a split set (.apks, .xapk,
 * .apkm: a ZIP holding a base APK and config splits). Each APK's compiled manifest gives the package, version and
 * split name; its `lib/<abi>/` folders give the processor types (ABIs) it carries native code for. A split set's
 * APKs are copied out to files of their own, the way the farm host installs them (`pm install-create`/`install-write`).
 */
import { mkdir, rm } from 'node:fs/promises';
import type { AppVersionKind } from '@farm/sql';
import { join } from 'node:path';
import { sizeText } from '@farm/contracts';
import { ManifestError, readManifest, type ApkManifest } from './apps.axml.ts';
import { extractEntry, InflateBudget, openZip, readEntry, ZipError, ZipTooLargeError, type ZipArchive, type ZipEntry } from './apps.zip.ts';

/** The file is not an APK or a split set this console can install; the message names what is wrong. */
export class ApkError extends Error {}

/** The file inflates past the upload cap: answered 413. */
export class ApkTooLargeError extends ApkError {}

export interface ApkFile {
  /** Where the APK is on disk (the upload itself, or a file copied out of the set). */
  path: string;
  /** `base`, or the split's name (`config.arm64_v8a`). */
  name: string;
  size: number;
  manifest: ApkManifest;
  abis: string[];
}

export interface ReadApp {
  kind: AppVersionKind;
  package: string;
  versionCode: number;
  versionName: string | null;
  minSdk: number | null;
  /** Every ABI any of the files carries native code for, sorted; empty for an app without native code. */
  abis: string[];
  /** The base first, then the splits by name. */
  files: ApkFile[];
}

export interface ReadLimits {
  /** Bytes the whole upload may inflate to, every entry read together (APP_UPLOAD_MAX_BYTES). */
  maxBytes: number;
  /**
   * Called with the bytes the app will be stored as, before anything is copied out of a set: the caller reserves them
   * under the storage quota (and throws to refuse).
   */
  beforeExtract(bytes: number): Promise<void>;
}

const MANIFEST = 'AndroidManifest.xml';
/** The largest compiled manifest read: real ones are tens of KB, the largest published few hundred. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
const MAX_SPLITS = 100;

/** A sentence continued after a colon. */
const lowerFirst = (text: string) => (/^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text);

/** The reader's refusal as the person's sentence about `label`; a cap crossed stays a 413. */
function refusal(error: unknown, label: string): unknown {
  if (error instanceof ZipTooLargeError) return new ApkTooLargeError(`${label}: ${lowerFirst(error.message)}`);
  if (error instanceof ManifestError || error instanceof ZipError) return new ApkError(`${label}: ${lowerFirst(error.message)}`);
  return error;
}

function abisOf(entries: readonly ZipEntry[]): string[] {
  const found = new Set<string>();
  for (const entry of entries) {
    const match = /^lib\/([^/]+)\/[^/]+\.so$/.exec(entry.name);
    if (match?.[1]) found.add(match[1]);
  }
  return [...found].sort();
}

async function apkFacts(archive: ZipArchive, label: string, budget: InflateBudget): Promise<{ manifest: ApkManifest; abis: string[] }> {
  const manifestEntry = archive.entries.find((entry) => entry.name === MANIFEST);
  if (!manifestEntry) throw new ApkError(`${label} is not an APK: it has no AndroidManifest.xml`);
  try {
    return { manifest: readManifest(await readEntry(archive, manifestEntry, MAX_MANIFEST_BYTES, budget)), abis: abisOf(archive.entries) };
  } catch (error) {
    throw refusal(error, label);
  }
}

/** Reads one APK file on disk. */
async function readApkFile(path: string, label: string, budget: InflateBudget): Promise<Omit<ApkFile, 'name'>> {
  const archive = await openZip(path).catch((error: unknown) => {
    throw error instanceof ZipError ? new ApkError(`${label} is not an APK (${error.message.toLowerCase()})`) : error;
  });
  try {
    return { path, size: archive.size, ...(await apkFacts(archive, label, budget)) };
  } finally {
    archive.close();
  }
}

/** The APKs of a split set to install: bundletool's `splits/` when there, else every APK at any depth but `standalones/`. */
function setApks(entries: readonly ZipEntry[]): ZipEntry[] {
  const apks = entries.filter((entry) => entry.name.toLowerCase().endsWith('.apk') && !entry.name.endsWith('/'));
  const splits = apks.filter((entry) => entry.name.startsWith('splits/'));
  if (splits.length > 0) return splits;
  return apks.filter((entry) => !entry.name.startsWith('standalones/'));
}

/**
 * Reads the uploaded file at `path`: an APK as it is, or a split set whose APKs are copied into `workDir`. Throws
 * ApkError with a sentence for anything that is not an installable app (ApkTooLargeError past the cap); the caller
 * removes `workDir`.
 */
export async function readUploadedApp(path: string, workDir: string, fileName: string, limits: ReadLimits): Promise<ReadApp> {
  const budget = new InflateBudget(limits.maxBytes);
  let archive: ZipArchive;
  try {
    archive = await openZip(path);
  } catch (error) {
    if (error instanceof ZipError) throw new ApkError(`The file ${fileName} is not an APK or a split set (.apks, .xapk, .apkm): ${lowerFirst(error.message)}`);
    throw error;
  }
  try {
    const entries = archive.entries;
    if (entries.some((entry) => entry.name === MANIFEST)) {
      const { manifest, abis } = await apkFacts(archive, `The file ${fileName}`, budget);
      if (manifest.split)
        throw new ApkError(`The file ${fileName} is only the split "${manifest.split}" of ${manifest.package}: upload the whole set (.apks, .xapk or .apkm)`);
      await limits.beforeExtract(archive.size);
      const file: ApkFile = { path, name: 'base', size: archive.size, manifest, abis };
      return { kind: 'apk', ...summary([file]) };
    }
    const apks = setApks(entries);
    if (apks.length === 0) throw new ApkError(`The file ${fileName} is not an APK or a split set: it holds no AndroidManifest.xml and no .apk files`);
    if (apks.length > MAX_SPLITS) throw new ApkError(`The file ${fileName} holds more than ${MAX_SPLITS} APKs`);
    // Declared sizes first: a set that says it is too large is refused before a byte is inflated or reserved. What
    // comes out is counted again as it inflates (yauzl stops an entry at its declared size, the budget at the cap).
    const declared = apks.reduce((sum, entry) => sum + entry.size, 0);
    if (declared > limits.maxBytes)
      throw new ApkTooLargeError(
        `The file ${fileName}: its APKs inflate to more than ${sizeText(limits.maxBytes)}, the largest app upload (APP_UPLOAD_MAX_BYTES)`,
      );
    await limits.beforeExtract(declared);
    const files: ApkFile[] = [];
    await mkdir(workDir, { recursive: true, mode: 0o700 });
    for (const [index, entry] of apks.entries()) {
      const target = join(workDir, `${index}.apk`);
      await extractEntry(archive, entry, target, limits.maxBytes, budget).catch((error: unknown) => {
        throw refusal(error, `The file ${fileName}`);
      });
      const read = await readApkFile(target, `The file ${entry.name} in ${fileName}`, budget);
      files.push({ ...read, name: read.manifest.split ?? 'base' });
    }
    return { kind: 'split_set', ...summary(checkSet(files, fileName)) };
  } catch (error) {
    await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  } finally {
    archive.close();
  }
}

/** One base, one package and one version code across the set, no split twice; the base first, splits by name. */
function checkSet(files: ApkFile[], fileName: string): ApkFile[] {
  const bases = files.filter((file) => file.manifest.split === null);
  if (bases.length === 0) throw new ApkError(`The file ${fileName} has no base APK, only splits: export the whole set again`);
  if (bases.length > 1) throw new ApkError(`The file ${fileName} holds ${bases.length} base APKs; a split set has exactly one`);
  const base = bases[0] as ApkFile;
  for (const file of files) {
    if (file.manifest.package !== base.manifest.package)
      throw new ApkError(`The file ${fileName} mixes apps: ${base.manifest.package} and ${file.manifest.package}`);
    if (file.manifest.versionCode !== base.manifest.versionCode)
      throw new ApkError(
        `The file ${fileName} mixes versions of ${base.manifest.package}: version codes ${base.manifest.versionCode} and ${file.manifest.versionCode}`,
      );
  }
  const names = files.map((file) => file.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice) throw new ApkError(`The file ${fileName} holds the split "${twice}" twice`);
  return [base, ...files.filter((file) => file !== base).sort((a, b) => a.name.localeCompare(b.name))];
}

function summary(files: ApkFile[]): Omit<ReadApp, 'kind'> {
  const base = files[0] as ApkFile;
  return {
    package: base.manifest.package,
    versionCode: base.manifest.versionCode,
    versionName: base.manifest.versionName,
    minSdk: base.manifest.minSdk,
    abis: [...new Set(files.flatMap((file) => file.abis))].sort(),
    files,
  };
}
