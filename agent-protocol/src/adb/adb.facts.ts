/**
 * What the phone says about itself: a ping, its properties and screen size (kept, as the screen size scales recipe
 * coordinates and the SDK picks how media is scanned), battery, whether the screen is on, the app in front, the
 * network and the keyguard. Each is one query whose output `adb.parse.ts` reads (a heartbeat's four go together in one,
 * `readings`); a new fact to read lands here.
 */
import {
  PhoneError,
  type BatteryState,
  type ForegroundApp,
  type LockState,
  type NetworkState,
  type PhoneInfo,
  type PhoneReadings,
  type ScreenState,
} from '../phone/phone.device.ts';
import {
  parseAppLocales,
  parseBattery,
  parseForeground,
  parseGetprop,
  parseLockState,
  parseNetwork,
  parseScreen,
  parseWmSize,
  phoneInfoFrom,
} from './adb.parse.ts';
import type { PhoneLink } from './adb.link.ts';

/** Android 13 (API 33) brought per-app languages and `cmd locale` (as `fleet.settings.ts` says too). */
const APP_LOCALES_SDK = 33;

/** What a heartbeat reads of the phone, one command each. */
const READ = {
  battery: 'dumpsys battery',
  screen: `dumpsys power | grep -E 'mWakefulness=|Display Power: state='`,
  foreground: `dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'`,
  network: `dumpsys connectivity | grep -E 'Active default network|NetworkAgentInfo'`,
} as const;
/** Printed after each of them when they run in one shell, so each output is read apart. */
const READING_END = 'farm-reading-end';

export class PhoneFacts {
  private cachedInfo: PhoneInfo | null = null;

  constructor(private readonly link: PhoneLink) {}

  /** The last info read, if any. */
  get known(): PhoneInfo | null {
    return this.cachedInfo;
  }

  /** The last info read, or read now when there is none yet. */
  async knownOrRead(): Promise<PhoneInfo> {
    return this.cachedInfo ?? (await this.info());
  }

  /** A cheap round trip: answers when the phone does, fails when it does not. */
  async ping(): Promise<void> {
    const output = await this.link.exec('echo farm-ok');
    if (!output.includes('farm-ok')) throw new PhoneError('command_failed', 'The phone answered the ping with something else.');
  }

  async info(): Promise<PhoneInfo> {
    const [properties, size] = await Promise.all([this.link.exec('getprop'), this.link.exec('wm size')]);
    this.cachedInfo = phoneInfoFrom(parseGetprop(properties), parseWmSize(size), this.link.serial);
    return this.cachedInfo;
  }

  /**
   * The phone's language as a BCP 47 tag (`fr-FR`), or null when it says none: `persist.sys.locale` (set when someone
   * picks a language; Android 7+ keeps the first of the phone's list there), else the build's `ro.product.locale`
   * (Android 5+), else the older `persist.sys.language`/`persist.sys.country` pair. Android 13's per-app languages
   * are read apart (`appLocale`): this is the phone's own language, which picks the language splits an install needs.
   */
  async locale(): Promise<string | null> {
    const output = await this.link.exec(
      'getprop persist.sys.locale; echo "|"; getprop ro.product.locale; echo "|"; getprop persist.sys.language; echo "|"; getprop persist.sys.country',
    );
    const [chosen, product, language, country] = output.split('|').map((part) => part.trim());
    if (chosen) return chosen;
    if (product) return product;
    if (language) return country ? `${language}-${country}` : language;
    return null;
  }

  /**
   * The language one app shows on Android 13+ when someone picked one for it (Settings › Apps › the app › Language),
   * or null: none picked, an older phone (no `cmd locale`), or an answer this does not know. Read with
   * `cmd locale get-app-locales <package>`, which prints `Locales for <package> for user <id> are [<tags>]`, the tags
   * comma-separated and `[]` when none was picked (LocaleManagerShellCommand, EVIDENCE.md); the first tag is the one
   * the app shows.
   */
  async appLocale(packageName: string): Promise<string | null> {
    const info = await this.knownOrRead();
    if (info.sdk < APP_LOCALES_SDK) return null;
    return parseAppLocales(await this.link.exec(`cmd locale get-app-locales ${packageName} 2>&1`), packageName);
  }

  async battery(): Promise<BatteryState> {
    return parseBattery(await this.link.exec(READ.battery));
  }

  async screen(): Promise<ScreenState> {
    return parseScreen(await this.link.exec(READ.screen));
  }

  async foregroundApp(): Promise<ForegroundApp | null> {
    return parseForeground(await this.link.exec(READ.foreground));
  }

  async network(): Promise<NetworkState> {
    return parseNetwork(await this.link.exec(READ.network));
  }

  /**
   * The four readings of a heartbeat in one shell: a heartbeat every few seconds on every phone of a farm, where each
   * adb shell costs a connection to the adb server, a transport switch and a process on the phone. A reading whose
   * output cannot be read is null; the whole fails when the phone does not answer.
   */
  async readings(): Promise<PhoneReadings> {
    const output = await this.link.exec(
      [READ.battery, READ.screen, READ.foreground, READ.network].map((command) => `${command}; echo ${READING_END}`).join('; '),
    );
    const [battery = '', screen = '', foreground = '', network = ''] = output.split(READING_END);
    const read = <T>(parse: () => T): T | null => {
      try {
        return parse();
      } catch {
        return null;
      }
    };
    return {
      battery: read(() => parseBattery(battery)),
      screen: read(() => parseScreen(screen)),
      foreground: read(() => parseForeground(foreground)),
      network: read(() => parseNetwork(network)),
    };
  }

  async lockState(): Promise<LockState> {
    return parseLockState(await this.link.exec('dumpsys window policy'));
  }
}
