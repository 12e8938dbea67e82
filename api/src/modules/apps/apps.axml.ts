/**
 * Reads an APK's compiled AndroidManifest.xml (binary XML, "AXML") far enough to know what the file is: the
 * `<manifest>` element's `package`, `split`, `android:versionCode`, `android:versionCodeMajor` and
 * `android:versionName`, and `<uses-sdk android:minSdkVersion>`. Layout from AOSP frameworks/base/libs/androidfw/include/androidfw/ResourceTypes.h
 * (ResChunk_header, ResStringPool_header, ResXMLTree_node, ResXMLTree_attrExt, ResXMLTree_attribute, Res_value).
 * Attribute names are matched by text or, as aapt2 writes `android:` ones, by their resource id in the resource map.
 *
 * Ours rather than a package's: the maintained readers (@devicefarmer/adbkit-apkreader, app-info-parser) read the
 * manifest whole with no cap and decode every string-pool entry on its own, which is the attack itself (200,000 entries
 * pointing at one 32 KB string). Here the caller caps the manifest at 4 MiB and the pool at 16 MiB of strings.
 */

import { appMessages, isAndroidPackageName } from '@farm/contracts';

/** The manifest cannot be read; the message is for the person who uploaded the file. */
export class ManifestError extends Error {}

export interface ApkManifest {
  package: string;
  /** The long version code: (versionCodeMajor << 32) | versionCode, as the package manager compares versions. */
  versionCode: number;
  /** Null when the manifest names it through a resource (`@string/...`) rather than as text. */
  versionName: string | null;
  /** The split's name (`config.arm64_v8a`); null for a base APK. */
  split: string | null;
  minSdk: number | null;
}

const RES_STRING_POOL_TYPE = 0x0001;
const RES_XML_TYPE = 0x0003;
const RES_XML_START_ELEMENT_TYPE = 0x0102;
const RES_XML_RESOURCE_MAP_TYPE = 0x0180;
const UTF8_FLAG = 1 << 8;
const TYPE_REFERENCE = 0x01;
const TYPE_STRING = 0x03;
const TYPE_FIRST_INT = 0x10;
const TYPE_LAST_INT = 0x1f;
const NO_INDEX = 0xffffffff;
const TWO_POW_32 = 2 ** 32;
const MAX_NAME = 255;

/** android.R.attr ids (public.xml): how aapt2 names these attributes. */
const ATTR_IDS = new Map<number, string>([
  [0x0101021b, 'versionCode'],
  [0x0101021c, 'versionName'],
  [0x0101020c, 'minSdkVersion'],
  [0x01010576, 'versionCodeMajor'],
]);

interface Attribute {
  name: string;
  /** Text (a string value), a number (an integer value), or null (a reference or another type). */
  value: string | number | null;
}

/** The most bytes of strings one manifest may decode: every pool entry counts, however many share the same bytes. */
export const MAX_MANIFEST_STRING_BYTES = 16 * 1024 * 1024;
/** Far past any real manifest (a few thousand strings); each entry costs a little even when empty. */
const MAX_POOL_STRINGS = 262_144;

/**
 * A string pool read lazily: each entry's length is read (and counted against the cap) up front, its text decoded only
 * when an element asks for it, once per distinct offset. A pool of 200,000 entries pointing at one 32 KB string is
 * 6.5 GB of text if each is decoded on its own: here it is refused before anything is decoded.
 */
class StringPool {
  private readonly spans: { at: number; length: number }[] = [];
  private readonly decoded = new Map<number, string>();

  constructor(
    private readonly bytes: Buffer,
    start: number,
    headerSize: number,
    end: number,
  ) {
    const count = bytes.readUInt32LE(start + 8);
    const flags = bytes.readUInt32LE(start + 16);
    const stringsStart = start + bytes.readUInt32LE(start + 20);
    this.utf8 = (flags & UTF8_FLAG) !== 0;
    if (count > MAX_POOL_STRINGS) throw new ManifestError('The manifest string pool is too large');
    if (start + headerSize + count * 4 > end) throw new ManifestError('The APK manifest is damaged');
    let total = 0;
    for (let index = 0; index < count; index += 1) {
      const span = this.span(stringsStart + bytes.readUInt32LE(start + headerSize + index * 4), end);
      total += span.length;
      if (total > MAX_MANIFEST_STRING_BYTES) throw new ManifestError('The APK manifest holds more than 16 MB of strings');
      this.spans.push(span);
    }
  }

  private readonly utf8: boolean;

  /** Where an entry's text is and how many bytes it takes, clipped to the chunk. */
  private span(offset: number, end: number): { at: number; length: number } {
    const bytes = this.bytes;
    let at = offset;
    let length: number;
    if (this.utf8) {
      // UTF-16 length then UTF-8 length, each 1 byte or 2 with the high bit set.
      at += bytes.readUInt8(at) & 0x80 ? 2 : 1;
      length = bytes.readUInt8(at);
      if (length & 0x80) {
        length = ((length & 0x7f) << 8) | bytes.readUInt8(at + 1);
        at += 2;
      } else at += 1;
    } else {
      length = bytes.readUInt16LE(at);
      if (length & 0x8000) {
        length = ((length & 0x7fff) << 16) | bytes.readUInt16LE(at + 2);
        at += 4;
      } else at += 2;
      length *= 2;
    }
    return { at, length: Math.max(0, Math.min(length, end - at)) };
  }

  get(index: number): string | undefined {
    const span = this.spans[index];
    if (!span) return undefined;
    const known = this.decoded.get(span.at);
    if (known !== undefined) return known;
    const text = this.bytes.toString(this.utf8 ? 'utf8' : 'utf16le', span.at, span.at + span.length);
    this.decoded.set(span.at, text);
    return text;
  }
}

/** Every start tag with its attributes, in document order (the manifest's first tag is `<manifest>`). */
export function readAxmlElements(bytes: Buffer): { name: string; attributes: Attribute[] }[] {
  try {
    return readElements(bytes);
  } catch (error) {
    if (error instanceof ManifestError) throw error;
    // A read past the end (RangeError) is a damaged or truncated file.
    throw new ManifestError('The APK manifest is damaged');
  }
}

function readElements(bytes: Buffer): { name: string; attributes: Attribute[] }[] {
  if (bytes.length < 8 || bytes.readUInt16LE(0) !== RES_XML_TYPE) throw new ManifestError('The APK manifest is not compiled Android XML');
  const end = Math.min(bytes.length, bytes.readUInt32LE(4));
  let strings: StringPool | null = null;
  const text = (index: number) => strings?.get(index);
  let resourceIds: number[] = [];
  const elements: { name: string; attributes: Attribute[] }[] = [];
  let at = bytes.readUInt16LE(2);
  while (at + 8 <= end) {
    const type = bytes.readUInt16LE(at);
    const headerSize = bytes.readUInt16LE(at + 2);
    const size = bytes.readUInt32LE(at + 4);
    if (size < 8 || at + size > end) throw new ManifestError('The APK manifest is damaged');
    if (type === RES_STRING_POOL_TYPE) {
      // One pool per manifest: a second would double what the cap allows.
      if (strings) throw new ManifestError('The APK manifest is damaged');
      strings = new StringPool(bytes, at, headerSize, at + size);
    } else if (type === RES_XML_RESOURCE_MAP_TYPE) {
      resourceIds = [];
      for (let offset = at + headerSize; offset + 4 <= at + size; offset += 4) resourceIds.push(bytes.readUInt32LE(offset));
    } else if (type === RES_XML_START_ELEMENT_TYPE) {
      const ext = at + headerSize;
      const nameIndex = bytes.readUInt32LE(ext + 4);
      const attributeStart = bytes.readUInt16LE(ext + 8);
      const attributeSize = bytes.readUInt16LE(ext + 10);
      const attributeCount = bytes.readUInt16LE(ext + 12);
      // Every attribute inside its own chunk, none of them sharing bytes: a chunk cannot claim 65,535 of them.
      if (attributeCount > 0 && (attributeSize < 20 || ext + attributeStart + attributeCount * attributeSize > at + size))
        throw new ManifestError('The APK manifest is damaged');
      const attributes: Attribute[] = [];
      for (let index = 0; index < attributeCount; index += 1) {
        const base = ext + attributeStart + index * attributeSize;
        const attrName = bytes.readUInt32LE(base + 4);
        const rawValue = bytes.readUInt32LE(base + 8);
        const dataType = bytes.readUInt8(base + 15);
        const data = bytes.readUInt32LE(base + 16);
        const byId = ATTR_IDS.get(resourceIds[attrName] ?? -1);
        const name = byId ?? text(attrName) ?? '';
        let value: string | number | null = null;
        if (dataType === TYPE_STRING) value = text(data) ?? null;
        else if (dataType >= TYPE_FIRST_INT && dataType <= TYPE_LAST_INT) value = data;
        else if (dataType !== TYPE_REFERENCE && rawValue !== NO_INDEX) value = text(rawValue) ?? null;
        attributes.push({ name, value });
      }
      elements.push({ name: text(nameIndex) ?? '', attributes });
    }
    at += size;
  }
  return elements;
}

/** An integer attribute, written as a number or (rarely) as decimal text; a text past 32 bits is not one. */
function wholeNumber(value: string | number | null): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d{1,10}$/.test(value) && Number(value) < TWO_POW_32) return Number(value);
  return null;
}

/** The manifest's facts; a manifest without a package or version code is refused. */
export function readManifest(bytes: Buffer): ApkManifest {
  const elements = readAxmlElements(bytes);
  const manifest = elements.find((element) => element.name === 'manifest');
  if (!manifest) throw new ManifestError('The APK manifest has no <manifest> element');
  const attr = (element: { attributes: Attribute[] } | undefined, name: string) => element?.attributes.find((item) => item.name === name)?.value ?? null;
  const packageName = attr(manifest, 'package');
  if (typeof packageName !== 'string' || packageName.length === 0) throw new ManifestError('The APK manifest names no package');
  if (!isAndroidPackageName(packageName)) {
    const shown = packageName.length > 80 ? `${packageName.slice(0, 80)}…` : packageName;
    throw new ManifestError(appMessages.badPackage(shown));
  }
  const code = wholeNumber(attr(manifest, 'versionCode'));
  if (code === null) throw new ManifestError('The APK manifest has no version code');
  const major = wholeNumber(attr(manifest, 'versionCodeMajor')) ?? 0;
  // The package manager's long version code: versionCodeMajor in the high 32 bits, versionCode (unsigned) in the low.
  // A major past 2^21 is past what a number holds exactly; no published app comes near it.
  if (major >= 2 ** 21) throw new ManifestError(`The APK manifest's versionCodeMajor ${major} is larger than this console can store (at most ${2 ** 21 - 1})`);
  const versionName = attr(manifest, 'versionName');
  const split = attr(manifest, 'split');
  // Both are stored and shown: a name of megabytes is not a name.
  if (versionName !== null && String(versionName).length > MAX_NAME)
    throw new ManifestError(`The APK manifest's version name is longer than ${MAX_NAME} characters`);
  if (typeof split === 'string' && split.length > MAX_NAME) throw new ManifestError(`The APK manifest's split name is longer than ${MAX_NAME} characters`);
  const minSdk = attr(
    elements.find((element) => element.name === 'uses-sdk'),
    'minSdkVersion',
  );
  return {
    package: packageName,
    versionCode: major * TWO_POW_32 + code,
    versionName: versionName === null ? null : String(versionName),
    split: typeof split === 'string' && split.length > 0 ? split : null,
    minSdk: wholeNumber(minSdk),
  };
}
