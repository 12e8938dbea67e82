/**
 * Which files of a split set a phone needs, as bundletool picks them for a device spec: the base and every split that
 * is not a configuration split, then per configuration dimension only the split that fits the phone: the ABI the phone
 * prefers most (its `ro.product.cpu.abilist` order), the screen density that resource selection on the phone would
 * pick, and the languages of the phone's locale. A dimension the phone does not report keeps all its splits (the
 * package manager then has its say, as before). Split names are the manifests' `split` attributes as the console's
 * APK reader stores them (`config.arm64_v8a`, `config.xxhdpi`, `config.fr`; a feature's own `feature.config.fr`);
 * the `split_` prefix and `.apk` suffix of .apks/.xapk file names are tolerated.
 */
import type { PackagePhone } from './adb.packages.ts';
import { commandLimits } from './adb.shell.ts';

export interface DeviceSpec {
  /** ABIs in the phone's order of preference (`arm64-v8a`, `armeabi-v7a`, …); empty when unknown. */
  abis: string[];
  /** The screen's density in dpi; null when unknown. */
  density: number | null;
  /** BCP 47 tags of the phone's languages (`fr-FR`); empty when unknown. */
  locales: string[];
}

/** bundletool's DensityAlias and their dpi (ResourcesUtils.DENSITY_ALIAS_TO_DPI_MAP). */
const densityDpi: Readonly<Record<string, number>> = { ldpi: 120, mdpi: 160, tvdpi: 213, hdpi: 240, xhdpi: 320, xxhdpi: 480, xxxhdpi: 640 };
/** The ABIs a split can target (bundletool's AbiAlias), as they appear in split names. */
const abiNames = new Set(['armeabi', 'armeabi_v7a', 'arm64_v8a', 'x86', 'x86_64', 'mips', 'mips64', 'riscv64']);
/** Java's legacy language codes, which older phones report, and the ISO 639 codes split names use. */
const languageAliases: Readonly<Record<string, string>> = { iw: 'he', in: 'id', ji: 'yi' };

type Dimension = 'abi' | 'density' | 'language';

interface Config {
  /** The module the split configures: `base`, or a feature's name. */
  owner: string;
  dimension: Dimension;
  value: string;
}

/** `config.arm64_v8a` → the base's ABI split; `feature.config.fr` → the feature's language split; null when not a config split. */
export function configOf(name: string): Config | null {
  const plain = name.replace(/^split_/, '').replace(/\.apk$/, '');
  const match = /^(?:(.+)\.)?config\.([^.]+)$/.exec(plain);
  if (!match) return null;
  const value = (match[2] as string).toLowerCase();
  const dimension: Dimension = abiNames.has(value) ? 'abi' : value in densityDpi ? 'density' : 'language';
  return { owner: match[1] ?? 'base', dimension, value };
}

/**
 * The density bundletool's ScreenDensitySelector picks for a device, following the framework's resource selection
 * (`ScreenDensityComparator.compareOrdered`, google/bundletool
 * src/main/java/com/android/tools/build/bundletool/model/targeting/ScreenDensitySelector.java at 1de340a, and the
 * comment in AOSP ResourceTypes.cpp it cites: "scaling down is 2x better than up"). Of two densities around the
 * device's, the lower one wins when (2·lower − device)·higher > device², else the higher one; a density at or below
 * every candidate takes the lowest, one at or above every candidate the highest.
 */
export function bestDensity(candidates: readonly number[], deviceDpi: number): number | undefined {
  const better = (a: number, b: number): number => {
    if (a === b) return a;
    const [lower, higher] = a < b ? [a, b] : [b, a];
    if (deviceDpi >= higher) return higher;
    if (deviceDpi <= lower) return lower;
    return (2 * lower - deviceDpi) * higher > deviceDpi * deviceDpi ? lower : higher;
  };
  return candidates.reduce<number | undefined>((best, dpi) => (best === undefined ? dpi : better(best, dpi)), undefined);
}

function language(tag: string): string {
  const code = (tag.split(/[-_]/)[0] ?? '').toLowerCase();
  return languageAliases[code] ?? code;
}

/** The files of the set this phone needs, in the set's order (the base first, as it came). */
export function splitsFor<T extends { name: string }>(files: readonly T[], spec: DeviceSpec): T[] {
  const groups = new Map<string, { config: Config; file: T }[]>();
  for (const file of files) {
    const config = configOf(file.name);
    if (!config) continue;
    const key = `${config.owner}/${config.dimension}`;
    groups.set(key, [...(groups.get(key) ?? []), { config, file }]);
  }
  const keep = new Set<T>(files.filter((file) => configOf(file.name) === null));
  const deviceAbis = spec.abis.map((abi) => abi.toLowerCase().replace(/-/g, '_'));
  const languages = new Set(spec.locales.map(language).filter((code) => code !== ''));
  for (const group of groups.values()) {
    const dimension = group[0]?.config.dimension;
    let chosen = group;
    if (dimension === 'abi' && deviceAbis.length > 0) {
      // bundletool's AbiMatcher: the phone's most preferred ABI that the set carries.
      const abi = deviceAbis.find((name) => group.some((item) => item.config.value === name));
      if (abi) chosen = group.filter((item) => item.config.value === abi);
    } else if (dimension === 'density' && spec.density !== null && spec.density > 0) {
      const dpi = bestDensity(
        group.map((item) => densityDpi[item.config.value] as number),
        spec.density,
      );
      chosen = group.filter((item) => densityDpi[item.config.value] === dpi);
    } else if (dimension === 'language' && languages.size > 0) {
      // bundletool's LanguageMatcher: the splits of the phone's languages; the base carries the default strings.
      chosen = group.filter((item) => languages.has(languageAliases[item.config.value] ?? item.config.value));
    }
    for (const item of chosen) keep.add(item.file);
  }
  return files.filter((file) => keep.has(file));
}

/**
 * What the phone says of its ABIs, density and language, read as bundletool's DeviceAnalyzer reads a device (the ABI
 * list, `ro.sf.lcd_density`, and the locale properties: `AdbPhone.locale`); what it cannot say stays unknown and all
 * splits of that dimension are kept.
 */
export async function readDeviceSpec(phone: PackagePhone, timeoutMs: number = commandLimits.quick): Promise<DeviceSpec> {
  const [abilist, density, locale] = await Promise.all([
    phone.exec('getprop ro.product.cpu.abilist', timeoutMs).catch(() => ''),
    // bundletool's device spec (DeviceAnalyzer) takes ddmlib's density, which is this property.
    phone.exec('getprop ro.sf.lcd_density', timeoutMs).catch(() => ''),
    phone.locale ? phone.locale().catch(() => null) : Promise.resolve(null),
  ]);
  return {
    abis: abilist
      .trim()
      .split(',')
      .map((abi) => abi.trim())
      .filter((abi) => abi !== ''),
    density: Number.parseInt(density.trim(), 10) > 0 ? Number.parseInt(density.trim(), 10) : null,
    locales: locale ? [locale] : [],
  };
}
