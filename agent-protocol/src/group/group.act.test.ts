/**
 * Group control on phones over the fake adb server (the real ADB code path: AdbPhone, the device backend, its live
 * input through the persistent `input` shell). Screens: test/fixtures/real/settings and play-store (rebuilt from named
 * facts, index.json names the sources) and a real Instagram feed (instagram/feed.xml).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeAdbServer } from '../../test/fake-adb.server.ts';
import { FakeAndroid, fixture, type FakeAndroidOptions } from '../../test/fake-android.ts';
import { clipPackets, makeClip } from '../../test/fake-scrcpy.ts';
import { createAdbClient } from '../adb/adb.host.ts';
import { AdbPhone } from '../adb/adb.phone.ts';
import { DeviceBackend } from '../agent/device-backend.ts';
import { Control } from '../agent/phone-agent.control.ts';
import type { PhoneAgentState } from '../agent/phone-agent.state.ts';
import { serverMessages } from '../messages.ts';
import { parseUiXml, type UiNode } from '../recipes/recipe.ui.ts';
import type { GroupActionInput, GroupActResult } from './group.messages.ts';
import { readScreen } from './group.screen.ts';
import { selectorAt } from './group.selector.ts';

const xml = (file: string) => readFileSync(new URL(`../../test/fixtures/real/${file}`, import.meta.url), 'utf8');

let server: FakeAdbServer;

/** Stands in for the scrcpy-server jar: the fake phone runs what was pushed to the CLASSPATH. */
function scrcpyFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'scrcpy-file-')), 'scrcpy-server-v3.1');
  writeFileSync(file, Buffer.from('stands in for the jar'));
  return file;
}

const until = async (check: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
let backends: DeviceBackend[];

beforeEach(async () => {
  server = new FakeAdbServer();
  await server.listen();
  backends = [];
});

afterEach(async () => {
  for (const backend of backends) await backend.close();
  await server.close();
});

interface Follower {
  fake: FakeAndroid;
  backend: DeviceBackend;
  screen: string;
}

/** A phone of this size showing this screen, driven as the agent drives it. */
function plug(serial: string, screen: string, size: string, scrcpy?: FakeAndroidOptions['scrcpy'], screencap?: () => Buffer): Follower {
  const fake = new FakeAndroid({
    serial,
    getprop: fixture('getprop.txt'),
    wmSize: `Physical size: ${size}\n`,
    screen: () => xml(screen),
    ...(scrcpy ? { scrcpy } : {}),
    ...(screencap ? { screencap } : {}),
  });
  server.plug(fake);
  const client = createAdbClient({ adbHost: '127.0.0.1', adbPort: server.port, adbBin: '/nonexistent/adb' });
  client.on('error', () => undefined);
  const options = scrcpy ? { uiServer: false as const, scrcpyServer: async () => scrcpyFile() } : {};
  const backend = new DeviceBackend(new AdbPhone(serial, client.getDevice(serial), options), { agentVersion: 'test', readEveryMs: 60_000 });
  backends.push(backend);
  return { fake, backend, screen };
}

/** Sends one action to every phone as the server would, each answering on its own. */
function act(phones: Follower[], action: GroupActionInput, leaderFile?: string): Promise<GroupActResult[]> {
  const leader = leaderFile ? readScreen(parseUiXml(xml(leaderFile))).signature : undefined;
  const message = serverMessages['group.act'].parse({ actionId: 'a1', action, ...(leader ? { leader } : {}), lists: { appLibrary: ['com.example.vpn'] } });
  return Promise.all(phones.map((phone) => phone.backend.groupAct(message)));
}

/** The long presses a phone received (`input swipe X Y X Y ms` on one point), as [x, y, ms]. */
const longPresses = (fake: FakeAndroid) =>
  fake.inputs
    .filter((input) => input.startsWith('swipe '))
    .map((input) => input.split(' ').slice(1).map(Number))
    .filter(([x1, y1, x2, y2]) => x1 === x2 && y1 === y2)
    .map(([x, y, , , ms]) => [x, y, ms] as [number, number, number]);

/** The taps a phone received, as `input tap X Y`. */
const taps = (fake: FakeAndroid) =>
  fake.inputs.filter((input) => input.startsWith('tap ')).map((input) => input.split(' ').slice(1).map(Number) as [number, number]);

const within = (node: UiNode | undefined, [x, y]: [number, number]) =>
  !!node && x >= node.bounds.left && x < node.bounds.right && y >= node.bounds.top && y < node.bounds.bottom;

/** The clickable row holding the title with this text. */
function rowOf(file: string, text: string): UiNode | undefined {
  const screen = parseUiXml(xml(file));
  const title = screen.nodes.find((node) => node.text === text);
  for (let at = title?.parent ?? -1; at >= 0; at = screen.nodes[at]!.parent) if (screen.nodes[at]!.clickable) return screen.nodes[at];
  return undefined;
}

describe('group.act over adb', () => {
  it('taps each phone’s own element on three screen sizes where it sits in different places', async () => {
    const leaderFile = 'settings/home-1080.xml';
    const leaderTree = parseUiXml(xml(leaderFile));
    const title = leaderTree.nodes.find((node) => node.text === 'Network & internet')!;
    const finger = { x: (title.bounds.left + 20) / 1080, y: (title.bounds.top + 10) / 2400 };
    expect(selectorAt(leaderTree, finger)?.selector).toEqual({ id: 'title', text: 'Network & internet' });
    const leader = plug('MEDIUM', leaderFile, '1080x2400');
    const followers = [plug('SMALL', 'settings/home-720.xml', '720x1440'), plug('LARGE', 'settings/home-1440.xml', '1440x3200')];
    // The leader's agent names the element under the finger and acts on it; its answer goes to the followers.
    const [led] = await act([leader], { kind: 'finger', ...finger });
    expect(led).toMatchObject({ label: 'Done', selector: { id: 'title', text: 'Network & internet' }, screen: { package: 'com.android.settings' } });
    const message = serverMessages['group.act'].parse({ actionId: 'a2', action: { kind: 'selector', selector: led!.selector }, leader: led!.screen });
    const results = await Promise.all(followers.map((phone) => phone.backend.groupAct(message)));
    expect(results.map((result) => result.label)).toEqual(['Done', 'Done']);
    const phones = [followers[0]!, leader, followers[1]!];
    for (const phone of phones) {
      const [tap] = taps(phone.fake);
      expect(taps(phone.fake)).toHaveLength(1);
      expect(within(rowOf(phone.screen, 'Network & internet'), tap!)).toBe(true);
    }
    // The row sits at another share of the screen on each phone: a tap by point would have missed.
    const shares = phones.map((phone) => {
      const row = rowOf(phone.screen, 'Network & internet')!;
      return Math.round((row.bounds.top / parseUiXml(xml(phone.screen)).height) * 100);
    });
    expect(new Set(shares).size).toBe(3);
  });

  it('a follower lacking the element says Not found and gets no input; one on another screen says Different screen', async () => {
    const leaderFile = 'settings/home-1080.xml';
    const phones = [
      plug('LEADER', leaderFile, '1080x2400'),
      plug('SCROLLED', 'settings/home-scrolled.xml', '1080x2400'),
      plug('OTHER', 'settings/network.xml', '1080x2400'),
    ];
    const results = await act(phones, { kind: 'selector', selector: { id: 'title', text: 'Network & internet' } }, leaderFile);
    expect(results.map((result) => result.label)).toEqual(['Done', 'Not found', 'Different screen']);
    expect(taps(phones[0]!.fake)).toHaveLength(1);
    expect(phones[1]!.fake.inputs).toEqual([]);
    expect(phones[2]!.fake.inputs).toEqual([]);
  });

  it('a selector several elements match is "2 matches" and acts on nothing', async () => {
    const phones = [plug('LEADER', 'settings/network.xml', '1080x2400')];
    const [result] = await act(phones, { kind: 'selector', selector: { text: 'T-Mobile' } }, 'settings/network.xml');
    expect(result).toMatchObject({ kind: 'matches', label: '2 matches', matches: 2 });
    expect(phones[0]!.fake.inputs).toEqual([]);
  });

  it('refuses on the phone with an app of the deny list in front only', async () => {
    const leaderFile = 'play-store/settings-network-1080.xml';
    const phones = [
      plug('SMALL', 'play-store/settings-network-720.xml', '720x1440'),
      plug('INSTA', 'instagram/feed.xml', '720x1440'),
      plug('LARGE', 'play-store/settings-network-1440.xml', '1440x3200'),
    ];
    const results = await act(phones, { kind: 'selector', selector: { text: 'Auto-update apps' } }, leaderFile);
    expect(results.map((result) => result.label)).toEqual(['Done', 'Refused', 'Done']);
    expect(results[1]!.reason).toBe('Group control is for setup: Instagram is in front.');
    expect(phones[1]!.fake.inputs).toEqual([]);
    expect(within(rowOf('play-store/settings-network-720.xml', 'Auto-update apps'), taps(phones[0]!.fake)[0]!)).toBe(true);
    expect(within(rowOf('play-store/settings-network-1440.xml', 'Auto-update apps'), taps(phones[2]!.fake)[0]!)).toBe(true);
    // Keys too: a Back on the Instagram phone is refused as well.
    const keys = await act(phones, { kind: 'key', key: 'back' });
    expect(keys.map((result) => result.label)).toEqual(['Done', 'Refused', 'Done']);
    expect(phones[1]!.fake.inputs).toEqual([]);
  });

  it('opens a Settings page from the closed list and refuses one outside it', async () => {
    const [phone] = [plug('LAUNCHER', 'settings/home-1080.xml', '1080x2400')];
    const [opened] = await act([phone!], { kind: 'intent', action: 'android.settings.WIFI_SETTINGS' });
    expect(opened!.label).toBe('Done');
    expect(phone!.fake.commands.some((command) => command.includes('am start -a android.settings.WIFI_SETTINGS'))).toBe(true);
    const before = phone!.fake.commands.filter((command) => command.includes('am start')).length;
    for (const action of [
      { kind: 'intent', action: 'android.settings.APPLICATION_DETAILS_SETTINGS', data: 'https://example.com/' },
      { kind: 'intent', action: 'android.intent.action.SEND' },
      { kind: 'intent', action: 'android.intent.action.VIEW', data: 'market://details?id=com.example.other' },
    ] as const) {
      const [refused] = await act([phone!], action);
      expect(refused!.label).toBe('Refused');
      expect(refused!.reason).toMatch(/^Group control is for setup: /);
    }
    expect(phone!.fake.commands.filter((command) => command.includes('am start')).length).toBe(before);
  });

  it('opens an app’s details page end to end: the raw message through the agent’s handler to `am start` on the phone', async () => {
    const phone = plug('DETAILS', 'settings/home-1080.xml', '1080x2400');
    // The agent's own `group.act` handler, as the socket calls it with the server's message (not a busy phone).
    const control = new Control({ backend: phone.backend, busy: false } as unknown as PhoneAgentState);
    const send = (action: unknown) =>
      new Promise<{ ok: boolean; result?: GroupActResult; error?: string }>((resolve) =>
        control.groupAct({ actionId: 'intent-1', action, lists: { appLibrary: ['com.example.vpn'] } }, resolve),
      );
    const opened = await send({ kind: 'intent', action: 'android.settings.APPLICATION_DETAILS_SETTINGS', data: 'package:com.example.app' });
    expect(opened).toMatchObject({ ok: true, result: { kind: 'done', label: 'Done' } });
    expect(phone.fake.commands.filter((command) => command.includes('am start'))).toEqual([
      "am start -a android.settings.APPLICATION_DETAILS_SETTINGS -d 'package:com.example.app'",
    ]);

    // Extras and an explicit component never reach the phone: the message itself is refused (strict shapes)…
    for (const action of [
      {
        kind: 'intent',
        action: 'android.settings.APPLICATION_DETAILS_SETTINGS',
        data: 'package:com.example.app',
        extras: { 'android.intent.extra.TEXT': 'hi' },
      },
      { kind: 'intent', action: 'android.settings.APPLICATION_DETAILS_SETTINGS', data: 'package:com.example.app', component: 'com.android.settings/.Settings' },
    ]) {
      const refused = await send(action);
      expect(refused.ok).toBe(false);
      expect(refused.error).toEqual(expect.any(String));
    }
    // …and a web link as its data is refused by the rules on this phone.
    const link = await send({ kind: 'intent', action: 'android.settings.APPLICATION_DETAILS_SETTINGS', data: 'https://example.com/app' });
    expect(link).toMatchObject({ ok: true, result: { kind: 'refused', label: 'Refused' } });
    expect(phone.fake.commands.filter((command) => command.includes('am start'))).toHaveLength(1);
    expect(phone.fake.inputs).toEqual([]);
  });

  it('lets only Back and Home through while the shade shows', async () => {
    const phone = plug('SHADE', 'settings/shade.xml', '1080x2400');
    const [recents] = await act([phone], { kind: 'key', key: 'recents' });
    expect(recents).toMatchObject({
      label: 'Refused',
      reason: 'Group control is for setup: the notification shade is showing (only Back and Home go through).',
    });
    const [tap] = await act([phone], { kind: 'point', x: 0.5, y: 0.5 });
    expect(tap!.label).toBe('Refused');
    expect(phone.fake.inputs).toEqual([]);
    const [back] = await act([phone], { kind: 'key', key: 'back' });
    const [home] = await act([phone], { kind: 'key', key: 'home' });
    expect([back!.label, home!.label]).toEqual(['Done', 'Done']);
    expect(phone.fake.inputs).toEqual(['keyevent 4', 'keyevent 3']);
  });

  it('scales a tap by point to each screen and marks it', async () => {
    const phones = [plug('SMALL', 'settings/home-720.xml', '720x1440'), plug('LARGE', 'settings/home-1440.xml', '1440x3200')];
    const results = await act(phones, { kind: 'point', x: 0.5, y: 0.25 }, 'settings/home-1080.xml');
    expect(results.map((result) => [result.label, result.byPoint])).toEqual([
      ['Done', true],
      ['Done', true],
    ]);
    expect(taps(phones[0]!.fake)).toEqual([[360, 360]]);
    expect(taps(phones[1]!.fake)).toEqual([[720, 800]]);
  });

  it('long-presses each phone’s own element on three screen sizes', async () => {
    const leaderFile = 'settings/home-1080.xml';
    const leaderTree = parseUiXml(xml(leaderFile));
    const title = leaderTree.nodes.find((node) => node.text === 'Network & internet')!;
    const finger = { x: (title.bounds.left + 20) / 1080, y: (title.bounds.top + 10) / 2400 };
    const leader = plug('MEDIUM', leaderFile, '1080x2400');
    const followers = [plug('SMALL', 'settings/home-720.xml', '720x1440'), plug('LARGE', 'settings/home-1440.xml', '1440x3200')];
    const [led] = await act([leader], { kind: 'finger', press: 'long_press', ...finger });
    expect(led).toMatchObject({ kind: 'done', selector: { id: 'title', text: 'Network & internet' } });
    const message = serverMessages['group.act'].parse({
      actionId: 'a2',
      action: { kind: 'selector', selector: led!.selector, press: 'long_press' },
      leader: led!.screen,
    });
    const results = await Promise.all(followers.map((phone) => phone.backend.groupAct(message)));
    expect(results.map((result) => result.kind)).toEqual(['done', 'done']);
    for (const phone of [leader, ...followers]) {
      // One long press (no tap), held 800 ms, on the phone's own row.
      expect(taps(phone.fake)).toEqual([]);
      const presses = longPresses(phone.fake);
      expect(presses).toHaveLength(1);
      const [x, y, ms] = presses[0]!;
      expect(ms).toBe(800);
      expect(within(rowOf(phone.screen, 'Network & internet'), [x, y])).toBe(true);
    }
  });

  it('scales a swipe and a scroll to each phone’s screen', async () => {
    const phones = [
      plug('SMALL', 'settings/home-720.xml', '720x1440'),
      plug('MEDIUM', 'settings/home-1080.xml', '1080x2400'),
      plug('LARGE', 'settings/home-1440.xml', '1440x3200'),
    ];
    const swiped = await act(phones, { kind: 'swipe', from: { x: 0.5, y: 0.8 }, to: { x: 0.5, y: 0.2 }, durationMs: 300 }, 'settings/home-1080.xml');
    expect(swiped.map((result) => result.kind)).toEqual(['done', 'done', 'done']);
    // A wheel turn over the middle: the finger moves up by 0.6 × dy of the screen, in 200 ms.
    const scrolled = await act(phones, { kind: 'scroll', x: 0.5, y: 0.5, dy: 0.5 }, 'settings/home-1080.xml');
    expect(scrolled.map((result) => result.kind)).toEqual(['done', 'done', 'done']);
    expect(phones.map((phone) => phone.fake.inputs)).toEqual([
      ['swipe 360 1152 360 288 300', 'swipe 360 720 360 288 200'],
      ['swipe 540 1920 540 480 300', 'swipe 540 1200 540 480 200'],
      ['swipe 720 2560 720 640 300', 'swipe 720 1600 720 640 200'],
    ]);
  });

  it('types any Unicode through the control socket while scrcpy runs, and empties the clipboard after the paste', async () => {
    const phone = plug('H264', 'settings/network.xml', '1080x2400', {
      clips: [clipPackets(makeClip('testsrc', { frames: 6, gop: 3 }))],
      width: 160,
      height: 320,
      frameMs: 10,
    });
    await phone.backend.openVideo!('control');
    const [typed] = await act([phone], { kind: 'text', text: 'Café Wi‑Fi ☕' });
    expect(typed!.label).toBe('Done');
    const running = phone.fake.scrcpyServers[0];
    await until(() => (running?.control.length ?? 0) >= 2);
    expect(running?.control).toEqual([
      { type: 'clipboard', paste: true, text: 'Café Wi‑Fi ☕' },
      { type: 'clipboard', paste: false, text: '' },
    ]);
    // No shell `input` for it.
    expect(phone.fake.inputs).toEqual([]);
  });

  it('offers a tap by point where nothing under the leader’s finger names itself, acting on nothing', async () => {
    const leader = plug('LEADER', 'play-store/settings-network-1080.xml', '1080x2400');
    const [led] = await act([leader], { kind: 'finger', x: 0.95, y: 0.05 });
    expect(led).toMatchObject({ kind: 'not_found', offerPoint: true });
    expect(leader.fake.inputs).toEqual([]);
  });

  it('sends the frame of a phone that missed', async () => {
    const png = await sharp({ create: { width: 108, height: 240, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    const phone = plug('SCROLLED', 'settings/home-scrolled.xml', '1080x2400', undefined, () => png);
    const [missed] = await act([phone], { kind: 'selector', selector: { id: 'title', text: 'Network & internet' } }, 'settings/home-1080.xml');
    expect(missed).toMatchObject({ label: 'Not found', frame: { mime: 'image/jpeg' } });
    expect(missed!.frame!.data.byteLength).toBeGreaterThan(0);
  });
});
