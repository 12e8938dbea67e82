import { describe, expect, it } from 'vitest';
import { applySteps, phoneSettings, settingSteps } from './fleet.settings.ts';

describe('phone settings in bulk', () => {
  it('turns each setting into the adb commands of ../adb/EVIDENCE.md, or into words for a person', () => {
    const settings = phoneSettings.parse({
      stayAwake: true,
      screenTimeoutMs: 120_000,
      brightness: 40,
      wifi: 'off',
      autoUpdatesOff: true,
      appLocale: { package: 'com.instagram.android', locale: 'pt-BR' },
    });
    expect(settingSteps(settings, 34)).toEqual([
      { setting: 'stayAwake', commands: ['settings put global stay_on_while_plugged_in 3'] },
      { setting: 'screenTimeoutMs', commands: ['settings put system screen_off_timeout 120000'] },
      { setting: 'brightness', commands: ['settings put system screen_brightness_mode 0', 'settings put system screen_brightness 40'] },
      { setting: 'wifi', commands: ['svc wifi disable'] },
      { setting: 'autoUpdatesOff', commands: ['settings put global ota_disable_automatic_update 1'] },
      { setting: 'appStoreUpdates', person: expect.stringContaining('Play Store') },
      { setting: 'appLocale', commands: ['cmd locale set-app-locales com.instagram.android --locales pt-BR'] },
    ]);
    // Android 12 (SDK 32) has no `cmd locale`: a person sets it.
    expect(settingSteps({ appLocale: { package: 'com.instagram.android', locale: 'de' } }, 32)).toEqual([
      { setting: 'appLocale', person: expect.stringContaining("Set com.instagram.android's language to de") },
    ]);
    expect(settingSteps({ stayAwake: false }, null)).toEqual([{ setting: 'stayAwake', commands: ['settings put global stay_on_while_plugged_in 0'] }]);
  });

  it('refuses nothing chosen, a shell-unsafe package or locale, and values out of range', () => {
    expect(phoneSettings.safeParse({}).success).toBe(false);
    expect(phoneSettings.safeParse({ appLocale: { package: 'com.x; reboot', locale: 'de' } }).success).toBe(false);
    expect(phoneSettings.safeParse({ appLocale: { package: 'com.instagram.android', locale: 'de;reboot' } }).success).toBe(false);
    expect(phoneSettings.safeParse({ brightness: 256 }).success).toBe(false);
    expect(phoneSettings.safeParse({ screenTimeoutMs: 1000 }).success).toBe(false);
  });

  it('answers done for silent commands, failed with what the phone printed, person for the rest', async () => {
    const ran: string[] = [];
    // Output of LocaleManagerShellCommand.runSetAppLocales for a package the phone does not have (EVIDENCE.md).
    const shell = async (command: string) => {
      ran.push(command);
      return command.startsWith('cmd locale') ? 'Unknown package com.zhiliaoapp.musically for userId 0\n' : '';
    };
    const outcomes = await applySteps(
      settingSteps({ wifi: 'on', autoUpdatesOff: true, appLocale: { package: 'com.zhiliaoapp.musically', locale: 'en' } }, 33),
      shell,
    );
    expect(outcomes).toEqual([
      { setting: 'wifi', outcome: 'done', detail: null },
      { setting: 'autoUpdatesOff', outcome: 'done', detail: null },
      { setting: 'appStoreUpdates', outcome: 'person', detail: expect.stringContaining('Auto-update apps') },
      { setting: 'appLocale', outcome: 'failed', detail: 'Unknown package com.zhiliaoapp.musically for userId 0' },
    ]);
    expect(ran).toEqual([
      'svc wifi enable',
      'settings put global ota_disable_automatic_update 1',
      'cmd locale set-app-locales com.zhiliaoapp.musically --locales en',
    ]);
    // A command that does not answer fails that setting and stops its other commands.
    const stuck = await applySteps(settingSteps({ brightness: 10 }, 34), async () => {
      throw new Error('"settings put system screen_brightness_mode 0" got no answer within 10000 ms.');
    });
    expect(stuck).toEqual([
      { setting: 'brightness', outcome: 'failed', detail: '"settings put system screen_brightness_mode 0" got no answer within 10000 ms.' },
    ]);
  });
});
