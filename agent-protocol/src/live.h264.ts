/**
 * The little of H.264 a relay and a browser need without decoding pictures: cutting an Annex B packet into its NAL
 * units, reading the sequence parameter set's profile, level and picture size (ITU-T H.264 §7.3.2.1.1, exp-Golomb
 * coded), the WebCodecs codec string `avc1.PPCCLL` it implies, and the group of pictures a late watcher needs first.
 */

/** NAL unit types (H.264 table 7-1) the relay looks at. */
export const NAL = { slice: 1, idr: 5, sei: 6, sps: 7, pps: 8 } as const;

/** The NAL units of an Annex B byte stream (start codes removed). */
export function nalUnits(data: Uint8Array): Uint8Array[] {
  const units: Uint8Array[] = [];
  let start = -1;
  let at = 0;
  while (at + 2 < data.length) {
    if (data[at] === 0 && data[at + 1] === 0 && data[at + 2] === 1) {
      if (start >= 0) {
        let end = at;
        if (end > start && data[end - 1] === 0) end -= 1;
        units.push(data.subarray(start, end));
      }
      at += 3;
      start = at;
    } else at += 1;
  }
  if (start >= 0 && start < data.length) units.push(data.subarray(start));
  return units;
}

export function nalType(unit: Uint8Array): number {
  return (unit[0] ?? 0) & 0x1f;
}

/** Reads bits of an RBSP (emulation-prevention bytes removed), for exp-Golomb fields. */
class Bits {
  private readonly bytes: Uint8Array;
  private at = 0;

  constructor(unit: Uint8Array) {
    // Drop the 0x03 of every 00 00 03 (emulation prevention, §7.4.1).
    const out: number[] = [];
    for (let i = 0; i < unit.length; i++) {
      if (i >= 2 && unit[i] === 3 && unit[i - 1] === 0 && unit[i - 2] === 0) continue;
      out.push(unit[i] as number);
    }
    this.bytes = Uint8Array.from(out);
  }

  bit(): number {
    if (this.at >= this.bytes.length * 8) throw new RangeError('The parameter set ended early');
    const value = ((this.bytes[this.at >> 3] as number) >> (7 - (this.at & 7))) & 1;
    this.at += 1;
    return value;
  }

  bits(count: number): number {
    let value = 0;
    for (let i = 0; i < count; i++) value = value * 2 + this.bit();
    return value;
  }

  /** ue(v). */
  ue(): number {
    let zeros = 0;
    while (this.bit() === 0) {
      zeros += 1;
      if (zeros > 31) throw new RangeError('The parameter set holds a number too large');
    }
    return 2 ** zeros - 1 + this.bits(zeros);
  }

  /** se(v). */
  se(): number {
    const value = this.ue();
    return value % 2 === 1 ? (value + 1) / 2 : -value / 2;
  }
}

export interface SpsFacts {
  profile: number;
  constraints: number;
  level: number;
  width: number;
  height: number;
}

/** Profiles whose SPS carries chroma format and scaling lists (§7.3.2.1.1). */
const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

function skipScalingList(bits: Bits, size: number): void {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) next = (last + bits.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

/** Profile, level and cropped picture size of a sequence parameter set (a NAL unit of type 7, header included). */
export function readSps(unit: Uint8Array): SpsFacts {
  if (nalType(unit) !== NAL.sps) throw new RangeError('Not a sequence parameter set');
  const bits = new Bits(unit.subarray(1));
  const profile = bits.bits(8);
  const constraints = bits.bits(8);
  const level = bits.bits(8);
  bits.ue(); // seq_parameter_set_id
  let chromaFormat = 1;
  if (HIGH_PROFILES.has(profile)) {
    chromaFormat = bits.ue();
    if (chromaFormat === 3) bits.bit(); // separate_colour_plane_flag
    bits.ue(); // bit_depth_luma_minus8
    bits.ue(); // bit_depth_chroma_minus8
    bits.bit(); // qpprime_y_zero_transform_bypass_flag
    const scalingMatrix = bits.bit() === 1;
    if (scalingMatrix) {
      for (let i = 0; i < (chromaFormat !== 3 ? 8 : 12); i++) {
        const listPresent = bits.bit() === 1;
        if (listPresent) skipScalingList(bits, i < 6 ? 16 : 64);
      }
    }
  }
  bits.ue(); // log2_max_frame_num_minus4
  const pocType = bits.ue();
  if (pocType === 0) bits.ue();
  else if (pocType === 1) {
    bits.bit();
    bits.se();
    bits.se();
    const cycle = bits.ue();
    for (let i = 0; i < cycle; i++) bits.se();
  }
  bits.ue(); // max_num_ref_frames
  bits.bit(); // gaps_in_frame_num_value_allowed_flag
  const widthMbs = bits.ue() + 1;
  const heightMapUnits = bits.ue() + 1;
  const frameMbsOnly = bits.bit();
  if (frameMbsOnly === 0) bits.bit(); // mb_adaptive_frame_field_flag
  bits.bit(); // direct_8x8_inference_flag
  let crop = { left: 0, right: 0, top: 0, bottom: 0 };
  if (bits.bit() === 1) crop = { left: bits.ue(), right: bits.ue(), top: bits.ue(), bottom: bits.ue() };
  const cropX = chromaFormat === 0 || chromaFormat === 3 ? 1 : 2;
  const cropY = (chromaFormat === 1 ? 2 : 1) * (2 - frameMbsOnly);
  const width = widthMbs * 16 - cropX * (crop.left + crop.right);
  const height = (2 - frameMbsOnly) * heightMapUnits * 16 - cropY * (crop.top + crop.bottom);
  return { profile, constraints, level, width, height };
}

/** The codec string WebCodecs and MSE take for this SPS: `avc1.` and its profile, constraints and level in hex. */
export function avcCodecString(sps: Pick<SpsFacts, 'profile' | 'constraints' | 'level'>): string {
  const hex = (value: number) => value.toString(16).padStart(2, '0');
  return `avc1.${`${hex(sps.profile)}${hex(sps.constraints)}${hex(sps.level)}`.toUpperCase()}`;
}

/** The SPS facts of a configuration packet, or null when it holds none that can be read. */
export function configFacts(config: Uint8Array): SpsFacts | null {
  const sps = nalUnits(config).find((unit) => nalType(unit) === NAL.sps);
  if (!sps) return null;
  try {
    return readSps(sps);
  } catch {
    return null;
  }
}

export interface GopPacket {
  config: boolean;
  keyFrame: boolean;
  data: { byteLength: number };
}

/**
 * How old a cached key frame may be and still serve a watcher who joins: 1.5 times the 2 s key-frame interval the
 * streams ask the encoder for. An older one means the encoder is not keeping that pace (or the group was cut), and a
 * joiner would have a long run of pictures to decode before the present: the phone is asked for a fresh one instead.
 */
export const KEY_FRAME_MAX_AGE_MS = 3000;

/**
 * The codec configuration and the packets since the last key frame: what a watcher who joins now needs before the
 * next packet. A key frame starts the list again, so it never holds more than one group of pictures (bounded besides
 * by `maxBytes`: past it, only the configuration is kept and the watcher waits for the next key frame).
 */
export class KeyFrameCache<P extends GopPacket = GopPacket> {
  private config: P | null = null;
  private group: P[] = [];
  private groupBytes = 0;
  /** When the cached key frame came (the clock's ms). */
  private keyFrameAt = 0;
  /** The last packet was a configuration: scrcpy sends one only right before a key frame (start, reset, rotation). */
  private configLast = false;

  constructor(
    private readonly maxBytes = 16 * 1024 * 1024,
    private readonly clock: () => number = Date.now,
  ) {}

  add(packet: P): void {
    this.configLast = packet.config;
    if (packet.config) {
      this.config = packet;
      // New parameters (a rotation, a reset) make older pictures undecodable with them.
      this.dropGroup();
      return;
    }
    if (packet.keyFrame) {
      this.group = [packet];
      this.groupBytes = packet.data.byteLength;
      this.keyFrameAt = this.clock();
      return;
    }
    if (this.group.length === 0) return;
    this.groupBytes += packet.data.byteLength;
    if (this.groupBytes > this.maxBytes) {
      this.dropGroup();
      return;
    }
    this.group.push(packet);
  }

  /** The group cannot be decoded any more (a packet of it was lost): keep only the configuration until the next key frame. */
  dropGroup(): void {
    this.group = [];
    this.groupBytes = 0;
  }

  /** What a new watcher is sent first: the configuration, then the key frame and what followed it. */
  snapshot(): P[] {
    return [...(this.config ? [this.config] : []), ...this.group];
  }

  get hasKeyFrame(): boolean {
    return this.group.length > 0;
  }

  /**
   * Whether a watcher joining now is served without asking the encoder: the cache holds a configuration and a key
   * frame at most `maxAgeMs` old, or a configuration just came and its key frame is the next packet.
   */
  covers(maxAgeMs = KEY_FRAME_MAX_AGE_MS): boolean {
    if (this.configLast) return true;
    return this.config !== null && this.group.length > 0 && this.clock() - this.keyFrameAt <= maxAgeMs;
  }
}
