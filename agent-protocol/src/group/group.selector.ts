/**
 * The leader's finger as a selector: the node under it and the selector that names that element itself, unique in
 * the leader's tree — Record's choice (`recordableSelector`: id, id with text, description or text, never an index
 * or a class alone). The node is the smallest clickable one containing the point; when that one has no such
 * selector (a Settings row is often a clickable layout with no id or text of its own), the smallest node under the
 * point is tried, then the nodes inside the clickable one in document order (the row's title), whose centre lies
 * inside the same row, so a follower's tap on it lands on its own row. Null when none has one: the person is offered
 * a tap by point.
 */
import { isOnScreen, recordableSelector } from '../recipes/recipe.inspect.ts';
import { isWithin, type UiScreen } from '../recipes/recipe.ui.ts';
import type { GroupSelector } from './group.messages.ts';

export interface LeaderTarget {
  selector: GroupSelector;
  /** How it names the element ("id", "id + text", "description", "text"). */
  kind: string;
  /** The node's position in the leader's tree. */
  node: number;
}

/** The smallest node under a point (pixels) that `accept` takes, or null; equal areas: the later (drawn on top). */
function smallestAt(screen: UiScreen, x: number, y: number, accept: (at: number) => boolean): number | null {
  let best: number | null = null;
  let bestArea = Number.POSITIVE_INFINITY;
  screen.nodes.forEach((node, at) => {
    const { left, top, right, bottom } = node.bounds;
    if (x < left || x >= right || y < top || y >= bottom || !isOnScreen(screen, node) || !accept(at)) return;
    const area = (right - left) * (bottom - top);
    if (area <= bestArea) {
      best = at;
      bestArea = area;
    }
  });
  return best;
}

/** The selector for the element under a point given as a share of the leader's screen, or null. */
export function selectorAt(screen: UiScreen, point: { x: number; y: number }): LeaderTarget | null {
  const x = point.x * screen.width;
  const y = point.y * screen.height;
  const clickable = smallestAt(screen, x, y, (at) => screen.nodes[at]?.clickable === true);
  const smallest = smallestAt(screen, x, y, () => true);
  const row = clickable === null ? undefined : screen.nodes[clickable];
  const inside = row
    ? screen.nodes.flatMap((node, at) => (at !== clickable && isWithin(screen, node, (parent) => parent === row) && isOnScreen(screen, node) ? [at] : []))
    : [];
  for (const at of [clickable, smallest, ...inside]) {
    if (at === null) continue;
    const best = recordableSelector(screen, at);
    if (!best) continue;
    const { id, text, desc } = best.selector;
    const selector: GroupSelector = {
      ...(id !== undefined ? { id } : {}),
      ...(text !== undefined ? { text } : {}),
      ...(desc !== undefined ? { desc } : {}),
    };
    return { selector, kind: best.kind, node: at };
  }
  return null;
}
