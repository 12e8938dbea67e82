/**
 * Reads APKs and split sets (.apks, .xapk, .apkm) from disk with yauzl (ZIP64, checked entry sizes, file names),
 * adding what an upload from a stranger needs on top of it: a cap on the bytes inflated per entry and per upload,
 * counted as they come out (a declared size is never trusted), each entry's CRC-32 checked as it streams, and entries
 * whose bytes overlap refused (a ZIP bomb of overlapping local headers inflates one kernel many times). Entries are
 * streamed: to a file for an APK inside a set, to memory only for a manifest and only up to its own cap.
 */
import { createWriteStream } from 'node:fs';
import { Transform, type TransformCallback, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { openPromise, type Entry, type ZipFile } from 'yauzl';
import { sizeText } from '@farm/contracts';

/** A file that is not a ZIP (so not an APK), or one this reader refuses; the message is for the person. */
export class ZipError extends Error {}

/** The budget crossed: the archive inflates past a cap. Answered 413 with the sentence. */
export class ZipTooLargeError extends ZipError {}

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  compressedSize: number;
  size: number;
  crc32: number;
  encrypted: boolean;
  /** Where the entry's local header starts and where its bytes start, from the local header itself. */
  localHeaderOffset: number;
  dataStart: number;
}

/**
 * The bytes one upload may inflate, all its entries together (the APKs copied out of a set and every manifest read):
 * shared by every read of the upload, counted as bytes come out of the inflater.
 */
export class InflateBudget {
  constructor(
    readonly total: number,
    private left = total,
  ) {}

  get remaining(): number {
    return this.left;
  }

  take(bytes: number): boolean {
    this.left -= bytes;
    return this.left >= 0;
  }
}

export interface ZipArchive {
  size: number;
  entries: ZipEntry[];
  close(): void;
}

const MAX_ENTRIES = 20_000;

/** yauzl's handle and entries behind each archive handed out, kept out of the shape callers see. */
interface OpenZip {
  zip: ZipFile;
  raw: Map<ZipEntry, Entry>;
}

const opened = new WeakMap<ZipArchive, OpenZip>();

/** Opens the archive at `path` and reads its directory; refuses overlapping entries. Close it when done. */
export async function openZip(path: string): Promise<ZipArchive> {
  let zip: ZipFile;
  try {
    zip = await openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false });
  } catch {
    throw new ZipError('The file is not a ZIP archive');
  }
  try {
    if (zip.entryCount > MAX_ENTRIES) throw new ZipError(`The archive holds more than ${MAX_ENTRIES} files`);
    const raw = new Map<ZipEntry, Entry>();
    const entries: ZipEntry[] = [];
    for (const entry of await listEntries(zip)) {
      const header = await zip.readLocalFileHeaderPromise(entry, { minimal: true }).catch((error: unknown) => {
        throw new ZipError(`The ZIP entry ${entry.fileName} is damaged (${error instanceof Error ? error.message : 'unreadable'})`);
      });
      const item: ZipEntry = {
        name: entry.fileName,
        method: entry.compressionMethod,
        compressedSize: entry.compressedSize,
        size: entry.uncompressedSize,
        crc32: entry.crc32,
        encrypted: entry.isEncrypted(),
        localHeaderOffset: entry.relativeOffsetOfLocalHeader,
        dataStart: header.fileDataStart,
      };
      if (item.dataStart + item.compressedSize > zip.fileSize) throw new ZipError(`The ZIP entry ${item.name} is cut short`);
      raw.set(item, entry);
      entries.push(item);
    }
    refuseOverlaps(entries);
    const archive: ZipArchive = { size: zip.fileSize, entries, close: () => zip.close() };
    opened.set(archive, { zip, raw });
    return archive;
  } catch (error) {
    zip.close();
    if (error instanceof ZipError) throw error;
    throw new ZipError(`The ZIP archive is damaged (${error instanceof Error ? error.message : 'unreadable'})`);
  }
}

function listEntries(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', reject);
    zip.readEntry();
  });
}

/**
 * Each entry's local header and bytes are its own: sorted by where they start, an entry's bytes end before the next
 * header begins. Two entries naming the same bytes (or one header inside another's data) are refused.
 */
function refuseOverlaps(entries: readonly ZipEntry[]): void {
  const sorted = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let index = 1; index < sorted.length; index += 1) {
    const before = sorted[index - 1] as ZipEntry;
    const entry = sorted[index] as ZipEntry;
    if (entry.localHeaderOffset < before.dataStart + before.compressedSize)
      throw new ZipError(`The ZIP entries ${before.name} and ${entry.name} overlap; a ZIP archive whose files share bytes is refused`);
  }
}

/** Counts the bytes that really come out (never the declared size), refuses past `limit`, and checks the CRC-32. */
class Counted extends Transform {
  private count = 0;
  private crc = 0;

  constructor(
    private readonly entry: ZipEntry,
    private readonly limit: number,
    private readonly budget: InflateBudget,
    private readonly tooLarge: string,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.count += chunk.length;
    if (this.count > this.limit || !this.budget.take(chunk.length)) {
      done(new ZipTooLargeError(this.tooLarge));
      return;
    }
    this.crc = crc32(chunk, this.crc);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (this.crc >>> 0 !== this.entry.crc32 >>> 0) done(new ZipError(`The ZIP entry ${this.entry.name} is damaged: its checksum does not match`));
    else done();
  }
}

function assertReadable(entry: ZipEntry): void {
  if (entry.encrypted) throw new ZipError(`${entry.name} is encrypted in the archive; export the set again without a password`);
  if (entry.method !== 0 && entry.method !== 8) throw new ZipError(`${entry.name} uses a ZIP compression this server does not read (method ${entry.method})`);
}

/** What a refusal past a cap says. */
function limitSentence(entry: ZipEntry, limit: number, budget: InflateBudget): string {
  return limit < budget.total
    ? `${entry.name} inflates to more than ${sizeText(limit)}, more than a file of its kind may hold`
    : `The archive inflates to more than ${sizeText(budget.total)}, the largest app upload (APP_UPLOAD_MAX_BYTES)`;
}

async function streamEntry(archive: ZipArchive, entry: ZipEntry, maxBytes: number, budget: InflateBudget, sink: Writable): Promise<void> {
  assertReadable(entry);
  const open = opened.get(archive);
  const raw = open?.raw.get(entry);
  if (!open || !raw) throw new Error('the entry is not of this archive');
  const limit = Math.min(maxBytes, budget.remaining);
  const sentence = limitSentence(entry, Math.min(maxBytes, budget.total), budget);
  // The declared size is a first, cheap refusal; the count below is the one that holds.
  if (entry.size > limit) throw new ZipTooLargeError(sentence);
  let input: NodeJS.ReadableStream;
  try {
    input = await open.zip.openReadStreamPromise(raw);
  } catch (error) {
    throw new ZipError(`The ZIP entry ${entry.name} is damaged (${error instanceof Error ? error.message : 'unreadable'})`);
  }
  try {
    await pipeline(input, new Counted(entry, limit, budget, sentence), sink);
  } catch (error) {
    if (error instanceof ZipError) throw error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('Z_')) throw new ZipError(`${entry.name} cannot be decompressed`);
    // yauzl's own size check: the entry's bytes are not the size it declares.
    if (error instanceof Error && /too (many|few) bytes/.test(error.message)) throw new ZipError(`The ZIP entry ${entry.name} is damaged: ${error.message}`);
    throw error;
  }
}

/** One entry's bytes in memory, for small ones (a manifest): refused past `maxBytes` as they inflate. */
export async function readEntry(archive: ZipArchive, entry: ZipEntry, maxBytes: number, budget: InflateBudget): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  await streamEntry(archive, entry, maxBytes, budget, sink);
  return Buffer.concat(chunks);
}

/** Copies one entry to its own file, streamed; a refusal part way leaves the partial file for the caller's cleanup. */
export async function extractEntry(archive: ZipArchive, entry: ZipEntry, target: string, maxBytes: number, budget: InflateBudget): Promise<void> {
  await streamEntry(archive, entry, maxBytes, budget, createWriteStream(target, { mode: 0o600 }));
}
