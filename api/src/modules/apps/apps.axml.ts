/**
 * Reads an APK's compiled AndroidManifest.xml (binary XML, "AXML") far enough to know what the file is: the
 * `<manifest>` element's `package`, `split`, `android:versionCode` and `android:versionName`, and `<uses-sdk
 * android:minSdkVersion>`. Layout from AOSP frameworks/base/libs/androidfw/include/androidfw/ResourceTypes.h
 * (ResChunk_header, ResStringPool_header, ResXMLTree_node, ResXMLTree_attrExt, ResXMLTree_attribute, Res_value).
 * Attribute names are matched by text or, as aapt2 writes `android:` ones, by their resource id in the resource map.
 */

/** The manifest cannot be read; the message is for the person who uploaded the file. */
export class ManifestError extends Error {}

export interface ApkManifest {
  package: string;
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

/** android.R.attr ids (public.xml): how aapt2 names these attributes. */
const ATTR_IDS = new Map<number, string>([
  [0x0101021b, 'versionCode'],
  [0x0101021c, 'versionName'],
  [0x0101020c, 'minSdkVersion'],
]);

interface Attribute {
  name: string;
  /** Text (a string value), a number (an integer value), or null (a reference or another type). */
  value: string | number | null;
}

function readStringPool(bytes: Buffer, start: number, headerSize: number): string[] {
  const count = bytes.readUInt32LE(start + 8);
  const flags = bytes.readUInt32LE(start + 16);
  const stringsStart = start + bytes.readUInt32LE(start + 20);
  const utf8 = (flags & UTF8_FLAG) !== 0;
  if (count > 200_000) throw new ManifestError('The manifest string pool is too large');
  const strings: string[] = [];
  for (let index = 0; index < count; index += 1) {
    let at = stringsStart + bytes.readUInt32LE(start + headerSize + index * 4);
    if (utf8) {
      // UTF-16 length then UTF-8 length, each 1 byte or 2 with the high bit set.
      at += (bytes[at] ?? 0) & 0x80 ? 2 : 1;
      let length = bytes[at] ?? 0;
      if (length & 0x80) {
        length = ((length & 0x7f) << 8) | (bytes[at + 1] ?? 0);
        at += 2;
      } else at += 1;
      strings.push(bytes.toString('utf8', at, at + length));
    } else {
      let length = bytes.readUInt16LE(at);
      if (length & 0x8000) {
        length = ((length & 0x7fff) << 16) | bytes.readUInt16LE(at + 2);
        at += 4;
      } else at += 2;
      strings.push(bytes.toString('utf16le', at, at + length * 2));
    }
  }
  return strings;
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
  let strings: string[] = [];
  let resourceIds: number[] = [];
  const elements: { name: string; attributes: Attribute[] }[] = [];
  let at = bytes.readUInt16LE(2);
  while (at + 8 <= end) {
    const type = bytes.readUInt16LE(at);
    const headerSize = bytes.readUInt16LE(at + 2);
    const size = bytes.readUInt32LE(at + 4);
    if (size < 8 || at + size > end) throw new ManifestError('The APK manifest is damaged');
    if (type === RES_STRING_POOL_TYPE) strings = readStringPool(bytes, at, headerSize);
    else if (type === RES_XML_RESOURCE_MAP_TYPE) {
      resourceIds = [];
      for (let offset = at + headerSize; offset + 4 <= at + size; offset += 4) resourceIds.push(bytes.readUInt32LE(offset));
    } else if (type === RES_XML_START_ELEMENT_TYPE) {
      const ext = at + headerSize;
      const nameIndex = bytes.readUInt32LE(ext + 4);
      const attributeStart = bytes.readUInt16LE(ext + 8);
      const attributeSize = bytes.readUInt16LE(ext + 10);
      const attributeCount = bytes.readUInt16LE(ext + 12);
      const attributes: Attribute[] = [];
      for (let index = 0; index < attributeCount; index += 1) {
        const base = ext + attributeStart + index * attributeSize;
        const attrName = bytes.readUInt32LE(base + 4);
        const rawValue = bytes.readUInt32LE(base + 8);
        const dataType = bytes.readUInt8(base + 15);
        const data = bytes.readUInt32LE(base + 16);
        const byId = ATTR_IDS.get(resourceIds[attrName] ?? -1);
        const name = byId ?? strings[attrName] ?? '';
        let value: string | number | null = null;
        if (dataType === TYPE_STRING) value = strings[data] ?? null;
        else if (dataType >= TYPE_FIRST_INT && dataType <= TYPE_LAST_INT) value = data;
        else if (dataType !== TYPE_REFERENCE && rawValue !== NO_INDEX) value = strings[rawValue] ?? null;
        attributes.push({ name, value });
      }
      elements.push({ name: strings[nameIndex] ?? '', attributes });
    }
    at += size;
  }
  return elements;
}

/** The manifest's facts; a manifest without a package or version code is refused. */
export function readManifest(bytes: Buffer): ApkManifest {
  const elements = readAxmlElements(bytes);
  const manifest = elements.find((element) => element.name === 'manifest');
  if (!manifest) throw new ManifestError('The APK manifest has no <manifest> element');
  const attr = (element: { attributes: Attribute[] } | undefined, name: string) => element?.attributes.find((item) => item.name === name)?.value ?? null;
  const packageName = attr(manifest, 'package');
  if (typeof packageName !== 'string' || packageName.length === 0) throw new ManifestError('The APK manifest names no package');
  const versionCode = attr(manifest, 'versionCode');
  const code = typeof versionCode === 'number' ? versionCode : typeof versionCode === 'string' && /^\d+$/.test(versionCode) ? Number(versionCode) : null;
  if (code === null) throw new ManifestError('The APK manifest has no version code');
  const versionName = attr(manifest, 'versionName');
  const split = attr(manifest, 'split');
  const minSdk = attr(
    elements.find((element) => element.name === 'uses-sdk'),
    'minSdkVersion',
  );
  return {
    package: packageName,
    versionCode: code,
    versionName: versionName === null ? null : String(versionName),
    split: typeof split === 'string' && split.length > 0 ? split : null,
    minSdk: typeof minSdk === 'number' ? minSdk : typeof minSdk === 'string' && /^\d+$/.test(minSdk) ? Number(minSdk) : null,
  };
}
