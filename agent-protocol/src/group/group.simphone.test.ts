/**
 * Group control on simulated phones of three widths, as a demo farm may mix them, through the agent's device backend
 * (the same path as a real phone's: the screen read, the rules, the selector resolved in each phone's own tree, the
 * live input):
 * Home brings the home screen, the leader's finger on Settings names it and each follower opens its own, a follower
 * left in Instagram refuses, a scroll moves every Settings list, and the Play Store's auto-update choice flips on
 * every phone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DeviceBackend } from '../agent/device-backend.ts';
import { serverMessages } from '../messages.ts';
import { parseUiXml } from '../recipes/recipe.ui.ts';
import { SimulatedPhoneUi } from '../simphone/simphone.device.ts';
import type { GroupActionInput, GroupActResult, ScreenSignature } from './group.messages.ts';

interface Member {
  phone: SimulatedPhoneUi;
  backend: DeviceBackend;
}

let members: Member[] = [];

afterEach(async () => {
  for (const { backend } of members) await backend.close();
  members = [];
});

/** Three phones as the demo farm mixes them: 720, 1080 and 1440 px wide. */
async function farm(): Promise<Member[]> {
  const sizes = [
    { serial: 'SIM-720', width: 720, height: 1440 },
    { serial: 'SIM-1080', width: 1080, height: 2400 },
    { serial: 'SIM-1440', width: 1440, height: 3200 },
  ];
  for (const size of sizes) {
    const phone = new SimulatedPhoneUi(size);
    members.push({ phone, backend: await new DeviceBackend(phone, { agentVersion: 'test', readEveryMs: 60_000 }).start() });
  }
  return members;
}

let sent = 0;
/** Sends one action to these phones as the server would, each answering on its own. */
function act(to: Member[], action: GroupActionInput, leader?: ScreenSignature): Promise<GroupActResult[]> {
  const message = serverMessages['group.act'].parse({ actionId: `a${++sent}`, action, ...(leader ? { leader } : {}) });
  return Promise.all(to.map(({ backend }) => backend.groupAct(message)));
}

/** The leader's finger on the element with these words, then the selector it named sent to the followers. */
async function followFinger(phones: Member[], words: string): Promise<{ led: GroupActResult; results: GroupActResult[] }> {
  const [leader, ...followers] = phones;
  const screen = parseUiXml(leader!.phone.uiXml());
  const node = screen.nodes.find((item) => item.text === words)!;
  const finger = { x: (node.bounds.left + node.bounds.right) / 2 / screen.width, y: (node.bounds.top + node.bounds.bottom) / 2 / screen.height };
  const [led] = await act([leader!], { kind: 'finger', ...finger });
  const results = await act(followers, { kind: 'selector', selector: led!.selector! }, led!.screen);
  return { led: led!, results };
}

describe('group control on simulated phones', () => {
  it('Home brings every phone to the home screen, and the leader’s finger on Settings opens Settings on each', async () => {
    const phones = await farm();
    await phones[0]!.phone.startIntent('android.settings.WIFI_SETTINGS');
    await phones[2]!.phone.launchApp('com.android.vending');
    const home = await act(phones, { kind: 'key', key: 'home' });
    expect(home.map((result) => [result.label, result.screen?.package])).toEqual([
      ['Done', 'com.android.settings'],
      ['Done', 'com.android.launcher3'],
      ['Done', 'com.android.vending'],
    ]);
    expect(phones.map(({ phone }) => phone.where)).toEqual(['launcher', 'launcher', 'launcher']);
    const { led, results } = await followFinger(phones, 'Settings');
    expect(led).toMatchObject({ label: 'Done', screen: { package: 'com.android.launcher3' } });
    expect(led.selector).toEqual({ desc: 'Settings' });
    expect(results.map((result) => result.label)).toEqual(['Done', 'Done']);
    expect(phones.map(({ phone }) => phone.where)).toEqual(['settings/home', 'settings/home', 'settings/home']);
    // Each phone's icon and each phone's Network & internet row sit at its own place.
    const rows = phones.map(({ phone }) => {
      const screen = parseUiXml(phone.uiXml());
      const title = screen.nodes.find((node) => node.text === 'Network & internet')!;
      return Math.round((title.bounds.top / screen.height) * 100);
    });
    expect(new Set(rows).size).toBe(3);
    const next = await followFinger(phones, 'Network & internet');
    expect(next.led.selector).toEqual({ id: 'title', text: 'Network & internet' });
    expect(next.results.map((result) => result.label)).toEqual(['Done', 'Done']);
    expect(phones.map(({ phone }) => phone.where)).toEqual(['settings/network', 'settings/network', 'settings/network']);
    // Back twice: the Network page, then Settings' home, then the home screen.
    await act(phones, { kind: 'key', key: 'back' });
    await act(phones, { kind: 'key', key: 'back' });
    expect(phones.map(({ phone }) => phone.where)).toEqual(['launcher', 'launcher', 'launcher']);
  });

  it('refuses on a follower left in Instagram, and acts on the others', async () => {
    const phones = await farm();
    await phones[1]!.phone.launchApp('com.instagram.android');
    const { led, results } = await followFinger([phones[0]!, phones[1]!, phones[2]!], 'Settings');
    expect(led.label).toBe('Done');
    expect(results.map((result) => [result.label, result.reason])).toEqual([
      ['Refused', 'Group control is for setup: Instagram is in front.'],
      ['Done', undefined],
    ]);
    expect(phones.map(({ phone }) => phone.where)).toEqual(['settings/home', 'instagram/feed', 'settings/home']);
    expect(phones[1]!.phone.taps).toEqual([]);
  });

  it('turns the Play Store’s auto-update off on every phone of the group, each seeing it checked', async () => {
    const phones = await farm();
    const opened = await followFinger(phones, 'Play Store');
    expect(opened.results.map((result) => result.label)).toEqual(['Done', 'Done']);
    expect(phones.map(({ phone }) => phone.where)).toEqual(['playstore/preferences', 'playstore/preferences', 'playstore/preferences']);
    const choice = await followFinger(phones, 'Auto-update apps');
    expect(choice.results.map((result) => result.label)).toEqual(['Done', 'Done']);
    expect(phones.map(({ phone }) => phone.where)).toEqual(['playstore/auto-update', 'playstore/auto-update', 'playstore/auto-update']);
    const checked = (phone: SimulatedPhoneUi) =>
      parseUiXml(phone.uiXml())
        .nodes.filter((node) => node.checked)
        .map((node) => node.text);
    expect(phones.map(({ phone }) => checked(phone))).toEqual([['Update over Wi-Fi only'], ['Update over Wi-Fi only'], ['Update over Wi-Fi only']]);
    const off = await followFinger(phones, "Don't auto-update apps");
    expect(off.led.selector).toEqual({ text: "Don't auto-update apps" });
    expect(off.results.map((result) => result.label)).toEqual(['Done', 'Done']);
    expect(phones.map(({ phone }) => checked(phone))).toEqual([["Don't auto-update apps"], ["Don't auto-update apps"], ["Don't auto-update apps"]]);
    // Back closes the choice; the row's summary says it on every phone.
    await act(phones, { kind: 'key', key: 'back' });
    for (const { phone } of phones) {
      expect(phone.settings.autoUpdate).toBe("Don't auto-update apps");
      expect(phone.uiXml()).toContain('text="Don\'t auto-update apps"');
      expect(phone.where).toBe('playstore/preferences');
    }
  });

  it('scrolls every phone’s Settings list to its later rows, and back', async () => {
    const phones = await farm();
    await act(phones, { kind: 'intent', action: 'android.settings.SETTINGS' });
    const titles = (phone: SimulatedPhoneUi) => parseUiXml(phone.uiXml()).nodes.map((node) => node.text);
    const up = await act(phones, { kind: 'scroll', x: 0.5, y: 0.6, dy: 0.5 });
    expect(up.map((result) => result.label)).toEqual(['Done', 'Done', 'Done']);
    for (const { phone } of phones) {
      expect(titles(phone)).toContain('System');
      expect(titles(phone)).not.toContain('Network & internet');
    }
    await act(phones, { kind: 'scroll', x: 0.5, y: 0.6, dy: -0.5 });
    for (const { phone } of phones) expect(titles(phone)).toContain('Network & internet');
  });

  it('opens Settings pages by intent, and refuses a Play Store page the simulated phone does not have', async () => {
    const phones = await farm();
    const wifi = await act(phones, { kind: 'intent', action: 'android.settings.WIFI_SETTINGS' });
    expect(wifi.map((result) => result.label)).toEqual(['Done', 'Done', 'Done']);
    expect(phones.map(({ phone }) => phone.where)).toEqual(['settings/network', 'settings/network', 'settings/network']);
    const settings = await act([phones[0]!], { kind: 'intent', action: 'android.settings.SETTINGS' });
    expect(settings[0]!.label).toBe('Done');
    expect(phones[0]!.phone.where).toBe('settings/home');
    const message = serverMessages['group.act'].parse({
      actionId: 'market',
      action: { kind: 'intent', action: 'android.intent.action.VIEW', data: 'market://details?id=com.example.vpn' },
      lists: { appLibrary: ['com.example.vpn'] },
    });
    const market = await phones[1]!.backend.groupAct(message);
    expect(market).toMatchObject({
      label: 'Refused',
      reason: 'The phone could not do it: The simulated Play Store has no page for com.example.vpn: it shows only its settings.',
    });
  });
});
