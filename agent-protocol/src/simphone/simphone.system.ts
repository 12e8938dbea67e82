/**
 * The phone's own screens, where group control works: the home screen (AOSP Launcher3), Settings and the Play Store's
 * settings. Settings and the Play Store are the fixtures of `test/fixtures/real/settings/` and `play-store/` (each
 * names its sources; EVIDENCE.md, "Settings, the Play Store and the home screen"), the one closest to the phone's width
 * scaled to its screen, with taps wired by the rows' titles those trees carry and the phone's state laid over them
 * (Airplane mode's switch, the auto-update choice). The home screen has no public dump here, so it is drawn in code
 * from named facts (see `launcherScreen`).
 */
import type { SimulatedFixture } from './simphone.fixtures.list.ts';
import { walk, type SimNode } from './simphone.render.ts';
import { INSTAGRAM, tree, type SimApi } from './simphone.screens.ts';

/** AOSP Launcher3's package (packages/apps/Launcher3), the home screen of AOSP builds and emulators. */
export const LAUNCHER = 'com.android.launcher3';
export const SETTINGS = 'com.android.settings';
export const PLAY_STORE = 'com.android.vending';

/** Settings' pages and the Play Store's, as far as the fixtures go. */
export type SystemScreen = { name: 'home'; scrolled?: boolean } | { name: 'network' } | { name: 'preferences' } | { name: 'auto-update' };

/** The Auto-update apps choice, in the words the Play Store shows (play-store/auto-update-1080.xml). */
export const AUTO_UPDATE_CHOICES = [
  'Update all apps over Wi-Fi or mobile data',
  'Update with limited amount of mobile data',
  'Update over Wi-Fi only',
  "Don't auto-update apps",
] as const;
export type AutoUpdateChoice = (typeof AUTO_UPDATE_CHOICES)[number];

/** What the phone's own settings hold, laid over the fixtures. */
export interface SystemSettings {
  airplane: boolean;
  /** The fixtures show "Update over Wi-Fi only" checked (the source left it so), and the row's summary "Over Wi-Fi only". */
  autoUpdate: AutoUpdateChoice;
}

/** What the screens call back into. */
export interface SystemNav {
  push(screen: SystemScreen): void;
  back(): void;
  log(event: string): void;
}

/** The fixture of these sizes closest to the phone's width (ties: the smaller). */
function nearest<T extends SimulatedFixture>(byWidth: Record<number, T>, width: number): T {
  const widths = Object.keys(byWidth)
    .map(Number)
    .sort((a, b) => Math.abs(a - width) - Math.abs(b - width) || a - b);
  return byWidth[widths[0] as number] as T;
}

const SETTINGS_HOME = { 720: 'settings/home-720.xml', 1080: 'settings/home-1080.xml', 1440: 'settings/home-1440.xml' } as const;
const STORE_PREFERENCES = {
  720: 'play-store/settings-network-720.xml',
  1080: 'play-store/settings-network-1080.xml',
  1440: 'play-store/settings-network-1440.xml',
} as const;

/** Each clickable row with the first text inside it (a preference's title): Settings' rows and the Play Store's. */
function rows(root: SimNode): { row: SimNode; title: string; texts: SimNode[] }[] {
  const found: { row: SimNode; title: string; texts: SimNode[] }[] = [];
  walk(root, (node) => {
    if (!node.clickable) return;
    const texts: SimNode[] = [];
    walk(node, (inner) => {
      if (inner !== node && inner.text) texts.push(inner);
    });
    const title = node.text ?? texts[0]?.text;
    if (title) found.push({ row: node, title, texts });
  });
  return found;
}

/** The screen of Settings or the Play Store in front, with its taps wired. */
export function systemScreen(api: SimApi, screen: SystemScreen, settings: SystemSettings, nav: SystemNav): SimNode {
  switch (screen.name) {
    case 'home': {
      // Scrolled, the list as home-scrolled.xml shows it (a 1080 px phone's, scaled): its first rows off the screen.
      const root = tree(screen.scrolled ? 'settings/home-scrolled.xml' : nearest(SETTINGS_HOME, api.width), api);
      for (const { row, title } of rows(root)) if (title === 'Network & internet') row.onTap = () => nav.push({ name: 'network' });
      return root;
    }
    case 'network': {
      const root = tree('settings/network.xml', api);
      walk(root, (node) => {
        // The toolbar's up arrow (a clickable ImageButton with no words in the fixture).
        if (node.cls === 'android.widget.ImageButton' && node.clickable) node.onTap = () => nav.back();
      });
      for (const { row, title } of rows(root)) {
        if (title !== 'Airplane mode') continue;
        // A preference with a switch: a tap anywhere on the row flips it, as AOSP's SwitchPreference does.
        walk(row, (node) => {
          if (node.checkable) node.checked = settings.airplane;
        });
        row.onTap = () => {
          settings.airplane = !settings.airplane;
          nav.log(`airplane mode ${settings.airplane ? 'on' : 'off'}`);
        };
      }
      return root;
    }
    case 'preferences': {
      const root = tree(nearest(STORE_PREFERENCES, api.width), api);
      walk(root, (node) => {
        if (node.desc === 'Navigate up' && node.clickable) node.onTap = () => nav.back();
      });
      for (const { row, title, texts } of rows(root)) {
        if (title !== 'Auto-update apps') continue;
        // The row's summary reads the choice; the fixture's "Over Wi-Fi only" stands for the one it was saved with.
        const summary = texts[1];
        if (summary && settings.autoUpdate !== 'Update over Wi-Fi only') summary.text = settings.autoUpdate;
        row.onTap = () => nav.push({ name: 'auto-update' });
      }
      return root;
    }
    case 'auto-update': {
      const root = tree('play-store/auto-update-1080.xml', api);
      walk(root, (node) => {
        const choice = AUTO_UPDATE_CHOICES.find((words) => words === node.text);
        if (!choice || !node.checkable) return;
        node.checked = settings.autoUpdate === choice;
        node.onTap = () => {
          settings.autoUpdate = choice;
          nav.log(`auto-update: ${choice}`);
        };
      });
      return root;
    }
  }
}

/**
 * The home screen, rebuilt from named facts (no public Launcher3 dump was found to copy): the workspace is a
 * `android.widget.ScrollView` with id `com.android.launcher3:id/workspace` holding a `android.view.ViewGroup` page (a
 * CellLayout) whose app icons are `android.widget.TextView`s with the app's label as both text and content-desc, under
 * a `page_indicator`; the dock is `hotseat` (find_string "com.android.launcher3:id/workspace": public test scripts
 * select `workspace`, `page_indicator`, the icon `//android.widget.TextView[@content-desc='Clock']` and
 * `workspace/descendant::android.view.ViewGroup/android.widget.TextView`; a public tool's notes say icons carry the
 * same name as text and contentDesc). Ids of the icons: none (unverified). The grid (four columns), the bounds and the
 * phone's name over the wallpaper are the simulator's own, laid out for each screen size.
 */
export function launcherScreen(api: SimApi, open: (pkg: string) => void, name: string, tiktokPackage: string): SimNode {
  const { width: w, height: h } = api;
  const cell = Math.floor(w / 4);
  const iconHeight = Math.round(cell * 1.2);
  // The dock a quarter of the screen from the bottom: on a 1080x2400 phone Instagram's icon covers [0,1776][270,2100],
  // where the console's recording tests tap it.
  const hotseatTop = Math.round(h * 0.74);
  const icon = (label: string, pkg: string, colour: string, column: number, top: number): SimNode => ({
    cls: 'android.widget.TextView',
    look: 'icon',
    colour,
    text: label,
    desc: label,
    clickable: true,
    longClickable: true,
    focusable: true,
    bounds: [column * cell, top, (column + 1) * cell, top + iconHeight],
    onTap: () => open(pkg),
  });
  const rowTop = hotseatTop - iconHeight - Math.round(h * 0.08);
  return {
    cls: 'android.widget.FrameLayout',
    look: 'wallpaper',
    bounds: [0, 0, w, h],
    children: [
      {
        cls: 'android.widget.ScrollView',
        id: 'workspace',
        scrollable: true,
        bounds: [0, 0, w, hotseatTop],
        children: [
          {
            cls: 'android.view.ViewGroup',
            bounds: [0, Math.round(h * 0.05), w, hotseatTop],
            children: [
              // The phone's name over the wallpaper, so a demo shows which phone this is.
              {
                cls: 'android.widget.TextView',
                text: name,
                bounds: [Math.round(w * 0.06), Math.round(h * 0.22), w - Math.round(w * 0.06), Math.round(h * 0.27)],
              },
              icon('Settings', SETTINGS, '#5f6368', 0, rowTop),
              icon('Play Store', PLAY_STORE, '#01875f', 1, rowTop),
            ],
          },
        ],
      },
      { cls: 'android.view.View', id: 'page_indicator', bounds: [Math.round(w * 0.4), hotseatTop - 40, Math.round(w * 0.6), hotseatTop - 10] },
      {
        cls: 'android.view.ViewGroup',
        id: 'hotseat',
        bounds: [0, hotseatTop, w, hotseatTop + iconHeight],
        children: [icon('Instagram', INSTAGRAM, '#d6249f', 0, hotseatTop), icon('TikTok', tiktokPackage, '#25f4ee', 3, hotseatTop)],
      },
    ],
  };
}
