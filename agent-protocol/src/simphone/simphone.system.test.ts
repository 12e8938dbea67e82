/**
 * The simulated phone's own screens: Launcher3's home screen, Settings and the Play Store's settings, as fixtures of
 * the nearest width scaled to the phone, with keys, taps and intents moving between them.
 */
import { describe, expect, it } from 'vitest';
import { centerOf, parseUiXml, type UiNode, type UiScreen } from '../recipes/recipe.ui.ts';
import { SimulatedPhoneUi } from './simphone.device.ts';
import { simScreenSize } from './simphone.state.ts';

const read = (phone: SimulatedPhoneUi) => parseUiXml(phone.uiXml());
const byText = (screen: UiScreen, text: string) => screen.nodes.find((node) => node.text === text);

async function tapOn(phone: SimulatedPhoneUi, node: UiNode | undefined): Promise<void> {
  expect(node).toBeDefined();
  const at = centerOf(node!.bounds);
  await phone.tap(at.x, at.y);
}

const SIZES = [
  { width: 720, height: 1440 },
  { width: 1080, height: 2400 },
  { width: 1440, height: 3200 },
];

describe('the simulated phone’s home screen, Settings and Play Store', () => {
  it.each(SIZES)('shows Launcher3’s icons on a $width px phone, each opening its app', async (size) => {
    const phone = new SimulatedPhoneUi(size);
    const home = read(phone);
    expect(home.packageName).toBe('com.android.launcher3');
    expect(home.nodes.some((node) => node.resourceId === 'com.android.launcher3:id/workspace' && node.className === 'android.widget.ScrollView')).toBe(true);
    for (const label of ['Settings', 'Play Store', 'Instagram', 'TikTok']) {
      const icon = byText(home, label);
      expect(icon).toMatchObject({ className: 'android.widget.TextView', desc: label, clickable: true });
      expect(icon!.bounds.bottom).toBeLessThanOrEqual(size.height);
      expect(icon!.bounds.right).toBeLessThanOrEqual(size.width);
    }
    await tapOn(phone, byText(home, 'Settings'));
    expect(phone.where).toBe('settings/home');
    expect(await phone.foregroundApp()).toEqual({ package: 'com.android.settings', activity: 'com.android.settings.homepage.SettingsHomepageActivity' });
    // The Settings home of this width, as its fixture lays it out.
    const settings = read(phone);
    expect(settings.width).toBe(size.width);
    expect(byText(settings, 'Network & internet')).toBeDefined();
    await phone.key('back');
    expect(phone.where).toBe('launcher');
    await tapOn(phone, byText(read(phone), 'Play Store'));
    expect(phone.where).toBe('playstore/preferences');
    expect(read(phone).packageName).toBe('com.android.vending');
    await phone.key('home');
    await tapOn(phone, byText(read(phone), 'Instagram'));
    expect(phone.where).toBe('instagram/feed');
  });

  it('mixes three screen sizes across a farm, phone by phone', () => {
    expect([1, 2, 3, 4].map((index) => simScreenSize(index).width)).toEqual([1080, 1440, 720, 1080]);
  });

  it('serves the fixture of the nearest width to a phone of another size', async () => {
    const phone = new SimulatedPhoneUi({ width: 800, height: 1600 });
    await phone.launchApp('com.android.settings');
    const title = byText(read(phone), 'Network & internet')!;
    // home-720.xml's title sits at [120,328][686,370]; scaled by 800/720 and 1600/1440.
    expect(title.bounds).toEqual({ left: 133, top: 364, right: 762, bottom: 411 });
  });

  it('flips Airplane mode’s switch on a tap on its row, and goes up and back to the home screen', async () => {
    const phone = new SimulatedPhoneUi();
    await phone.launchApp('com.android.settings');
    await tapOn(phone, byText(read(phone), 'Network & internet'));
    expect(phone.where).toBe('settings/network');
    const switchOf = () => read(phone).nodes.find((node) => node.resourceId === 'android:id/switch_widget');
    expect(switchOf()).toMatchObject({ className: 'android.widget.Switch', checked: false });
    await tapOn(phone, switchOf());
    expect(switchOf()!.checked).toBe(true);
    expect(phone.settings.airplane).toBe(true);
    await tapOn(phone, byText(read(phone), 'Airplane mode'));
    expect(switchOf()!.checked).toBe(false);
    expect(phone.events).toEqual(expect.arrayContaining(['airplane mode on', 'airplane mode off']));
    // The toolbar's up arrow, then Back from Settings' home.
    await tapOn(
      phone,
      read(phone).nodes.find((node) => node.className === 'android.widget.ImageButton'),
    );
    expect(phone.where).toBe('settings/home');
    await phone.key('back');
    expect(phone.where).toBe('launcher');
  });

  it('opens Settings pages by intent and refuses anything else in a sentence', async () => {
    const phone = new SimulatedPhoneUi();
    await phone.startIntent('android.settings.WIRELESS_SETTINGS');
    expect(phone.where).toBe('settings/network');
    await phone.startIntent('android.settings.SETTINGS');
    expect(phone.where).toBe('settings/home');
    await phone.startIntent('android.settings.WIFI_SETTINGS');
    expect(phone.where).toBe('settings/network');
    await expect(phone.startIntent('android.intent.action.VIEW', 'market://details?id=com.example.vpn')).rejects.toThrow(
      'The simulated Play Store has no page for com.example.vpn: it shows only its settings.',
    );
    await expect(phone.startIntent('android.settings.BLUETOOTH_SETTINGS')).rejects.toThrow(
      'The simulated phone cannot open android.settings.BLUETOOTH_SETTINGS.',
    );
    expect(phone.where).toBe('settings/network');
  });

  it('draws Settings and the Play Store for screenshots', async () => {
    const phone = new SimulatedPhoneUi({ width: 720, height: 1440 });
    await phone.launchApp('com.android.vending');
    await tapOn(phone, byText(read(phone), 'Auto-update apps'));
    expect(phone.where).toBe('playstore/auto-update');
    const shot = await phone.screenshot({ maxSide: 360 });
    expect(shot.data.byteLength).toBeGreaterThan(0);
    await phone.key('back');
    await phone.key('back');
    expect(phone.where).toBe('launcher');
  });
});
