/**
 * `group.act` on one phone: read the screen once, check the rules against it (a refused app in front is named), check
 * it shows the leader's screen, resolve the action in this phone's own tree and check the element it lands on against
 * the same read, then act through the phone's live input path (scrcpy's
 * control socket while a session runs, else the persistent input shell: `PhoneControl.input`), scaled to this
 * phone's screen. A follower that misses acts on nothing.
 */
import type { LiveInput } from '../live.ts';
import { PhoneError } from '../phone/phone.device.ts';
import { findAll } from '../recipes/recipe.inspect.ts';
import { centerOf, parseUiXml, type UiScreen } from '../recipes/recipe.ui.ts';
import { groupResult, type GroupActMessage, type GroupActResult } from './group.messages.ts';
import { checkGroupRules } from './group.rules.ts';
import { readScreen, sameScreen } from './group.screen.ts';
import { selectorAt } from './group.selector.ts';

/** What acting needs of a phone; the agent's device backend gives it. */
export interface GroupPhone {
  /** The screen's UI tree as XML. */
  dumpUi(): Promise<string>;
  /** A person's input as live control applies it (points as shares of the screen). */
  input(input: LiveInput): Promise<void>;
  /** Opens an intent from the closed list (checked before): an action and its data. */
  startIntent(action: string, data?: string): Promise<void>;
  /** A small frame of the screen, where cheap; absent: results carry none. */
  frame?(): Promise<GroupActResult['frame']>;
}

/** A phone error that means the phone is gone, not that the action failed. */
function isOffline(error: unknown): boolean {
  return error instanceof PhoneError && (error.code === 'disconnected' || error.code === 'timeout');
}

async function withFrame(phone: GroupPhone, result: GroupActResult): Promise<GroupActResult> {
  const frame = await phone.frame?.().catch(() => undefined);
  return frame ? { ...result, frame } : result;
}

/** Carries out one group action on this phone and says how it fared. */
export async function actOnPhone(phone: GroupPhone, message: GroupActMessage): Promise<GroupActResult> {
  const { actionId, action, leader, lists } = message;
  let screen: UiScreen;
  try {
    screen = parseUiXml(await phone.dumpUi());
  } catch (error) {
    if (isOffline(error)) return groupResult(actionId, 'offline', { reason: error instanceof Error ? error.message : undefined });
    return groupResult(actionId, 'refused', {
      reason: `The screen could not be read, so nothing was done (${error instanceof Error ? error.message : String(error)}).`,
    });
  }
  const read = readScreen(screen);
  // The rules first, on this read: a phone with a refused app in front says so rather than "Different screen".
  const before = checkGroupRules(action, read, lists);
  if (!before.ok) return groupResult(actionId, 'refused', { reason: before.reason });
  // Home lands a phone on its launcher from any screen the rules let through: the one action not matched against the
  // leader's screen.
  const home = action.kind === 'key' && action.key === 'home';
  if (leader && !home && !sameScreen(leader, read.signature)) {
    return withFrame(phone, groupResult(actionId, 'different_screen', { reason: 'This phone does not show the leader’s screen.' }));
  }
  // Resolve a selector in this phone's own tree: exactly one node, or nothing is done. The leader's finger is first
  // named by its selector on this (the leader's) screen, then resolved the same way.
  let input: LiveInput | null = null;
  let target: string | null = null;
  let named: Pick<GroupActResult, 'selector' | 'screen'> = {};
  if (action.kind === 'finger') {
    const found = selectorAt(screen, action);
    if (!found)
      return groupResult(actionId, 'not_found', {
        offerPoint: true,
        screen: read.signature,
        reason: 'Nothing under the finger names itself: tap by point instead?',
      });
    named = { selector: found.selector, screen: read.signature };
  }
  switch (action.kind) {
    case 'finger':
    case 'selector': {
      const selector = action.kind === 'selector' ? action.selector : named.selector!;
      const found = findAll(screen, selector);
      if (found.length === 0) return withFrame(phone, groupResult(actionId, 'not_found', { reason: 'No element here matches the leader’s.' }));
      if (found.length > 1)
        return withFrame(phone, groupResult(actionId, 'matches', { matches: found.length, reason: 'More than one element here matches the leader’s.' }));
      const node = found[0]!;
      target = node.packageName || null;
      const at = centerOf(node.bounds);
      const x = Math.min(1, Math.max(0, at.x / screen.width));
      const y = Math.min(1, Math.max(0, at.y / screen.height));
      input = action.press === 'long_press' ? { kind: 'long_press', x, y, durationMs: 800 } : { kind: 'tap', x, y };
      break;
    }
    case 'point':
      input = action.press === 'long_press' ? { kind: 'long_press', x: action.x, y: action.y, durationMs: 800 } : { kind: 'tap', x: action.x, y: action.y };
      break;
    case 'swipe':
      input = { kind: 'swipe', from: action.from, to: action.to, durationMs: action.durationMs };
      break;
    case 'scroll':
      input = { kind: 'scroll', x: action.x, y: action.y, dy: action.dy };
      break;
    case 'key':
      input = { kind: 'key', key: action.key };
      break;
    case 'text':
      input = { kind: 'text', text: action.text };
      break;
    case 'intent':
      break;
  }
  // Again with the element the action lands on, from the same read.
  const verdict = target ? checkGroupRules(action, read, lists, target) : before;
  if (!verdict.ok) return groupResult(actionId, 'refused', { reason: verdict.reason });
  try {
    if (action.kind === 'intent') await phone.startIntent(action.action, action.data);
    else if (input) await phone.input(input);
  } catch (error) {
    if (isOffline(error)) return groupResult(actionId, 'offline', { reason: error instanceof Error ? error.message : undefined });
    return groupResult(actionId, 'refused', { reason: `The phone could not do it: ${error instanceof Error ? error.message : String(error)}` });
  }
  // The screen it acted on goes with the result: the leader's, for its followers to match.
  return groupResult(actionId, 'done', { screen: read.signature, ...(action.kind === 'point' ? { byPoint: true } : named) });
}
