/** The screens bench/group's phones show, and where the leader's finger goes on them. */
import { readFileSync } from 'node:fs';
import { selectorAt } from '../../agent-protocol/src/group/group.selector.ts';
import { readScreen } from '../../agent-protocol/src/group/group.screen.ts';
import { centerOf, parseUiXml } from '../../agent-protocol/src/recipes/recipe.ui.ts';
import { SimulatedPhoneUi } from '../../agent-protocol/src/simphone/simphone.device.ts';

/** Settings' home at three widths: the element under the leader's finger sits at another share of each screen. */
export const SETTINGS_SCREENS = [
  { file: 'settings/home-1080.xml', size: '1080x2400' },
  { file: 'settings/home-720.xml', size: '720x1440' },
  { file: 'settings/home-1440.xml', size: '1440x3200' },
] as const;

/** The serial of the adb kind's phone number `index` (0 is the leader, on the 1080 px screen). */
export const adbSerial = (index: number) => `SETTINGS${String(index).padStart(3, '0')}`;

export const settingsXml = (file: string) => readFileSync(new URL(`../../agent-protocol/test/fixtures/real/${file}`, import.meta.url), 'utf8');

/**
 * The leader's finger: on the title "Network & internet" of the 1080 px Settings home (a share of the screen), and
 * what it lands on. Followers on other widths find the same element elsewhere.
 */
export function leaderFinger(): { x: number; y: number; named: string } {
  const screen = parseUiXml(settingsXml(SETTINGS_SCREENS[0].file));
  const title = screen.nodes.find((node) => node.text === 'Network & internet');
  if (!title) throw new Error('the Settings fixture has no "Network & internet" any more');
  const finger = { x: (title.bounds.left + 20) / screen.width, y: (title.bounds.top + 10) / screen.height };
  return { ...finger, named: `the Settings row ${JSON.stringify(selectorAt(screen, finger)?.selector)}` };
}

/**
 * The simulated leader's finger: on the Settings icon of its home screen (the home key first), where simulated phones
 * have one; else (phones that show only their apps) where the adb leader's finger goes. `named` says what it lands on.
 */
export async function simLeaderFinger(): Promise<{ x: number; y: number; named: string }> {
  // The same phone as the farm host's first simulated one (its defaults: the size every one of them has).
  const phone = new SimulatedPhoneUi({ serial: 'SIM-0001' });
  try {
    await phone.key('home');
    const screen = parseUiXml(phone.uiXml());
    const icon = screen.nodes.find((node) => node.text === 'Settings' || node.desc === 'Settings');
    if (!icon) {
      const { x, y } = leaderFinger();
      return { x, y, named: `nothing named Settings on its home screen (${readScreen(screen).signature.package ?? 'no app'} in front)` };
    }
    const center = centerOf(icon.bounds);
    return { x: center.x / screen.width, y: center.y / screen.height, named: 'the Settings icon of the home screen' };
  } finally {
    await phone.close();
  }
}
