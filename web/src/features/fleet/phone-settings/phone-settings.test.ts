import { describe, expect, it } from 'vitest';
import { emptyPhoneSettingsForm, settingsOfForm, settingsRequest } from './phone-settings';

describe('settings in bulk form', () => {
  it('sends only what was chosen, and says what is wrong in a sentence', () => {
    expect(settingsOfForm(emptyPhoneSettingsForm())).toBe('Choose at least one setting');
    expect(settingsOfForm({ ...emptyPhoneSettingsForm(), stayAwake: true, wifi: 'off', screenTimeoutMs: '120000' })).toEqual({
      stayAwake: true,
      wifi: 'off',
      screenTimeoutMs: 120_000,
    });
    expect(settingsOfForm({ ...emptyPhoneSettingsForm(), appPackage: 'com.instagram.android', appLocale: 'pt-BR' })).toEqual({
      appLocale: { package: 'com.instagram.android', locale: 'pt-BR' },
    });
    expect(settingsOfForm({ ...emptyPhoneSettingsForm(), appPackage: 'instagram', appLocale: 'de' })).toBe(
      'App must be an app package such as com.instagram.android',
    );
    expect(settingsOfForm({ ...emptyPhoneSettingsForm(), appPackage: 'com.instagram.android', appLocale: 'German' })).toBe(
      'Language must be a language tag such as de or pt-BR',
    );
    expect(settingsRequest({ groupId: 'g1' }, { wifi: 'on' })).toEqual({ groupId: 'g1', settings: { wifi: 'on' } });
    expect(settingsRequest({ deviceIds: ['d1'] }, { wifi: 'on' })).toEqual({ deviceIds: ['d1'], settings: { wifi: 'on' } });
  });
});
