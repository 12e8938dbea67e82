/**
 * What the fake phone's package manager reads from a real APK: the package, version code, version name and split
 * name of its compiled `AndroidManifest.xml`, as PackageParser does before it installs anything. Enough of the two
 * formats for that, written from their specifications, not from the console's reader:
 * - the ZIP is PKWARE APPNOTE 6.3: the end of central directory record (0x06054b50) names the central directory,
 *   whose headers (0x02014b50) give each entry's method, compressed size and local header offset; the local header
 *   (0x04034b50) is followed by the data, stored (0) or deflated (8);
 * - the manifest is AOSP binary XML (frameworks/base/libs/androidfw/include/androidfw/ResourceTypes.h): chunks of
 *   ResChunk_header; RES_STRING_POOL_TYPE (0x0001) with UTF-8 or UTF-16 strings, RES_XML_RESOURCE_MAP_TYPE (0x0180)
 *   mapping attribute names to android.R.attr ids (versionCode 0x0101021b, versionName 0x0101021c), and the first
 *   RES_XML_START_ELEMENT_TYPE (0x0102), `<manifest>`, whose ResXMLTree_attribute entries carry a raw string or a
 *   Res_value (TYPE_STRING 0x03, TYPE_INT_DEC 0x10, TYPE_INT_HEX 0x11).
 * Anything it cannot read is null: the package manager answers INSTALL_PARSE_FAILED_NOT_APK.
 */
import { inflateRawSync } from 'node:zlib';

export interface ApkManifestFacts {
  package: string;
  versionCode: number;
  versionName: string;
  split?: string;
}

const VERSION_CODE = 0x0101021b;
const VERSION_NAME = 0x0101021c;
const NO_STRING = 0xffffffff;

/** Whether the bytes begin as a ZIP does (a local file header). */
export function looksLikeZip(data: Buffer): boolean {
  return data.length >= 4 && data.readUInt32LE(0) === 0x04034b50;
}

function zipEntry(zip: Buffer, wanted: string): Buffer | null {
  // The end record is the last 22 bytes, or earlier when a comment (up to 65535 bytes) follows it.
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at -= 1)
    if (zip.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  if (end < 0) return null;
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let index = 0; index < count; index += 1) {
    if (zip.readUInt32LE(at) !== 0x02014b50) return null;
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    if (name === wanted) {
      if (zip.readUInt32LE(local) !== 0x04034b50) return null;
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + compressed);
      if (method === 0) return data;
      return method === 8 ? inflateRawSync(data) : null;
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  return null;
}

function readPool(xml: Buffer, chunk: number): string[] {
  const count = xml.readUInt32LE(chunk + 8);
  const utf8 = (xml.readUInt32LE(chunk + 16) & (1 << 8)) !== 0;
  const strings = chunk + xml.readUInt32LE(chunk + 20);
  const offsets = chunk + xml.readUInt16LE(chunk + 2);
  const pool: string[] = [];
  for (let index = 0; index < count; index += 1) {
    let at = strings + xml.readUInt32LE(offsets + index * 4);
    if (utf8) {
      // The length in characters, then in bytes, each one byte or two with the high bit set.
      at += xml[at]! & 0x80 ? 2 : 1;
      const bytes = xml[at]! & 0x80 ? ((xml[at]! & 0x7f) << 8) | xml[at + 1]! : xml[at]!;
      at += xml[at]! & 0x80 ? 2 : 1;
      pool.push(xml.toString('utf8', at, at + bytes));
    } else {
      let length = xml.readUInt16LE(at);
      at += 2;
      if (length & 0x8000) {
        length = ((length & 0x7fff) << 16) | xml.readUInt16LE(at);
        at += 2;
      }
      pool.push(xml.toString('utf16le', at, at + length * 2));
    }
  }
  return pool;
}

function readManifestXml(xml: Buffer): ApkManifestFacts | null {
  if (xml.length < 8 || xml.readUInt16LE(0) !== 0x0003) return null;
  let pool: string[] = [];
  let ids: number[] = [];
  for (let at = xml.readUInt16LE(2); at + 8 <= xml.length; ) {
    const type = xml.readUInt16LE(at);
    const size = xml.readUInt32LE(at + 4);
    if (size < 8) return null;
    if (type === 0x0001) pool = readPool(xml, at);
    if (type === 0x0180) ids = Array.from({ length: (size - 8) / 4 }, (_, index) => xml.readUInt32LE(at + 8 + index * 4));
    if (type === 0x0102) {
      // ResXMLTree_node (its header), then ResXMLTree_attrExt: ns, name, attributeStart, attributeSize, attributeCount.
      const ext = at + xml.readUInt16LE(at + 2);
      const first = ext + xml.readUInt16LE(ext + 8);
      const stride = xml.readUInt16LE(ext + 10);
      const facts: Partial<ApkManifestFacts> = {};
      for (let index = 0; index < xml.readUInt16LE(ext + 12); index += 1) {
        const attribute = first + index * stride;
        const name = xml.readUInt32LE(attribute + 4);
        const raw = xml.readUInt32LE(attribute + 8);
        const dataType = xml[attribute + 15];
        const data = xml.readUInt32LE(attribute + 16);
        const text = raw !== NO_STRING ? pool[raw] : dataType === 0x03 ? pool[data] : undefined;
        const id = ids[name];
        if (id === VERSION_CODE && (dataType === 0x10 || dataType === 0x11)) facts.versionCode = data;
        else if (id === VERSION_NAME && text !== undefined) facts.versionName = text;
        else if (id === undefined && pool[name] === 'package' && text) facts.package = text;
        else if (id === undefined && pool[name] === 'split' && text) facts.split = text;
      }
      if (!facts.package || facts.versionCode === undefined) return null;
      return {
        package: facts.package,
        versionCode: facts.versionCode,
        versionName: facts.versionName ?? String(facts.versionCode),
        ...(facts.split ? { split: facts.split } : {}),
      };
    }
    at += size;
  }
  return null;
}

/** The manifest's facts of an APK, or null when it is not one this can read. */
export function readApkManifest(data: Buffer): ApkManifestFacts | null {
  try {
    const xml = zipEntry(data, 'AndroidManifest.xml');
    return xml ? readManifestXml(xml) : null;
  } catch {
    return null;
  }
}
