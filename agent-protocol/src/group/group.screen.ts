/**
 * What group control reads of one screen, once per action: the app in front, every package a visible window shows,
 * the overlays that stop everything but Back and Home (the notification shade, a split screen, a picture-in-picture
 * window), and the screen's signature, compared with the leader's.
 *
 * The signature is the package of the app in front and the set of resource ids its nodes on the screen carry.
 * Chosen because it holds across screen sizes and languages: ids are the app's layout names, the same on a 720 px
 * and a 1440 px phone and in any language, where texts change with language and bounds with size. A list is
 * compared as a set, so a taller phone showing three more rows of the same list keeps the same signature. A window
 * title is not in a `uiautomator dump` (only nodes are), so it cannot be used. Two screens match when the front
 * package is the same and the id sets overlap by at least `SAME_SCREEN_OVERLAP` (Jaccard: shared ids over all ids),
 * which lets a row or a banner more or less on one phone through but not another screen of the same app; screens
 * that carry no ids at all match on the package alone.
 */
import type { ScreenSignature } from './group.messages.ts';
import { isOnScreen } from '../recipes/recipe.inspect.ts';
import type { UiNode, UiScreen } from '../recipes/recipe.ui.ts';

/** Shared ids over all ids at which two screens of the same app count as the same screen. */
export const SAME_SCREEN_OVERLAP = 0.6;

/** The System UI's package: the status bar, the shade and the split-screen divider are drawn by it. */
export const SYSTEM_UI = 'com.android.systemui';

/**
 * Resource ids of the notification shade and quick settings as AOSP's System UI names them (frameworks/base
 * packages/SystemUI res/layout: `notification_panel`, `notification_stack_scroller`, `quick_settings_panel`,
 * `qs_frame`, `quick_qs_panel`). Rebuilt from named facts: the names were not read here (unverified on a real phone).
 */
const SHADE_IDS = ['notification_panel', 'notification_stack_scroller', 'quick_settings_panel', 'qs_frame', 'quick_qs_panel'];
/** The split-screen divider (AOSP WindowManager Shell `docked_divider`, `split_divider`); unverified, rebuilt from named facts. */
const SPLIT_IDS = ['docked_divider', 'split_divider', 'divider_view'];

/** What one read of a screen says, for the rules and for matching the leader. */
export interface ScreenRead {
  /** The app in front: the package of the largest app window on the screen, or null when nothing names one. */
  front: string | null;
  /** Every package a visible node carries (the front app, the System UI's bars, a dialog, a PiP window). */
  packages: string[];
  shade: boolean;
  split: boolean;
  pip: boolean;
  signature: ScreenSignature;
}

const shortId = (id: string) => (id.includes(':id/') ? id.slice(id.indexOf(':id/') + 4) : id);
const area = (node: UiNode) => Math.max(0, node.bounds.right - node.bounds.left) * Math.max(0, node.bounds.bottom - node.bounds.top);

/** The top node of each window (a node whose parent carries another package, or none). */
function windowRoots(screen: UiScreen): UiNode[] {
  return screen.nodes.filter((node) => {
    if (!node.packageName) return false;
    const parent = node.parent >= 0 ? screen.nodes[node.parent] : undefined;
    return !parent || parent.packageName !== node.packageName;
  });
}

/** Reads a parsed screen. */
export function readScreen(screen: UiScreen): ScreenRead {
  const visible = screen.nodes.filter((node) => isOnScreen(screen, node));
  const packages = [...new Set(visible.map((node) => node.packageName).filter(Boolean))];
  const roots = windowRoots(screen).filter((node) => isOnScreen(screen, node));
  const apps = roots.filter((node) => node.packageName !== SYSTEM_UI);
  const screenArea = Math.max(1, screen.width * screen.height);
  const largest = [...apps].sort((a, b) => area(b) - area(a))[0];
  const front = largest?.packageName ?? (roots[0]?.packageName || screen.packageName || null);
  const systemIds = visible.filter((node) => node.packageName === SYSTEM_UI).map((node) => shortId(node.resourceId));
  const shade = systemIds.some((id) => SHADE_IDS.includes(id));
  // A split screen: a divider, or two app windows of other packages each covering a large part of the screen.
  // A system dialog over an app (a permission prompt's translucent activity fills the screen) is not a second app.
  const large = new Set(apps.filter((node) => area(node) >= screenArea * 0.25 && !isDialogPackage(node.packageName)).map((node) => node.packageName));
  const split = systemIds.some((id) => SPLIT_IDS.includes(id)) || large.size >= 2;
  // A picture-in-picture window: a small window of another app over the front one.
  const pip = apps.some((node) => node.packageName !== front && area(node) < screenArea * 0.25 && !isDialogPackage(node.packageName));
  return { front, packages, shade, split, pip, signature: signatureOf(screen, front) };
}

/** Dialogs the system draws over an app (a permission prompt, an installer's confirmation) are not PiP windows. */
function isDialogPackage(packageName: string): boolean {
  return [
    'android',
    'com.android.permissioncontroller',
    'com.google.android.permissioncontroller',
    'com.android.packageinstaller',
    'com.google.android.packageinstaller',
  ].includes(packageName);
}

/** The screen's signature: the front package and the sorted, distinct resource ids of its nodes on the screen. */
export function signatureOf(screen: UiScreen, front: string | null = readScreen(screen).front): ScreenSignature {
  const ids = new Set<string>();
  for (const node of screen.nodes) if (node.resourceId && (front === null || node.packageName === front) && isOnScreen(screen, node)) ids.add(node.resourceId);
  return { package: front, ids: [...ids].sort().slice(0, 1000) };
}

/** Whether two signatures name the same screen (see the header). */
export function sameScreen(a: ScreenSignature, b: ScreenSignature): boolean {
  if (a.package !== b.package) return false;
  if (a.ids.length === 0 && b.ids.length === 0) return true;
  const left = new Set(a.ids);
  const shared = b.ids.filter((id) => left.has(id)).length;
  const union = left.size + b.ids.length - shared;
  return union > 0 && shared / union >= SAME_SCREEN_OVERLAP;
}
