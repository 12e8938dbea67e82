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

/** What `uiautomator dump FILE; cat FILE` printed: the XML, or why there is none. */
export function parseUiDump(output: string): string {
  if (/could not get idle state/i.test(output)) throw new UiBusyError();
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
