/** Settings in bulk (issue #42): the form's values, the request they make, and how outcomes read. */
import { phoneSettings, type PhoneSettings, type PhoneSettingsBody, type SettingOutcome } from '@farm/contracts';

export interface PhoneSettingsForm {
  stayAwake: boolean | null;
  screenTimeoutMs: string | null;
  brightness: number | null;
  wifi: 'on' | 'off' | null;
  autoUpdatesOff: boolean;
  appPackage: string;
  appLocale: string;
}

export const emptyPhoneSettingsForm = (): PhoneSettingsForm => ({
  stayAwake: null,
  screenTimeoutMs: null,
  brightness: null,
  wifi: null,
  autoUpdatesOff: false,
  appPackage: '',
  appLocale: '',
});

export const screenTimeouts = [
  { value: '15000', label: '15 seconds' },
  { value: '30000', label: '30 seconds' },
  { value: '60000', label: '1 minute' },
  { value: '120000', label: '2 minutes' },
  { value: '300000', label: '5 minutes' },
  { value: '600000', label: '10 minutes' },
  { value: '1800000', label: '30 minutes' },
];

export const settingLabels: Record<SettingOutcome['setting'], string> = {
  stayAwake: 'Stay awake',
  screenTimeoutMs: 'Screen timeout',
  brightness: 'Brightness',
  wifi: 'Wi-Fi',
  autoUpdatesOff: 'System updates',
  appStoreUpdates: 'Play Store updates',
  appLocale: 'App language',
};

export const outcomeWords: Record<SettingOutcome['outcome'], string> = { done: 'Set', failed: 'Not set', person: 'By hand' };
export const outcomeColors: Record<SettingOutcome['outcome'], string> = { done: 'teal', failed: 'red', person: 'yellow' };

/** The settings the form asks for, or the sentence saying what is wrong with it. */
export function settingsOfForm(form: PhoneSettingsForm): PhoneSettings | string {
  const appChosen = form.appPackage.trim() !== '' || form.appLocale.trim() !== '';
  const parsed = phoneSettings.safeParse({
    ...(form.stayAwake !== null ? { stayAwake: form.stayAwake } : {}),
    ...(form.screenTimeoutMs ? { screenTimeoutMs: Number(form.screenTimeoutMs) } : {}),
    ...(form.brightness !== null ? { brightness: form.brightness } : {}),
    ...(form.wifi ? { wifi: form.wifi } : {}),
    ...(form.autoUpdatesOff ? { autoUpdatesOff: true } : {}),
    ...(appChosen ? { appLocale: { package: form.appPackage.trim(), locale: form.appLocale.trim() } } : {}),
  });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (!issue) return 'Choose at least one setting';
  if (issue.path[0] === 'appLocale')
    return issue.path[1] === 'locale' ? 'Language must be a language tag such as de or pt-BR' : 'App must be an app package such as com.instagram.android';
  return issue.message;
}

/** The request: the selected phones, or a group's. */
export function settingsRequest(target: { deviceIds: readonly string[] } | { groupId: string }, settings: PhoneSettings): PhoneSettingsBody {
  return 'groupId' in target ? { groupId: target.groupId, settings } : { deviceIds: [...target.deviceIds], settings };
}
