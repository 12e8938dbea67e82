/**
 * Group control is for setup and navigation only; these are its rules (issue "Group control", "Setup and navigation
 * only"), as one pure function both the farm host (against the screen read that resolves the action) and the API
 * call. Every refusal is a sentence naming why.
 *
 * Package names and where each is named publicly. "unverified" marks a name not read from a source here: it is the
 * package the maker ships as far as is known, and needs a real phone to confirm.
 */
import type { GroupAction, GroupLists } from './group.messages.ts';
import { SYSTEM_UI, type ScreenRead } from './group.screen.ts';

interface Named {
  name: string;
  source: string;
}

/** Home screens. */
export const LAUNCHERS: Record<string, Named> = {
  'com.android.launcher3': {
    name: 'the launcher',
    source: 'AOSP packages/apps/Launcher3; Kqramazov/fdroid_utg output/tw.qtlin.mac.airunlocker.apk/utg.js (package of the Launcher state)',
  },
  'com.google.android.apps.nexuslauncher': { name: 'the Pixel launcher', source: 'unverified' },
  'com.sec.android.app.launcher': { name: 'the Samsung launcher', source: 'unverified' },
  'com.miui.home': { name: 'the Xiaomi launcher', source: 'unverified' },
  'com.huawei.android.launcher': { name: 'the Huawei launcher', source: 'unverified' },
  'net.oneplus.launcher': { name: 'the OnePlus launcher', source: 'unverified' },
};

/** Settings: AOSP's package, which Samsung's and Xiaomi's Settings keep (Xiaomi's activity is `.MiuiSettings`). */
export const SETTINGS: Record<string, Named> = {
  'com.android.settings': {
    name: 'Settings',
    source:
      'AOSP packages/apps/Settings (AndroidManifest package); used with `.MiuiSettings` by public Xiaomi test scripts (find_string "com.android.settings:id/dashboard_container")',
  },
  'com.android.settings.intelligence': { name: 'Settings search', source: 'AOSP packages/apps/SettingsIntelligence; unverified' },
};

/** The permission controller and the package installer. */
export const SYSTEM_DIALOGS: Record<string, Named> = {
  android: { name: 'a system dialog', source: 'the system server\'s own package ("android", frameworks/base/core/res AndroidManifest)' },
  'com.android.permissioncontroller': {
    name: 'the permission controller',
    source: 'AOSP packages/modules/Permission; Kqramazov/fdroid_utg utg.js (GrantPermissionsActivity state)',
  },
  'com.google.android.permissioncontroller': { name: 'the permission controller', source: 'the Google-signed Mainline build; unverified' },
  'com.android.packageinstaller': { name: 'the package installer', source: 'AOSP packages/apps/PackageInstaller' },
  'com.google.android.packageinstaller': { name: 'the package installer', source: 'Google builds; unverified' },
};

/** The setup wizard. */
export const SETUP_WIZARDS: Record<string, Named> = {
  'com.google.android.setupwizard': { name: 'the setup wizard', source: 'unverified' },
  'com.android.provision': { name: 'the setup wizard', source: 'AOSP packages/apps/Provision; unverified' },
  'com.sec.android.app.SecSetupWizard': { name: 'the setup wizard', source: 'unverified' },
};

/** The Play Store: taps, keys and scrolls only. */
export const PLAY_STORE = 'com.android.vending';
const PLAY_STORE_SOURCE =
  'public test scripts starting it by package (find_string \'package="com.android.vending"\'); aconetwork/Website content/posts/2025/09-gplay-updates.en.md';

/** The allowlist: launchers, Settings, the permission controller, the package installer, system dialogs, the setup wizard, the Play Store. */
export const GROUP_ALLOWLIST: Record<string, Named> = {
  ...LAUNCHERS,
  ...SETTINGS,
  ...SYSTEM_DIALOGS,
  ...SETUP_WIZARDS,
  [PLAY_STORE]: { name: 'the Play Store', source: PLAY_STORE_SOURCE },
  // The status bar is on every screen; the shade and split screen are caught as overlays.
  [SYSTEM_UI]: { name: 'the System UI', source: 'AOSP frameworks/base/packages/SystemUI' },
};

/**
 * Social, dating, messaging, video and browser apps: never allowed, never addable. The package names are the apps'
 * Play Store listing ids (play.google.com/store/apps/details?id=…); those the project's fixtures or public scripts
 * carry are named, the rest unverified.
 */
export const GROUP_DENYLIST: Record<string, Named> = {
  'com.instagram.android': { name: 'Instagram', source: 'test/fixtures/real/instagram (YallaPapi/geelark-automation page sources)' },
  'com.instagram.lite': { name: 'Instagram Lite', source: 'unverified' },
  'com.instagram.barcelona': { name: 'Threads', source: 'unverified' },
  'com.zhiliaoapp.musically': { name: 'TikTok', source: 'test/fixtures/real/tiktok-musically' },
  'com.ss.android.ugc.trill': { name: 'TikTok', source: 'test/fixtures/real/tiktok-trill' },
  'com.zhiliaoapp.musically.go': { name: 'TikTok Lite', source: 'unverified' },
  'com.facebook.katana': { name: 'Facebook', source: 'unverified' },
  'com.facebook.lite': { name: 'Facebook Lite', source: 'unverified' },
  'com.facebook.orca': { name: 'Messenger', source: 'unverified' },
  'com.twitter.android': { name: 'X', source: 'unverified' },
  'com.snapchat.android': { name: 'Snapchat', source: 'unverified' },
  'com.google.android.youtube': {
    name: 'YouTube',
    source: 'public test script starting com.google.android.youtube/…WatchWhileActivity (find_string "Auto-update apps")',
  },
  'com.tinder': { name: 'Tinder', source: 'unverified' },
  'com.bumble.app': { name: 'Bumble', source: 'unverified' },
  'co.hinge.app': { name: 'Hinge', source: 'unverified' },
  'com.badoo.mobile': { name: 'Badoo', source: 'unverified' },
  'com.whatsapp': { name: 'WhatsApp', source: 'unverified' },
  'com.whatsapp.w4b': { name: 'WhatsApp Business', source: 'unverified' },
  'org.telegram.messenger': { name: 'Telegram', source: 'unverified' },
  'org.thoughtcrime.securesms': { name: 'Signal', source: 'unverified' },
  'com.viber.voip': { name: 'Viber', source: 'unverified' },
  'com.discord': { name: 'Discord', source: 'unverified' },
  'com.reddit.frontpage': { name: 'Reddit', source: 'unverified' },
  'com.pinterest': { name: 'Pinterest', source: 'unverified' },
  'com.linkedin.android': { name: 'LinkedIn', source: 'unverified' },
  'tv.twitch.android.app': { name: 'Twitch', source: 'unverified' },
  'com.android.chrome': { name: 'Chrome', source: 'public test script starting com.android.chrome/…Main (find_string "Auto-update apps")' },
  'org.mozilla.firefox': { name: 'Firefox', source: 'unverified' },
  'com.sec.android.app.sbrowser': { name: 'Samsung Internet', source: 'unverified' },
  'com.opera.browser': { name: 'Opera', source: 'unverified' },
  'com.microsoft.emmx': { name: 'Edge', source: 'unverified' },
  'com.brave.browser': { name: 'Brave', source: 'unverified' },
  'com.android.browser': { name: 'the browser', source: 'AOSP packages/apps/Browser (retired); unverified' },
};

const TEXT_PACKAGES = new Set([...Object.keys(SETTINGS), ...Object.keys(SETUP_WIZARDS), ...Object.keys(SYSTEM_DIALOGS)]);

/** How a package is named in a refusal. */
function nameOf(packageName: string): string {
  return GROUP_DENYLIST[packageName]?.name ?? GROUP_ALLOWLIST[packageName]?.name ?? packageName;
}

/** Why an operator may not add this package to the allowlist, or null when they may. */
export function cannotAdd(packageName: string, recipePackages: readonly string[]): string | null {
  const denied = GROUP_DENYLIST[packageName];
  if (denied) return `${denied.name} (${packageName}) is a social, dating, messaging, video or browser app: group control never drives it.`;
  if (recipePackages.includes(packageName)) return `${packageName} is driven by a recipe of this workspace: group control never drives it.`;
  return null;
}

/** The packages group control acts in for this workspace: the built-in allowlist and the operators' additions it may keep. */
export function allowedPackages(lists: Pick<GroupLists, 'added' | 'recipePackages'>): Set<string> {
  const allowed = new Set(Object.keys(GROUP_ALLOWLIST));
  for (const added of lists.added) if (cannotAdd(added, lists.recipePackages) === null) allowed.add(added);
  return allowed;
}

export type RuleVerdict = { ok: true } | { ok: false; reason: string };

const refuse = (reason: string): RuleVerdict => ({ ok: false, reason: `Group control is for setup: ${reason}` });

/** Android's package-name shape, for `package:` and `market://details?id=` data. */
const PACKAGE = /^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$/;
/** `android.settings.WIFI_SETTINGS` and its kin: the Settings actions (android.provider.Settings ACTION_* values). */
const SETTINGS_ACTION = /^android\.settings\.[A-Z][A-Z0-9_]*$/;
const DETAILS = 'android.settings.APPLICATION_DETAILS_SETTINGS';

/** Whether an intent is on the closed list; the refusal's reason otherwise. */
export function checkIntent(action: Extract<GroupAction, { kind: 'intent' }>, appLibrary: readonly string[]): RuleVerdict {
  const { data } = action;
  if (data !== undefined && /^https?:/i.test(data)) return refuse('web links are never opened.');
  if (SETTINGS_ACTION.test(action.action)) {
    if (action.action === DETAILS) {
      const target = data?.startsWith('package:') ? data.slice('package:'.length) : '';
      if (!PACKAGE.test(target)) return refuse('an app’s details page is opened with "package:" and the app’s package.');
      return { ok: true };
    }
    if (data !== undefined) return refuse(`${action.action} is opened without data.`);
    return { ok: true };
  }
  if (action.action === 'android.intent.action.VIEW' && data !== undefined && data.startsWith('market://details?id=')) {
    const target = data.slice('market://details?id='.length);
    if (!PACKAGE.test(target)) return refuse('a Play Store page is opened as market://details?id= and a package, nothing more.');
    if (!appLibrary.includes(target)) return refuse(`${target} is not in this workspace’s app library.`);
    if (GROUP_DENYLIST[target]) return refuse(`${nameOf(target)} is not opened by group control.`);
    return { ok: true };
  }
  if (/SEND/.test(action.action)) return refuse('nothing is shared (SEND is never sent).');
  return refuse(`${action.action} is not on the closed list (Settings actions, an app’s details page, Play Store pages of the app library).`);
}

function isLongPress(action: GroupAction): boolean {
  return (action.kind === 'finger' || action.kind === 'selector' || action.kind === 'point') && action.press === 'long_press';
}

/**
 * Checks one action against one read of a phone's screen and the workspace's lists: rules 1–4 of group control.
 * `target` is the package of the node the action lands on, when it lands on one.
 */
export function checkGroupRules(
  action: GroupAction,
  screen: Pick<ScreenRead, 'front' | 'packages' | 'shade' | 'split' | 'pip'>,
  lists: GroupLists,
  target?: string | null,
): RuleVerdict {
  // Home too follows rule 1: a phone left in an app group control refuses is brought home with its own live screen.
  const backOrHome = action.kind === 'key' && (action.key === 'back' || action.key === 'home');
  // Rule 4: while an overlay shows, only Back and Home.
  const overlay = screen.shade
    ? 'the notification shade is showing'
    : screen.split
      ? 'a split screen is showing'
      : screen.pip
        ? 'a picture-in-picture window is showing'
        : null;
  if (overlay && !backOrHome) return refuse(`${overlay} (only Back and Home go through).`);
  // Rule 1: the app in front, every visible window and the target are on the allowlist.
  const allowed = allowedPackages(lists);
  const front = screen.front;
  if (front !== null && !allowed.has(front)) return refuse(`${nameOf(front)} is in front.`);
  for (const visible of screen.packages) if (!allowed.has(visible)) return refuse(`${nameOf(visible)} shows on the screen.`);
  if (target && !allowed.has(target)) return refuse(`the element belongs to ${nameOf(target)}.`);
  // The Play Store: taps, keys and scrolls only (a swipe is how a finger scrolls; a long press opens nothing needed for
  // setup there).
  if (front === PLAY_STORE && (action.kind === 'text' || action.kind === 'intent' || isLongPress(action)))
    return refuse('in the Play Store only taps, keys and scrolls go through.');
  // Rule 2: text only into Settings, the setup wizard and system dialogs.
  if (action.kind === 'text' && (front === null || !TEXT_PACKAGES.has(front)))
    return refuse(`text goes only into Settings, the setup wizard and system dialogs${front ? `, not ${nameOf(front)}` : ''}.`);
  // Rule 3: intents from the closed list.
  if (action.kind === 'intent') return checkIntent(action, lists.appLibrary);
  return { ok: true };
}
