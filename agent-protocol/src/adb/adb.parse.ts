/**
 * Reading what Android's shell tools print: `getprop`, `wm size`, `dumpsys battery|power|window|connectivity`
 * and `uiautomator dump`. Pure functions, so each is checked against real outputs in the tests.
 */
import {
  PhoneError,
  UiBusyError,
  type BatteryState,
  type ForegroundApp,
  type NetworkState,
  type PhoneInfo,
  type ScreenSize,
  type ScreenState,
} from '../phone/phone.device.ts';
import { readUiTree } from '../phone/phone.uitree.ts';

/** `getprop` prints `[key]: [value]` lines; values may span lines. */
export function parseGetprop(output: string): Record<string, string> {
  const properties: Record<string, string> = {};
  for (const match of output.matchAll(/^\[([^\]]+)\]: \[([\s\S]*?)\]\r?$/gm)) {
    const [, key, value] = match;
    if (key !== undefined && value !== undefined) properties[key] = value;
  }
  return properties;
}

/** `wm size`: the override (set with `wm size WxH`) wins over the physical size. */
export function parseWmSize(output: string): ScreenSize | null {
  const read = (label: string) => {
    const match = new RegExp(`${label} size: (\\d+)x(\\d+)`).exec(output);
    return match ? { width: Number(match[1]), height: Number(match[2]) } : null;
  };
  return read('Override') ?? read('Physical');
}

export function phoneInfoFrom(properties: Record<string, string>, screen: ScreenSize | null, serial: string): PhoneInfo {
  const sdk = Number.parseInt(properties['ro.build.version.sdk'] ?? '', 10);
  return {
    serial: properties['ro.serialno'] || properties['ro.boot.serialno'] || serial,
    manufacturer: properties['ro.product.manufacturer'] ?? 'unknown',
    model: properties['ro.product.model'] ?? 'unknown',
    androidVersion: properties['ro.build.version.release'] ?? 'unknown',
    sdk: Number.isFinite(sdk) ? sdk : 0,
    abi: properties['ro.product.cpu.abi'] ?? (properties['ro.product.cpu.abilist'] ?? '').split(',')[0] ?? 'unknown',
    // Portrait: a phone in landscape reports the same physical size.
    screen: screen ? { width: Math.min(screen.width, screen.height), height: Math.max(screen.width, screen.height) } : { width: 1080, height: 2400 },
  };
}

function field(output: string, name: string): string | null {
  const match = new RegExp(`^\\s*${name}:\\s*(.*?)\\s*$`, 'm').exec(output);
  return match?.[1] ?? null;
}

/** `dumpsys battery`. Status 2 is charging, 5 is full (plugged in, not charging). */
export function parseBattery(output: string): BatteryState {
  const levelText = field(output, 'level');
  if (levelText === null) throw new PhoneError('command_failed', 'The phone did not report its battery ("dumpsys battery" printed no level).');
  const scale = Number(field(output, 'scale') ?? '100') || 100;
  const level = Math.round((Number(levelText) / scale) * 100);
  const powered = (name: string) => field(output, `${name} powered`) === 'true';
  const plugged = powered('AC') ? 'ac' : powered('USB') ? 'usb' : powered('Wireless') ? 'wireless' : powered('Dock') ? 'dock' : null;
  const temperature = Number(field(output, 'temperature'));
  return {
    level: Math.max(0, Math.min(100, level)),
    charging: field(output, 'status') === '2',
    plugged,
    temperatureC: Number.isFinite(temperature) && field(output, 'temperature') !== null ? temperature / 10 : null,
  };
}

/** `dumpsys power`: `mWakefulness=Awake` (Android 5+), else the display power state. */
export function parseScreen(output: string): ScreenState {
  const wakefulness = /mWakefulness=(\w+)/.exec(output)?.[1];
  if (wakefulness) return { on: wakefulness === 'Awake' };
  const display = /Display Power: state=(\w+)/.exec(output)?.[1];
  if (display) return { on: display === 'ON' };
  const interactive = /mInteractive=(\w+)/.exec(output)?.[1];
  if (interactive) return { on: interactive === 'true' };
  throw new PhoneError('command_failed', 'The phone did not say whether its screen is on ("dumpsys power" had no wakefulness).');
}

/** `dumpsys window`: the focused window, else the focused app. Null while nothing has focus (keyguard, boot). */
export function parseForeground(output: string): ForegroundApp | null {
  const pattern = /(?:mCurrentFocus|mFocusedApp)=\S*\{[^}]*?\s([\w.]+)\/([\w.$]+)[\s}]/g;
  for (const match of output.matchAll(pattern)) {
    const [, pkg, activity] = match;
    if (!pkg || !activity) continue;
    return { package: pkg, activity: activity.startsWith('.') ? `${pkg}${activity}` : activity };
  }
  const bare = /mCurrentFocus=Window\{\S+ \S+ ([\w.]+)\}/.exec(output);
  if (bare?.[1]?.includes('.')) return { package: bare[1], activity: null };
  return null;
}

function transportOf(text: string): NetworkState['transport'] {
  if (/Transports: [^C]*WIFI|ni\{WIFI|type: WIFI|\[WIFI/.test(text)) return 'wifi';
  if (/Transports: [^C]*CELLULAR|ni\{MOBILE|type: MOBILE|\[MOBILE/.test(text)) return 'cellular';
  if (/ETHERNET/.test(text)) return 'ethernet';
  if (/Transports: [^C]*VPN|ni\{VPN|\[VPN/.test(text)) return 'vpn';
  return 'other';
}

/** `dumpsys connectivity`: the default network and what carries it. */
export function parseNetwork(output: string): NetworkState {
  const active = /Active default network: (\w+)/.exec(output)?.[1];
  if (!active || active === 'none') return { connected: false, transport: null };
  const line = output.split('\n').find((row) => row.includes(`network{${active}}`) || row.includes(` - ${active}]`));
  return { connected: true, transport: line ? transportOf(line) : 'other' };
}

/** `dumpsys package PKG`: the first versionName (the installed one; an updated system app lists itself twice). */
export function parseVersionName(output: string): string | null {
  return /versionName=(\S+)/.exec(output)?.[1] ?? null;
}

/**
 * Why a `uiautomator dump` that printed no tree failed, when the phone said so:
 * - `idle`: "ERROR: could not get idle state." (the screen never settled: video feeds, animations);
 * - `null_root`: "ERROR: null root node returned by UiTestAutomationBridge." (mid-transition or screen off; AOSP
 *   `DumpCommand.java` prints it and exits 0);
 * - `registered`: "UiAutomationService … already registered!" (another UI automation client holds the phone).
 * Both of the first two pass when asked again a moment later.
 */
export type DumpFailure = 'idle' | 'null_root' | 'registered';

export function dumpFailure(output: string): DumpFailure | null {
  if (output.includes('</hierarchy>')) return null;
  if (/could not get idle state/i.test(output)) return 'idle';
  if (/null root node/i.test(output)) return 'null_root';
  if (/already registered/i.test(output)) return 'registered';
  return null;
}

/** What `uiautomator dump FILE; cat FILE` printed: the XML, or why there is none. */
export function parseUiDump(output: string): string {
  const failure = dumpFailure(output);
  if (failure === 'idle') throw new UiBusyError();
  if (failure === 'null_root') throw new PhoneError('ui_busy', 'The phone gave no screen to read ("null root node": mid-transition, or the screen is off).');
  if (failure === 'registered')
    throw new PhoneError(
      'command_failed',
      'Another UI automation client holds this phone ("UiAutomationService already registered"); only one can read the screen at a time.',
    );
  const start = output.indexOf('<?xml');
  const from = start >= 0 ? start : output.indexOf('<hierarchy');
  const end = output.lastIndexOf('</hierarchy>');
  if (from < 0 || end < 0) {
    const reason = output.trim().split('\n')[0] ?? '';
    throw new PhoneError('command_failed', `The phone could not read its screen${reason ? ` (${reason.slice(0, 200)})` : ''}.`);
  }
  return output.slice(from, end + '</hierarchy>'.length);
}

/** Quotes one argument for the phone's shell. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Whether `input text` can type this (it takes printable ASCII only). */
export function isInputTextSafe(value: string): boolean {
  return /^[\x20-\x7e]*$/.test(value);
}

/**
 * Arguments for `input text`, one per call: it reads "%s" as a space, so spaces are sent as "%s" and a literal
 * "%s" in the text is split across two calls ("50%" then "sale"), which it types as written. Long text goes in
 * pieces of at most `chunk` characters, since one long `input text` stalls the phone's input queue.
 */
export function inputTextArguments(value: string, chunk = 200): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < value.length; start += chunk) pieces.push(value.slice(start, start + chunk));
  return pieces.flatMap((piece) =>
    piece
      .split('%s')
      .map((part, index, parts) => `${index > 0 ? 's' : ''}${part}${index < parts.length - 1 ? '%' : ''}`)
      .filter((part) => part.length > 0)
      .map((part) => shellQuote(part.replace(/ /g, '%s'))),
  );
}

/**
 * Whether the keyguard shows, from `dumpsys window policy`: AOSP's `KeyguardServiceDelegate.dump()` prints
 * `showing=` and `secure=` (PIN, pattern or password set) on lines of their own; older builds print
 * `mDreamingLockscreen=` in `PhoneWindowManager.dump()` instead. Line-anchored so `showingAndNotOccluded=` and
 * `mIsShowing=` never match.
 */
export function parseLockState(output: string): 'unlocked' | 'locked' | 'locked_secure' {
  const text = output.replace(/\r/g, '');
  const showing = /^\s*showing=(true|false)\s*$/m.exec(text)?.[1];
  const secure = /^\s*secure=(true|false)\s*$/m.exec(text)?.[1] === 'true';
  const locked = showing !== undefined ? showing === 'true' : /mDreamingLockscreen=true/.test(text);
  if (!locked) return 'unlocked';
  return secure ? 'locked_secure' : 'locked';
}

/** One row of `content query`: AOSP's `Content.java` prints "Row: N key=value, key=value" or "No result found.". */
export function parseContentRows(output: string): Record<string, string>[] {
  return output
    .replace(/\r/g, '')
    .split('\n')
    .filter((line) => /^Row: \d+ /.test(line))
    .map((line) => {
      const row: Record<string, string> = {};
      const body = line.replace(/^Row: \d+ /, '');
      // Values may hold ", " (a file name): a key starts only where "name=" follows a comma.
      for (const part of body.split(/, (?=[A-Za-z_]\w*=)/)) {
        const eq = part.indexOf('=');
        if (eq > 0) row[part.slice(0, eq)] = part.slice(eq + 1);
      }
      return row;
    });
}

/** The path MediaProvider stores for a file under /sdcard (it keeps the canonical /storage/emulated/0 form). */
export function mediaStorePath(path: string): string {
  return path.replace(/^\/sdcard\//, '/storage/emulated/0/');
}

/** The content URI apps open for a media store row: images and videos under their own tables, others as files. */
export function mediaUri(id: string, mime: string): string {
  if (mime.startsWith('image/')) return `content://media/external/images/media/${id}`;
  if (mime.startsWith('video/')) return `content://media/external/video/media/${id}`;
  return `content://media/external/file/${id}`;
}

/**
 * The text of the focused node of a `uiautomator dump` (the field being typed into), or null when none is focused or
 * the phone gave no tree. Read with the UI-tree reader: a text holding `"` comes single-quoted.
 */
export function focusedText(xml: string): string | null {
  if (!xml.includes('<hierarchy')) return null;
  for (const element of readUiTree(xml)) if (element.attributes.focused === 'true') return element.attributes.text ?? '';
  return null;
}

/** The first tag of `cmd locale get-app-locales`'s answer for this package, or null for `[]` or any other answer. */
export function parseAppLocales(output: string, packageName: string): string | null {
  const escaped = packageName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`^Locales for ${escaped} for user \\d+ are \\[([^\\]]*)\\]`, 'm').exec(output);
  const first = match?.[1]?.split(',')[0]?.trim();
  return first ? first : null;
}
