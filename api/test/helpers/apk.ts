/**
 * Minimal APKs built in the test, as no Android SDK is here and the repository holds no public APK fixture.
 *
 * The manifest is binary XML written by following the AOSP layout (source: AOSP
 * frameworks/base/libs/androidfw/include/androidfw/ResourceTypes.h: ResXMLTree_header, ResStringPool_header,
 * the resource map chunk, ResXMLTree_node + ResXMLTree_namespaceExt / ResXMLTree_attrExt / ResXMLTree_endElementExt,
 * ResXMLTree_attribute and Res_value), the way aapt2 writes it: `android:` attributes carry an empty-looking name
 * string matched through the resource map (android.R.attr.versionCode = 0x0101021b, versionName = 0x0101021c,
 * minSdkVersion = 0x0101020c), `package` and `split` are plain attributes of `<manifest>`, the version code is a
 * TYPE_INT_DEC value and the version name a TYPE_STRING one. The ZIP is PKWARE APPNOTE 6.3 (local headers, central
 * directory, end record), with entries stored or deflated.
 */
import { randomBytes } from 'node:crypto';
import { crc32, deflateRawSync } from 'node:zlib';

export interface ManifestSpec {
  package: string;
  versionCode: number;
  versionName?: string | null;
  split?: string;
  minSdk?: number;
  /** Write the string pool as UTF-8 (aapt2's default) or UTF-16 (older aapt). */
  utf8?: boolean;
  /** android:versionCodeMajor, the high 32 bits of the long version code. */
  versionCodeMajor?: number;
  /** The attack on a manifest reader: `references` extra pool entries all pointing at one string of `length` characters. */
  repeatedString?: { length: number; references: number };
}

const ANDROID_NS = 'http://schemas.android.com/apk/res/android';

function chunk(type: number, headerSize: number, header: Buffer, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16LE(type, 0);
  head.writeUInt16LE(headerSize, 2);
  head.writeUInt32LE(8 + header.length + body.length, 4);
  return Buffer.concat([head, header, body]);
}

/** A UTF-8 pool's length: one byte, or two with the high bit set past 0x7f. */
const utf8Length = (length: number) => (length > 0x7f ? [0x80 | (length >> 8), length & 0xff] : [length]);

function stringPool(strings: readonly string[], utf8: boolean, repeated?: { length: number; references: number }): Buffer {
  const data: Buffer[] = [];
  const count = strings.length + (repeated?.references ?? 0);
  const offsets = Buffer.alloc(count * 4);
  let offset = 0;
  strings.forEach((text, index) => {
    offsets.writeUInt32LE(offset, index * 4);
    let encoded: Buffer;
    if (utf8) {
      const bytes = Buffer.from(text, 'utf8');
      encoded = Buffer.concat([Buffer.from([...utf8Length(text.length), ...utf8Length(bytes.length)]), bytes, Buffer.from([0])]);
    } else {
      const length = Buffer.alloc(2);
      length.writeUInt16LE(text.length);
      encoded = Buffer.concat([length, Buffer.from(text, 'utf16le'), Buffer.alloc(2)]);
    }
    data.push(encoded);
    offset += encoded.length;
  });
  if (repeated) {
    // One long string written once; every extra entry points at it.
    const text = 'x'.repeat(repeated.length);
    const encoded = utf8
      ? Buffer.concat([Buffer.from([...utf8Length(text.length), ...utf8Length(text.length)]), Buffer.from(text), Buffer.from([0])])
      : Buffer.concat([Buffer.from([text.length & 0xff, text.length >> 8]), Buffer.from(text, 'utf16le'), Buffer.alloc(2)]);
    for (let index = strings.length; index < count; index += 1) offsets.writeUInt32LE(offset, index * 4);
    data.push(encoded);
  }
  let body = Buffer.concat([offsets, ...data]);
  if (body.length % 4) body = Buffer.concat([body, Buffer.alloc(4 - (body.length % 4))]);
  const header = Buffer.alloc(20);
  header.writeUInt32LE(count, 0);
  header.writeUInt32LE(0, 4);
  header.writeUInt32LE(utf8 ? 1 << 8 : 0, 8);
  header.writeUInt32LE(28 + count * 4, 12);
  header.writeUInt32LE(0, 16);
  return chunk(0x0001, 28, header, body);
}

type Value = { type: 'string'; index: number } | { type: 'int'; value: number };

function node(type: number, ext: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32LE(1, 0); // line number
  header.writeUInt32LE(0xffffffff, 4); // no comment
  return chunk(type, 16, header, ext);
}

function startElement(name: number, attributes: { ns: number; name: number; value: Value }[]): Buffer {
  const ext = Buffer.alloc(20 + attributes.length * 20);
  ext.writeUInt32LE(0xffffffff, 0);
  ext.writeUInt32LE(name, 4);
  ext.writeUInt16LE(20, 8);
  ext.writeUInt16LE(20, 10);
  ext.writeUInt16LE(attributes.length, 12);
  attributes.forEach((attribute, index) => {
    const at = 20 + index * 20;
    ext.writeUInt32LE(attribute.ns, at);
    ext.writeUInt32LE(attribute.name, at + 4);
    ext.writeUInt32LE(attribute.value.type === 'string' ? attribute.value.index : 0xffffffff, at + 8);
    ext.writeUInt16LE(8, at + 12);
    ext.writeUInt8(0, at + 14);
    ext.writeUInt8(attribute.value.type === 'string' ? 0x03 : 0x10, at + 15);
    ext.writeUInt32LE(attribute.value.type === 'string' ? attribute.value.index : attribute.value.value, at + 16);
  });
  return node(0x0102, ext);
}

function endElement(name: number): Buffer {
  const ext = Buffer.alloc(8);
  ext.writeUInt32LE(0xffffffff, 0);
  ext.writeUInt32LE(name, 4);
  return node(0x0103, ext);
}

/** A compiled AndroidManifest.xml with `<manifest>` and `<uses-sdk>`. */
export function buildManifest(spec: ManifestSpec): Buffer {
  // Resource-mapped names first (their index is their place in the map), then the rest.
  const strings = [
    'versionCode',
    'versionName',
    'minSdkVersion',
    'versionCodeMajor',
    'android',
    ANDROID_NS,
    'manifest',
    'package',
    'split',
    'uses-sdk',
    spec.package,
  ];
  const index = (text: string) => {
    const at = strings.indexOf(text);
    if (at >= 0) return at;
    strings.push(text);
    return strings.length - 1;
  };
  const ns = index(ANDROID_NS);
  const attributes: { ns: number; name: number; value: Value }[] = [
    { ns, name: 0, value: { type: 'int', value: spec.versionCode } },
    { ns: 0xffffffff, name: index('package'), value: { type: 'string', index: index(spec.package) } },
  ];
  if (spec.versionName !== null) attributes.splice(1, 0, { ns, name: 1, value: { type: 'string', index: index(spec.versionName ?? '1.0') } });
  if (spec.versionCodeMajor !== undefined) attributes.push({ ns, name: 3, value: { type: 'int', value: spec.versionCodeMajor } });
  if (spec.split) attributes.push({ ns: 0xffffffff, name: index('split'), value: { type: 'string', index: index(spec.split) } });
  const elements = [
    startElement(index('manifest'), attributes),
    startElement(index('uses-sdk'), [{ ns, name: 2, value: { type: 'int', value: spec.minSdk ?? 24 } }]),
    endElement(index('uses-sdk')),
    endElement(index('manifest')),
  ];
  const nsExt = Buffer.alloc(8);
  nsExt.writeUInt32LE(index('android'), 0);
  nsExt.writeUInt32LE(ns, 4);
  const resourceMap = Buffer.alloc(16);
  resourceMap.writeUInt32LE(0x0101021b, 0);
  resourceMap.writeUInt32LE(0x0101021c, 4);
  resourceMap.writeUInt32LE(0x0101020c, 8);
  resourceMap.writeUInt32LE(0x01010576, 12);
  const body = Buffer.concat([
    stringPool(strings, spec.utf8 ?? true, spec.repeatedString),
    chunk(0x0180, 8, Buffer.alloc(0), resourceMap),
    node(0x0100, nsExt),
    ...elements,
    node(0x0101, nsExt),
  ]);
  return chunk(0x0003, 8, Buffer.alloc(0), body);
}

export interface ZipFile {
  name: string;
  data: Buffer;
  /** Deflate it (default) or store it as is (how APKs sit inside .apks sets). */
  stored?: boolean;
  /** The size the archive claims the entry inflates to, when it lies (default: the truth). */
  declaredSize?: number;
}

/** A ZIP archive of these files. */
export function buildZip(files: readonly ZipFile[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, 'utf8');
    const data = file.stored ? file.data : deflateRawSync(file.data);
    const crc = crc32(file.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(file.stored ? 0 : 8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(file.declaredSize ?? file.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(file.stored ? 0 : 8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(file.declaredSize ?? file.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * The overlapping-entries ZIP bomb: every central directory record points at the first entry's local header, so one
 * stored kernel would be inflated once per name.
 */
export function overlappingZip(files: readonly ZipFile[]): Buffer {
  const zip = buildZip(files);
  const end = zip.length - 22;
  let at = zip.readUInt32LE(end + 16);
  for (let index = 0; index < files.length; index += 1) {
    zip.writeUInt32LE(0, at + 42);
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return zip;
}

/** An APK: its manifest, a dex stand-in, and a native library for each ABI. */
export function buildApk(spec: ManifestSpec & { abis?: readonly string[]; padding?: number }): Buffer {
  return buildZip([
    { name: 'AndroidManifest.xml', data: buildManifest(spec) },
    // Random bytes do not compress: `padding` is about what the APK weighs.
    { name: 'classes.dex', data: randomBytes(spec.padding ?? 64) },
    ...(spec.abis ?? []).map((abi) => ({ name: `lib/${abi}/libapp.so`, data: Buffer.from(`elf ${abi}`), stored: true })),
  ]);
}

/** A split set as APKMirror's .apkm / SAI's .apks lay it out: base.apk and split_<name>.apk side by side. */
export function buildSplitSet(base: ManifestSpec, splits: readonly { split: string; abis?: readonly string[] }[], extra: readonly ZipFile[] = []): Buffer {
  return buildZip([
    { name: 'base.apk', data: buildApk(base), stored: true },
    ...splits.map((split) => ({
      name: `split_${split.split}.apk`,
      data: buildApk({ package: base.package, versionCode: base.versionCode, split: split.split, ...(split.abis ? { abis: split.abis } : {}) }),
    })),
    ...extra,
  ]);
}
