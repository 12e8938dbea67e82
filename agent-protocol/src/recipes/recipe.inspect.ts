/**
 * Inspect: a phone's screen as the recipe studio sees it — the UI tree with the frame it belongs to (`UiCapture`, the
 * shape a phone sends and the console stores), which node lies under a point, and the selectors that find exactly
 * that node, each marked unique or not on this screen. The matching rule is the recipe runner's (`nodeMatches`), so
 * what the studio calls unique is what a run finds.
 */
import { z } from 'zod';
import type { Selector } from './recipe.schema.ts';

export type { Selector };

import { selector as selectorSchema } from './recipe.schema.ts';

/** A recipe's selector, as Inspect offers and checks it. */
export { selectorSchema };
import { patternFinds } from './recipe.pattern.ts';
import { centerOf, isVisible, type UiNode, type UiScreen } from './recipe.ui.ts';

/** A capture holds at most this many nodes, this deep, with strings this long; a phone sending more is refused. */
export const CAPTURE_LIMITS = { nodes: 3000, depth: 150, text: 1000, frameBytes: 3 * 1024 * 1024 } as const;

const text = z.string().max(CAPTURE_LIMITS.text);
const coordinate = z.number().int().min(-100_000).max(100_000);

export const uiNodeSchema = z.object({
  text,
  resourceId: text,
  className: text,
  packageName: text,
  desc: text,
  clickable: z.boolean(),
  scrollable: z.boolean(),
  selected: z.boolean(),
  checked: z.boolean(),
  enabled: z.boolean(),
  focused: z.boolean(),
  bounds: z.object({ left: coordinate, top: coordinate, right: coordinate, bottom: coordinate }),
  index: z.number().int().min(0).max(100_000),
  depth: z.number().int().min(0).max(CAPTURE_LIMITS.depth),
  parent: z.number().int().min(-1),
});

/** The UI tree of one screen: nodes in document order, each knowing its parent (a position before its own). */
export const uiTreeSchema = z
  .object({
    nodes: z.array(uiNodeSchema).min(1).max(CAPTURE_LIMITS.nodes),
    packageName: z.string().max(200).nullable(),
    width: z.number().int().min(1).max(20_000),
    height: z.number().int().min(1).max(20_000),
  })
  .refine((tree) => tree.nodes.every((node, at) => node.parent < at), { message: 'Each node’s parent must come before it', path: ['nodes'] });
export type UiTree = z.infer<typeof uiTreeSchema>;

/** What the app in front is, as the phone read it with the tree. */
export const captureApp = z.object({
  package: z.string().max(200).nullable(),
  version: z.string().max(100).nullable(),
  locale: z.string().max(35).nullable(),
});

/** A capture as the phone sends it: the tree, the frame (JPEG or PNG) taken right after it, and the app. */
export const uiCaptureSchema = z.object({
  tree: uiTreeSchema,
  frame: z.object({
    mime: z.enum(['image/jpeg', 'image/png']),
    data: z.custom<Uint8Array>((value) => value instanceof Uint8Array && value.byteLength > 0 && value.byteLength <= CAPTURE_LIMITS.frameBytes, {
      message: `must be 1 to ${CAPTURE_LIMITS.frameBytes} bytes of image`,
    }),
    width: z.number().int().min(1).max(8192),
    height: z.number().int().min(1).max(8192),
  }),
  app: captureApp,
  capturedAt: z.string().max(40),
});
export type UiCapture = z.infer<typeof uiCaptureSchema>;

/** Cuts a parsed screen to the capture limits (deepest nodes and the tail go first) and its strings to their length. */
export function captureTree(screen: UiScreen): UiTree {
  return captureTreeIndexed(screen).tree;
}

/** `captureTree`, with where each kept node of the screen went (its position in `screen.nodes` → in `tree.nodes`). */
export function captureTreeIndexed(screen: UiScreen): { tree: UiTree; index: ReadonlyMap<number, number> } {
  const kept: UiNode[] = [];
  const newIndex = new Map<number, number>();
  screen.nodes.forEach((node, at) => {
    if (kept.length >= CAPTURE_LIMITS.nodes || node.depth > CAPTURE_LIMITS.depth) return;
    if (node.parent >= 0 && !newIndex.has(node.parent)) return;
    newIndex.set(at, kept.length);
    const cut = (value: string) => value.slice(0, CAPTURE_LIMITS.text);
    kept.push({
      ...node,
      text: cut(node.text),
      resourceId: cut(node.resourceId),
      className: cut(node.className),
      packageName: cut(node.packageName),
      desc: cut(node.desc),
      parent: node.parent >= 0 ? (newIndex.get(node.parent) as number) : -1,
    });
  });
  return {
    tree: { nodes: kept, packageName: screen.packageName, width: Math.max(1, screen.width), height: Math.max(1, screen.height) },
    index: newIndex,
  };
}

type MatchSelector = Omit<Selector, 'index' | 'evidence'> & { checked?: boolean | undefined };

/** Whether a node matches a selector (its index aside), with `fill` applied to the selector's texts first. */
export function nodeMatches(node: UiNode, selector: MatchSelector, fill: (value: string) => string = (value) => value): boolean {
  if (selector.id !== undefined && node.resourceId !== selector.id && !node.resourceId.endsWith(`:id/${selector.id}`)) return false;
  if (selector.text !== undefined && node.text.trim() !== fill(selector.text).trim()) return false;
  if (selector.textContains !== undefined && !node.text.toLowerCase().includes(fill(selector.textContains).toLowerCase())) return false;
  if (selector.desc !== undefined && node.desc.trim() !== fill(selector.desc).trim()) return false;
  if (selector.descContains !== undefined && !node.desc.toLowerCase().includes(fill(selector.descContains).toLowerCase())) return false;
  // RE2, never RegExp: a pattern from a recipe or a request must not backtrack (recipe.pattern.ts).
  if (selector.textMatches !== undefined && !patternFinds(selector.textMatches, node.text)) return false;
  if (selector.descMatches !== undefined && !patternFinds(selector.descMatches, node.desc)) return false;
  if (selector.class !== undefined && node.className !== selector.class && !node.className.endsWith(`.${selector.class}`)) return false;
  if (selector.selected !== undefined && node.selected !== selector.selected) return false;
  if (selector.checked !== undefined && node.checked !== selector.checked) return false;
  return true;
}

/**
 * Whether a node can be acted on: it has area and its centre lies on the screen (TikTok preloads the next video below
 * the screen with a second set of the same buttons). A toast is read, never touched: it may have no bounds.
 */
export function isOnScreen(screen: Pick<UiScreen, 'width' | 'height'>, node: UiNode): boolean {
  if (/(^|\.)Toast$/.test(node.className)) return true;
  if (!isVisible(node)) return false;
  if (screen.width <= 0 || screen.height <= 0) return true;
  const { x, y } = centerOf(node.bounds);
  return x >= 0 && y >= 0 && x < screen.width && y < screen.height;
}

/** The nodes on screen a selector finds, in order (its `index` picks among them when a run acts). */
export function findAll(screen: Pick<UiScreen, 'nodes' | 'width' | 'height'>, selector: MatchSelector): UiNode[] {
  return screen.nodes.filter((node) => isOnScreen(screen, node) && nodeMatches(node, selector));
}

/** The smallest node on screen under a point (in the screen's pixels), or null. */
export function nodeAt(screen: Pick<UiScreen, 'nodes' | 'width' | 'height'>, x: number, y: number): number | null {
  let best: number | null = null;
  let bestArea = Number.POSITIVE_INFINITY;
  screen.nodes.forEach((node, at) => {
    const { left, top, right, bottom } = node.bounds;
    if (x < left || x >= right || y < top || y >= bottom || !isOnScreen(screen, node)) return;
    const area = (right - left) * (bottom - top);
    // Equal areas: the deeper one (later in document order) is what the finger meets.
    if (area <= bestArea) {
      best = at;
      bestArea = area;
    }
  });
  return best;
}

export interface SelectorCandidate {
  /** How the studio names it: "id", "id + text", "description", "text", "class + index". */
  kind: 'id' | 'id + text' | 'description' | 'text' | 'class + index' | 'id + index';
  selector: Selector;
  /** Nodes on this screen it finds. */
  matches: number;
  /** It finds exactly this node (with `index`, the node it picks). */
  unique: boolean;
}

/**
 * The selectors that find a node, most stable first: its id; id and text; its description; its text; and, only when
 * none of those is unique, an index among the nodes of its id or class. Each says how many nodes it finds here.
 */
export function selectorsFor(screen: Pick<UiScreen, 'nodes' | 'width' | 'height'>, nodeIndex: number): SelectorCandidate[] {
  const node = screen.nodes[nodeIndex];
  if (!node) return [];
  const shortId = node.resourceId.includes(':id/') ? node.resourceId.slice(node.resourceId.indexOf(':id/') + 4) : node.resourceId;
  const candidates: { kind: SelectorCandidate['kind']; selector: Selector }[] = [];
  if (shortId) candidates.push({ kind: 'id', selector: { id: shortId } });
  if (shortId && node.text.trim()) candidates.push({ kind: 'id + text', selector: { id: shortId, text: node.text.trim() } });
  if (node.desc.trim()) candidates.push({ kind: 'description', selector: { desc: node.desc.trim() } });
  if (node.text.trim()) candidates.push({ kind: 'text', selector: { text: node.text.trim() } });
  const rated: SelectorCandidate[] = candidates.map(({ kind, selector }) => {
    const found = findAll(screen, selector);
    return { kind, selector, matches: found.length, unique: found.length === 1 && found[0] === node };
  });
  if (!rated.some((candidate) => candidate.unique)) {
    // A position among the nodes of the same id (or class): stable only while the screen keeps its order.
    const base: Selector = shortId ? { id: shortId } : { class: node.className.split('.').at(-1) || node.className };
    const found = findAll(screen, base);
    const position = found.indexOf(node);
    if (position >= 0)
      rated.push({ kind: shortId ? 'id + index' : 'class + index', selector: { ...base, index: position }, matches: found.length, unique: true });
  }
  return rated;
}

/** How a selector fares on a saved screen: how many nodes it finds, and the one a run would act on. */
export function checkSelector(screen: Pick<UiScreen, 'nodes' | 'width' | 'height'>, selector: Selector): { matches: number; finds: boolean } {
  return selectorVerdict(findAll(screen, selector), selector);
}

/** `checkSelector`'s verdict from the nodes the selector found (for a caller that walks the nodes in its own slices). */
export function selectorVerdict(found: readonly unknown[], selector: Pick<Selector, 'index'>): { matches: number; finds: boolean } {
  const pick = selector.index === -1 ? found.at(-1) : found[selector.index ?? 0];
  return { matches: found.length, finds: pick !== undefined && (selector.index !== undefined || found.length === 1) };
}

/**
 * Record: what a phone answers for a tap or long press made while recording — the element under the finger, read
 * just before the input went in, as the most stable unique selector that finds it (its id, id and text, description
 * or text: never an index or a class alone, which shift with the screen's order); and the point as a share of the
 * screen, which becomes the step only where no such selector is unique: a positional step, acted on only while the
 * screen cannot be read.
 */
export const recordedTarget = z.object({
  selector: selectorSchema.optional(),
  kind: z.string().max(40).optional(),
  point: z.object({ x: z.number().min(0).max(1), y: z.number().min(0).max(1) }),
  package: z.string().max(200).nullable(),
  /** The app's version and the phone's language, as read with it (a draft records what it was written for). */
  appVersion: z.string().max(100).nullable().optional(),
  locale: z.string().max(35).nullable().optional(),
  /** How the element is named for the person ("ImageView: row_feed_button_like"). */
  label: z.string().max(200).optional(),
});
export type RecordedTarget = z.infer<typeof recordedTarget>;

/** The selectors Record makes a step of: those that name the node itself, never its place among others. */
const RECORDABLE: ReadonlySet<SelectorCandidate['kind']> = new Set(['id', 'id + text', 'description', 'text']);

/** The element under a point (a share of the screen) on a read screen, as a recorded target. */
export function recordTarget(screen: Pick<UiScreen, 'nodes' | 'width' | 'height' | 'packageName'>, point: { x: number; y: number }): RecordedTarget {
  const at = nodeAt(screen, point.x * screen.width, point.y * screen.height);
  const base = { point: { x: Math.round(point.x * 10_000) / 10_000, y: Math.round(point.y * 10_000) / 10_000 }, package: screen.packageName };
  if (at === null) return base;
  const best = recordableSelector(screen, at);
  const node = screen.nodes[at] as UiNode;
  const label = `${node.className.split('.').at(-1) || 'node'}: ${node.resourceId.split(':id/').at(-1) || node.desc || node.text || 'no name'}`.slice(0, 200);
  return best ? { ...base, selector: best.selector, kind: best.kind, label } : { ...base, label };
}

/**
 * The most stable unique selector that names a node itself (its id, id and text, description or text), as Record
 * makes a step of it; undefined when none is unique. A position among like nodes is never offered.
 */
export function recordableSelector(screen: Pick<UiScreen, 'nodes' | 'width' | 'height'>, nodeIndex: number): SelectorCandidate | undefined {
  return selectorsFor(screen, nodeIndex).find((candidate) => candidate.unique && RECORDABLE.has(candidate.kind));
}
