/** How a failed step reads to a person: its number in the recipe, the selector's fields, the app by name. */
import type { FailureEvidence } from '@farm/contracts';
import type { UiTree } from '@farm/agent-protocol/inspect';

type UiNode = UiTree['nodes'][number];

/** `3` → "Step 4", `3.1` → "Step 4.2" (paths are 0-based), `start` → "Pre-flight". */
export function stepName(path: string): string {
  if (path === 'start') return 'Pre-flight';
  const parts = path.split('.').map((part) => Number(part));
  if (parts.some((part) => !Number.isInteger(part) || part < 0)) return `Step ${path}`;
  return `Step ${parts.map((part) => part + 1).join('.')}`;
}

/** The selector's fields as "id = row_feed_button_like", in the order a person reads them; its source left out. */
export function selectorFields(selector: FailureEvidence['selector']): string[] {
  if (!selector) return [];
  return Object.entries(selector)
    .filter(([key]) => key !== 'evidence')
    .map(([key, value]) => `${key} = ${typeof value === 'string' ? value : JSON.stringify(value)}`);
}

const appNames: Record<string, string> = {
  'com.instagram.android': 'Instagram',
  'com.zhiliaoapp.musically': 'TikTok',
  'com.ss.android.ugc.trill': 'TikTok',
};

export function appName(pkg: string): string {
  return appNames[pkg] ?? pkg;
}

export function appText(app: FailureEvidence['app']): string {
  if (!app) return 'Not read before the failure';
  return app.version ? `${appName(app.package)} ${app.version}` : appName(app.package);
}

/** One line of the screen's elements: its id (after `:id/`), text and description, or its class when it has none. */
export function nodeText(node: UiNode): string {
  const id = node.resourceId.includes(':id/') ? node.resourceId.split(':id/')[1] : node.resourceId;
  const parts = [id ? `id ${id}` : '', node.text ? `"${node.text}"` : '', node.desc ? `desc "${node.desc}"` : ''].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : (node.className.split('.').pop() ?? node.className);
}

/** Where Re-record from here opens: the phone's Live tab with Record offered. */
export function rerecordHref(deviceId: string): string {
  return `/devices?device=${encodeURIComponent(deviceId)}&tab=live&record=1`;
}
