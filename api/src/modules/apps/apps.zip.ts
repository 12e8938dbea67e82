/**
 * Just enough of the ZIP format to read APKs and split sets (.apks, .xapk, .apkm) from disk without holding them in
 * memory: the central directory (end record found in the file's last 64 KiB), each entry's local header, and its
 * bytes stored or deflated. ZIP64 and encrypted entries are refused with a sentence: no APK the console takes needs
 * them. Source: PKWARE APPNOTE.TXT 6.3.x, sections 4.3.7 (local header), 4.3.12 (central header), 4.3.16 (end record).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createInflateRaw, inflateRawSync } from 'node:zlib';

/** A file that is not a ZIP (so not an APK), or one this reader cannot take; the message is for the person. */
export class ZipError extends Error {}

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
  encrypted: boolean;
}

/** Random access to a file's bytes. */
export interface ByteSource {
  size: number;
  read(offset: number, length: number): Promise<Buffer>;
}

export function bufferSource(bytes: Buffer): ByteSource {
  return { size: bytes.length, read: async (offset, length) => bytes.subarray(offset, offset + length) };
}

/** A file opened for reading; close it when done. */
export async function openFileSource(path: string): Promise<ByteSource & { close(): Promise<void> }> {
  const handle: FileHandle = await open(path, 'r');
  const { size } = await handle.stat();
  return {
    size,
    async read(offset, length) {
      const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
      if (buffer.length > 0) await handle.read(buffer, 0, buffer.length, offset);
      return buffer;
    },
    close: () => handle.close(),
  };
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const MAX_ENTRIES = 20_000;

/** The entries of the archive's central directory, in their order there. */
export async function readZipEntries(source: ByteSource): Promise<ZipEntry[]> {
  if (source.size < 22) throw new ZipError('The file is not a ZIP archive');
  const tailLength = Math.min(source.size, 22 + 0xffff);
  const tail = await source.read(source.size - tailLength, tailLength);
  let at = -1;
  for (let index = tail.length - 22; index >= 0; index -= 1) {
    if (tail.readUInt32LE(index) === EOCD_SIGNATURE) {
      at = index;
      break;
    }
  }
  if (at < 0) throw new ZipError('The file is not a ZIP archive');
  const count = tail.readUInt16LE(at + 10);
  const directorySize = tail.readUInt32LE(at + 12);
  const directoryOffset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || directoryOffset === 0xffffffff) throw new ZipError('ZIP64 archives are not supported');
  if (count > MAX_ENTRIES) throw new ZipError(`The archive holds more than ${MAX_ENTRIES} files`);
  if (directoryOffset + directorySize > source.size) throw new ZipError('The ZIP archive is cut short');
  const directory = await source.read(directoryOffset, directorySize);
  const entries: ZipEntry[] = [];
  let offset = 0;
  for (let index = 0; index < count; index += 1) {
    if (offset + 46 > directory.length || directory.readUInt32LE(offset) !== CENTRAL_SIGNATURE) throw new ZipError('The ZIP directory is damaged');
    const flags = directory.readUInt16LE(offset + 8);
    const nameLength = directory.readUInt16LE(offset + 28);
    const extraLength = directory.readUInt16LE(offset + 30);
    const commentLength = directory.readUInt16LE(offset + 32);
    const entry: ZipEntry = {
      method: directory.readUInt16LE(offset + 10),
      compressedSize: directory.readUInt32LE(offset + 20),
      size: directory.readUInt32LE(offset + 24),
      localHeaderOffset: directory.readUInt32LE(offset + 42),
      name: directory.toString('utf8', offset + 46, offset + 46 + nameLength),
      encrypted: (flags & 1) === 1,
    };
    if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff || entry.localHeaderOffset === 0xffffffff)
      throw new ZipError('ZIP64 archives are not supported');
    entries.push(entry);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Where the entry's bytes start: after its local header, whose name and extra field may differ from the directory's. */
async function dataOffset(source: ByteSource, entry: ZipEntry): Promise<number> {
  const header = await source.read(entry.localHeaderOffset, 30);
  if (header.length < 30 || header.readUInt32LE(0) !== LOCAL_SIGNATURE) throw new ZipError(`The ZIP entry ${entry.name} is damaged`);
  const start = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (start + entry.compressedSize > source.size) throw new ZipError(`The ZIP entry ${entry.name} is cut short`);
  return start;
}

function assertReadable(entry: ZipEntry): void {
  if (entry.encrypted) throw new ZipError(`${entry.name} is encrypted in the archive; export the set again without a password`);
  if (entry.method !== 0 && entry.method !== 8) throw new ZipError(`${entry.name} uses a ZIP compression this server does not read (method ${entry.method})`);
}

/** One entry's bytes in memory, for small ones (a manifest); refused past `maxBytes`. */
export async function readEntry(source: ByteSource, entry: ZipEntry, maxBytes: number): Promise<Buffer> {
  assertReadable(entry);
  if (entry.size > maxBytes) throw new ZipError(`${entry.name} is larger than ${maxBytes} bytes`);
  const raw = await source.read(await dataOffset(source, entry), entry.compressedSize);
  if (entry.method === 0) return raw;
  try {
    return inflateRawSync(raw, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'Z_DATA_ERROR' || (error as { code?: unknown }).code === 'Z_BUF_ERROR')
      throw new ZipError(`${entry.name} cannot be decompressed`);
    throw error;
  }
}

/** Copies one entry of the archive at `path` to its own file, streamed (a split set's APKs may be hundreds of MB). */
export async function extractEntry(path: string, source: ByteSource, entry: ZipEntry, target: string): Promise<void> {
  assertReadable(entry);
  const start = await dataOffset(source, entry);
  const input = createReadStream(path, { start, end: start + entry.compressedSize - 1 });
  const output = createWriteStream(target, { mode: 0o600 });
  try {
    if (entry.compressedSize === 0) {
      input.destroy();
      await new Promise<void>((resolve, reject) => output.end((error?: Error | null) => (error ? reject(error) : resolve())));
    } else if (entry.method === 0) await pipeline(input, output);
    else await pipeline(input, createInflateRaw(), output);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'Z_DATA_ERROR' || (error as { code?: unknown }).code === 'Z_BUF_ERROR')
      throw new ZipError(`${entry.name} cannot be decompressed`);
    throw error;
  }
}
