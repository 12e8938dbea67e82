/**
 * The splits a phone needs from a split set, as bundletool picks them for a device spec: the ABI first in the phone's
 * list, the density resource selection picks (bundletool's ScreenDensitySelector), the phone's language.
 */
import { describe, expect, it } from 'vitest';
import { simulatedPackagePhone } from '../host/host.apps.ts';
import { bestDensity, configOf, readDeviceSpec, splitsFor } from './adb.splits.ts';

const set = [
  'base',
  'config.arm64_v8a',
  'config.armeabi_v7a',
  'config.x86_64',
  'config.mdpi',
  'config.hdpi',
  'config.xhdpi',
  'config.xxhdpi',
  'config.xxxhdpi',
  'config.en',
  'config.fr',
  'config.de',
  'camera',
  'camera.config.fr',
  'camera.config.en',
].map((name) => ({ name }));
const names = (files: { name: string }[]) => files.map((file) => file.name);

describe('the splits a phone needs', () => {
  it('reads what each split configures from its name', () => {
    expect(configOf('config.arm64_v8a')).toEqual({ owner: 'base', dimension: 'abi', value: 'arm64_v8a' });
    expect(configOf('split_config.xxhdpi.apk')).toEqual({ owner: 'base', dimension: 'density', value: 'xxhdpi' });
    expect(configOf('camera.config.fr')).toEqual({ owner: 'camera', dimension: 'language', value: 'fr' });
    expect(configOf('base')).toBeNull();
    expect(configOf('camera')).toBeNull();
  });

  it('picks densities as resource selection does: scaling down is twice as good as scaling up', () => {
    const all = [160, 240, 320, 480, 640];
    expect(bestDensity(all, 480)).toBe(480);
    expect(bestDensity(all, 420)).toBe(480);
    // (2·320 − 360)·480 = 134400 > 360² = 129600: the lower one.
    expect(bestDensity(all, 360)).toBe(320);
    expect(bestDensity(all, 120)).toBe(160);
    expect(bestDensity(all, 800)).toBe(640);
    expect(bestDensity([240, 640], 300)).toBe(240);
    expect(bestDensity([240, 640], 320)).toBe(640);
  });

  it('keeps the base, feature splits, the preferred ABI, the nearest density and the phone’s language', () => {
    const picked = splitsFor(set, { abis: ['arm64-v8a', 'armeabi-v7a', 'armeabi'], density: 420, locales: ['fr-FR'] });
    expect(names(picked)).toEqual(['base', 'config.arm64_v8a', 'config.xxhdpi', 'config.fr', 'camera', 'camera.config.fr']);
    const x86 = splitsFor(set, { abis: ['x86_64', 'x86', 'arm64-v8a'], density: 320, locales: ['de-AT'] });
    expect(names(x86)).toEqual(['base', 'config.x86_64', 'config.xhdpi', 'config.de', 'camera']);
  });

  it('keeps every split of what the phone does not say, and every ABI split when none fits', () => {
    expect(names(splitsFor(set, { abis: [], density: null, locales: [] }))).toEqual(names(set));
    const mips = splitsFor(set, { abis: ['mips'], density: 480, locales: ['iw-IL'] });
    expect(names(mips)).toEqual(['base', 'config.arm64_v8a', 'config.armeabi_v7a', 'config.x86_64', 'config.xxhdpi', 'camera']);
  });

  it('reads the phone’s ABIs, density and language', async () => {
    const phone = {
      ...simulatedPackagePhone(),
      exec: async (command: string) =>
        command === 'getprop ro.product.cpu.abilist' ? 'arm64-v8a,armeabi-v7a,armeabi\n' : command === 'getprop ro.sf.lcd_density' ? '420\n' : '',
      locale: async () => 'fr-FR',
    };
    expect(await readDeviceSpec(phone)).toEqual({ abis: ['arm64-v8a', 'armeabi-v7a', 'armeabi'], density: 420, locales: ['fr-FR'] });
  });
});
