/**
 * The screen read and the leader's selector on Settings and Play Store screens (test/fixtures/real/settings and
 * play-store, rebuilt from named facts: index.json names the sources) and a real Instagram feed (instagram/feed.xml).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findAll } from '../recipes/recipe.inspect.ts';
import { centerOf, parseUiXml, type UiScreen } from '../recipes/recipe.ui.ts';
import { readScreen, sameScreen } from './group.screen.ts';
import { selectorAt } from './group.selector.ts';

const real = (file: string) => parseUiXml(readFileSync(new URL(`../../test/fixtures/real/${file}`, import.meta.url), 'utf8'));

/** The centre of the first node with this text, as a share of the screen. */
function pointOf(screen: UiScreen, text: string, at: 'centre' | 'left' = 'centre'): { x: number; y: number } {
  const node = screen.nodes.find((item) => item.text === text);
  if (!node) throw new Error(`no ${text}`);
  const { x, y } = centerOf(node.bounds);
  return { x: (at === 'left' ? 10 : x) / screen.width, y: y / screen.height };
}

describe('the screen a phone shows', () => {
  const small = real('settings/home-720.xml');
  const medium = real('settings/home-1080.xml');
  const large = real('settings/home-1440.xml');

  it('has the same signature on three sizes and scrolled, another on the next page', () => {
    const leader = readScreen(medium).signature;
    expect(leader.package).toBe('com.android.settings');
    expect(sameScreen(leader, readScreen(small).signature)).toBe(true);
    expect(sameScreen(leader, readScreen(large).signature)).toBe(true);
    expect(sameScreen(leader, readScreen(real('settings/home-scrolled.xml')).signature)).toBe(true);
    expect(sameScreen(leader, readScreen(real('settings/network.xml')).signature)).toBe(false);
    expect(sameScreen(leader, readScreen(real('instagram/feed.xml')).signature)).toBe(false);
  });

  it('reads the app in front and the shade', () => {
    expect(readScreen(medium)).toMatchObject({ front: 'com.android.settings', shade: false, split: false, pip: false });
    expect(readScreen(real('instagram/feed.xml')).front).toBe('com.instagram.android');
    expect(readScreen(real('settings/shade.xml'))).toMatchObject({ shade: true });
    expect(readScreen(real('play-store/settings-network-1080.xml'))).toMatchObject({ front: 'com.android.vending', shade: false, split: false, pip: false });
  });
});

/** A made-up two-window tree (not a phone's: only the window roots the read looks at). */
const windows = (...roots: [string, string][]) =>
  parseUiXml(
    `<hierarchy>${roots.map(([pkg, bounds]) => `<node class="android.widget.FrameLayout" package="${pkg}" bounds="${bounds}"><node class="android.widget.TextView" package="${pkg}" text="x" bounds="${bounds}"/></node>`).join('')}</hierarchy>`,
  );

describe('overlays', () => {
  it('reads two apps side by side as a split screen and a small window of another app as PiP', () => {
    // The screen's size is read from the first root, so the System UI's full-screen window comes first here.
    const split = windows(
      ['com.android.systemui', '[0,0][1080,2400]'],
      ['com.android.settings', '[0,0][1080,1200]'],
      ['com.android.vending', '[0,1200][1080,2400]'],
    );
    expect(readScreen(split)).toMatchObject({ split: true });
    expect(readScreen(windows(['com.android.settings', '[0,0][1080,2400]'], ['com.google.android.youtube', '[600,1800][1040,2100]']))).toMatchObject({
      front: 'com.android.settings',
      pip: true,
      packages: ['com.android.settings', 'com.google.android.youtube'],
    });
  });

  it('does not take a permission prompt over an app for a split screen or PiP', () => {
    const prompt = readScreen(windows(['com.android.settings', '[0,0][1080,2400]'], ['com.android.permissioncontroller', '[0,0][1080,2400]']));
    expect(prompt).toMatchObject({ front: 'com.android.settings', split: false, pip: false });
  });
});

describe("the leader's finger as a selector", () => {
  it('names a Settings row by its title wherever on the row the finger is, unique on the leader', () => {
    const leader = real('settings/home-1080.xml');
    const onTitle = selectorAt(leader, pointOf(leader, 'Network & internet'));
    expect(onTitle?.selector).toEqual({ id: 'title', text: 'Network & internet' });
    // On the row's icon: the clickable row has no name of its own; its title inside it names it.
    const onIcon = selectorAt(leader, pointOf(leader, 'Network & internet', 'left'));
    expect(onIcon?.selector).toEqual({ id: 'title', text: 'Network & internet' });
    expect(findAll(leader, onTitle!.selector)).toHaveLength(1);
  });

  it('names a Play Store row (Compose, no ids) by its text', () => {
    const leader = real('play-store/settings-network-1080.xml');
    expect(selectorAt(leader, pointOf(leader, 'Auto-update apps'))?.selector).toEqual({ text: 'Auto-update apps' });
  });

  it('is null where nothing under the finger names itself (a tap by point is offered)', () => {
    // The Play Store's top bar right of its title: a Compose view with no id, text or description.
    const leader = real('play-store/settings-network-1080.xml');
    expect(selectorAt(leader, { x: 0.95, y: 0.05 })).toBeNull();
  });
});
