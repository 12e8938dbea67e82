/**
 * Phone settings in bulk (issue #42): what the console may ask a farm host to set on its phones, the adb shell
 * commands that set each (every one sourced in ../adb/EVIDENCE.md), and what came of each per phone. A setting adb
 * cannot reach is answered `person`, with what a person does on the phone instead; the console makes that a task.
 *
 * Wi-Fi is a person's toggle from the console: it is set when asked and never scheduled or cycled by the host.
 */
import { z } from 'zod';

const packageName = z
  .string()
  .max(200)
  .regex(/^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/, 'an app package such as com.instagram.android');
/** A BCP 47 language tag as Android's LocaleList.forLanguageTags reads it: "de", "pt-BR", "zh-Hant-TW". */
const languageTag = z
  .string()
  .max(35)
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'a language tag such as de or pt-BR');

export const phoneSettings = z
  .object({
    /** Stay awake while charging (AC or USB), or not. */
    stayAwake: z.boolean().optional(),
    /** Screen timeout, 10 s to 30 min. */
    screenTimeoutMs: z
      .number()
      .int()
      .min(10_000)
      .max(30 * 60_000)
      .optional(),
    /** Brightness 0–255 (adaptive brightness turned off, so it holds). */
    brightness: z.number().int().min(0).max(255).optional(),
    /** Wi-Fi on or off. */
    wifi: z.enum(['on', 'off']).optional(),
    /** Automatic updates off as far as adb reaches: system updates by adb; the Play Store's own toggle by a person. */
    autoUpdatesOff: z.literal(true).optional(),
    /** One app's language (Android 13+ by adb; older phones by a person). */
    appLocale: z.object({ package: packageName, locale: languageTag }).optional(),
  })
  .refine((settings) => Object.values(settings).some((value) => value !== undefined), { message: 'Choose at least one setting', path: ['stayAwake'] });
export type PhoneSettings = z.infer<typeof phoneSettings>;

export const phoneSettingNames = ['stayAwake', 'screenTimeoutMs', 'brightness', 'wifi', 'autoUpdatesOff', 'appStoreUpdates', 'appLocale'] as const;
export type PhoneSettingName = (typeof phoneSettingNames)[number];

/** What came of one setting on one phone. */
export const settingOutcome = z.object({
  setting: z.enum(phoneSettingNames),
  outcome: z.enum(['done', 'failed', 'person']),
  /** What went wrong, or what a person does on the phone. */
  detail: z.string().max(500).nullable(),
});
export type SettingOutcome = z.infer<typeof settingOutcome>;

/** The host's answer to `host.phone-settings`: each phone's outcomes, or why the phone could not be reached. */
export const phoneSettingsAnswer = z.object({
  results: z.array(z.object({ serial: z.string().max(100), outcomes: z.array(settingOutcome).max(20), error: z.string().max(500).nullable() })).max(1000),
});
export type PhoneSettingsAnswer = z.infer<typeof phoneSettingsAnswer>;

/** What the server sends a host that advertises `phone-settings`. */
export const phoneSettingsRequest = z.object({ serials: z.array(z.string().min(1).max(100)).min(1).max(1000), settings: phoneSettings });
export type PhoneSettingsRequest = z.infer<typeof phoneSettingsRequest>;

/** The feature a host names in its hello when it can set phone settings. */
export const PHONE_SETTINGS_FEATURE = 'phone-settings';

/** One step: a shell command, or (where adb cannot) what a person does. */
export type SettingStep = { setting: PhoneSettingName; commands: string[] } | { setting: PhoneSettingName; person: string };

/** Android 13: `cmd locale` (LocaleManagerShellCommand) came with it. */
export const APP_LOCALES_SDK = 33;

/** The steps for these settings on a phone of this SDK level (null when it could not be read). */
export function settingSteps(settings: PhoneSettings, sdk: number | null): SettingStep[] {
  const steps: SettingStep[] = [];
  if (settings.stayAwake !== undefined)
    // BatteryManager.BATTERY_PLUGGED_AC (1) | BATTERY_PLUGGED_USB (2).
    steps.push({ setting: 'stayAwake', commands: [`settings put global stay_on_while_plugged_in ${settings.stayAwake ? 3 : 0}`] });
  if (settings.screenTimeoutMs !== undefined)
    steps.push({ setting: 'screenTimeoutMs', commands: [`settings put system screen_off_timeout ${settings.screenTimeoutMs}`] });
  if (settings.brightness !== undefined)
    steps.push({
      setting: 'brightness',
      // Manual mode first (SCREEN_BRIGHTNESS_MODE_MANUAL = 0), else adaptive brightness moves it again at once.
      commands: ['settings put system screen_brightness_mode 0', `settings put system screen_brightness ${settings.brightness}`],
    });
  if (settings.wifi !== undefined) steps.push({ setting: 'wifi', commands: [`svc wifi ${settings.wifi === 'on' ? 'enable' : 'disable'}`] });
  if (settings.autoUpdatesOff) {
    steps.push({ setting: 'autoUpdatesOff', commands: ['settings put global ota_disable_automatic_update 1'] });
    steps.push({
      setting: 'appStoreUpdates',
      person: 'Turn off app auto-updates in Play Store: profile picture › Settings › Network preferences › Auto-update apps › Don’t auto-update apps.',
    });
  }
  if (settings.appLocale) {
    const { package: app, locale } = settings.appLocale;
    steps.push(
      sdk !== null && sdk >= APP_LOCALES_SDK
        ? { setting: 'appLocale', commands: [`cmd locale set-app-locales ${app} --locales ${locale}`] }
        : {
            setting: 'appLocale',
            person: `Set ${app}'s language to ${locale} on the phone (Android 12 and older have no per-app language: change the phone's language or the app's own setting).`,
          },
    );
  }
  return steps;
}

/**
 * Runs the steps on one phone through `shell` and answers each setting's outcome. These commands print nothing when
 * they work; anything they print is the phone's refusal ("Unknown package … for userId 0", a security exception).
 */
export async function applySteps(steps: readonly SettingStep[], shell: (command: string) => Promise<string>): Promise<SettingOutcome[]> {
  const outcomes: SettingOutcome[] = [];
  for (const step of steps) {
    if ('person' in step) {
      outcomes.push({ setting: step.setting, outcome: 'person', detail: step.person.slice(0, 500) });
      continue;
    }
    let detail: string | null = null;
    for (const command of step.commands) {
      try {
        const output = (await shell(command)).trim();
        if (output) detail = output;
      } catch (error) {
        detail = error instanceof Error ? error.message : String(error);
      }
      if (detail) break;
    }
    outcomes.push({ setting: step.setting, outcome: detail ? 'failed' : 'done', detail: detail?.slice(0, 500) ?? null });
  }
  return outcomes;
}
