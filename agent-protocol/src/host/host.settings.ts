/**
 * The console's phone settings on a farm host's adb phones (`host.phone-settings`): each phone asked for, one after
 * another, gets the settings as shell steps for its Android version, and the answer says each setting's outcome per
 * phone, or that the host does not see the phone now.
 */
import type { AdbHost } from '../adb/adb.host.ts';
import { applySteps, phoneSettingsRequest, settingSteps, type PhoneSettingsAnswer } from '../fleet/fleet.messages.ts';

/** Sets the console's settings on each phone asked for, one phone after another, and answers each one's outcomes. */
export async function setPhoneSettings(adb: AdbHost, raw: unknown, log: (line: string) => void): Promise<PhoneSettingsAnswer> {
  const parsed = phoneSettingsRequest.safeParse(raw);
  if (!parsed.success) return { results: [] };
  const results: PhoneSettingsAnswer['results'] = [];
  for (const serial of parsed.data.serials) {
    const phone = adb.phone(serial);
    if (!phone) {
      results.push({ serial, outcomes: [], error: 'The host does not see this phone now.' });
      continue;
    }
    const shell = (command: string) => phone.exec(command, 10_000);
    const sdk = Number.parseInt((await shell('getprop ro.build.version.sdk').catch(() => '')).trim(), 10);
    const outcomes = await applySteps(settingSteps(parsed.data.settings, Number.isNaN(sdk) ? null : sdk), shell);
    log(`${serial}: settings ${outcomes.map((item) => `${item.setting} ${item.outcome}`).join(', ')}`);
    results.push({ serial, outcomes, error: null });
  }
  return { results };
}
