/**
 * The relay's and the browser's reading of H.264, on streams Debian's ffmpeg (libx264) makes: NAL units cut from
 * Annex B, the SPS's profile, level and cropped picture size (baseline and high profile, a width that is not a
 * multiple of 16), and the WebCodecs codec string.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { avcCodecString, configFacts, KeyFrameCache, NAL, nalType, nalUnits, readSps } from './live.h264.ts';

function encode(size: string, profile: 'baseline' | 'high'): Buffer {
  return execFileSync(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc=size=${size}:rate=30`, '-frames:v', '3'],
      ...['-c:v', 'libx264', '-profile:v', profile, '-pix_fmt', 'yuv420p', '-preset', profile === 'high' ? 'veryfast' : 'ultrafast', '-f', 'h264', '-'],
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
}

describe('H.264 as the relay reads it', () => {
  it('cuts an Annex B stream into NAL units: SPS, PPS, then the pictures', () => {
    const units = nalUnits(encode('160x320', 'baseline'));
    const types = units.map(nalType);
    expect(types.slice(0, 2)).toEqual([NAL.sps, NAL.pps]);
    expect(types).toContain(NAL.idr);
    expect(types.filter((type) => type === NAL.slice).length).toBeGreaterThanOrEqual(2);
  });

  it('reads the picture size, profile and level of baseline and high profile SPSs, cropping included', () => {
    const baseline = configFacts(encode('160x320', 'baseline'));
    expect(baseline).toMatchObject({ profile: 66, width: 160, height: 320 });
    expect(avcCodecString(baseline!)).toMatch(/^avc1\.42[0-9A-F]{2}[0-9A-F]{2}$/);
    // 324 × 720 is coded as 336 × 720 and cropped back (frame_cropping in the SPS).
    const high = configFacts(encode('324x720', 'high'));
    expect(high).toMatchObject({ profile: 100, width: 324, height: 720 });
    expect(avcCodecString(high!)).toMatch(/^avc1\.6400[0-9A-F]{2}$/);
  });

  it('refuses what is not an SPS, and answers null for a configuration without one', () => {
    expect(() => readSps(Uint8Array.from([0x68, 0xce, 0x38, 0x80]))).toThrow('Not a sequence parameter set');
    expect(configFacts(Uint8Array.from([0, 0, 0, 1, 0x68, 0xce, 0x38, 0x80]))).toBeNull();
    expect(configFacts(Uint8Array.from([0, 0, 0, 1, 0x67]))).toBeNull();
  });

  it('keeps the configuration and the current group of pictures for a late watcher', () => {
    const cache = new KeyFrameCache();
    const packet = (config: boolean, keyFrame: boolean, bytes = 10) => ({ config, keyFrame, data: new Uint8Array(bytes) });
    cache.add(packet(false, false));
    expect(cache.hasKeyFrame).toBe(false);
    const config = packet(true, false);
    cache.add(config);
    const key = packet(false, true);
    cache.add(key);
    const delta = packet(false, false);
    cache.add(delta);
    expect(cache.snapshot()).toEqual([config, key, delta]);
    const nextKey = packet(false, true);
    cache.add(nextKey);
    expect(cache.snapshot()).toEqual([config, nextKey]);
  });
});
