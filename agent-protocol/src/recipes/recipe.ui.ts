/**
 * The phone's screen as `uiautomator dump` describes it (a tree of `<node>` elements) or as the UiAutomator2
 * server's `/source` does (the same attributes on elements named by class, `<android.widget.TextView …>`): text,
 * resource-id, class, content-desc, state flags and bounds. Read by the one UI-tree reader (`phone.uitree.ts`, an XML
 * parser: Android quotes a value holding `"` with `'`), into a list in document order that selectors search, each
 * node knowing its parent.
 */
import { readUiTree } from '../phone/phone.uitree.ts';

export interface Bounds {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface UiNode {
  text: string;
  resourceId: string;
  className: string;
  packageName: string;
  desc: string;
  clickable: boolean;
  scrollable: boolean;
  selected: boolean;
  checked: boolean;
  enabled: boolean;
  focused: boolean;
  bounds: Bounds;
  /** Position among its parent's children. */
  index: number;
  depth: number;
  /** The parent's position in `UiScreen.nodes`, or -1 for a root. */
  parent: number;
}

export interface UiScreen {
  nodes: UiNode[];
  /** The app in front, from the first node that names one. */
  packageName: string | null;
  width: number;
  height: number;
}

function parseBounds(value: string): Bounds {
  const match = /\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]/.exec(value);
  if (!match) return { left: 0, top: 0, right: 0, bottom: 0 };
  return { left: Number(match[1]), top: Number(match[2]), right: Number(match[3]), bottom: Number(match[4]) };
}

/**
 * Parses `uiautomator dump` or UiAutomator2 `/source` XML. Throws when there is no hierarchy in it, and
 * `UiTreeError` when it is not XML Android would write (malformed, or carrying a DOCTYPE).
 */
export function parseUiXml(xml: string): UiScreen {
  if (!xml.includes('<hierarchy')) throw new Error('This is not a UI tree (no <hierarchy>).');
  const nodes = readUiTree(xml).map(({ name, attributes, depth, parent }): UiNode => {
    const flag = (key: string) => attributes[key] === 'true';
    return {
      text: attributes.text ?? '',
      resourceId: attributes['resource-id'] ?? '',
      className: attributes.class ?? (name === 'node' ? '' : name),
      packageName: attributes.package ?? '',
      desc: attributes['content-desc'] ?? '',
      clickable: flag('clickable'),
      scrollable: flag('scrollable'),
      selected: flag('selected'),
      checked: flag('checked'),
      enabled: attributes.enabled !== 'false',
      focused: flag('focused'),
      bounds: parseBounds(attributes.bounds ?? ''),
      index: Number(attributes.index ?? 0),
      depth,
      parent,
    };
  });
  const root = nodes[0]?.bounds;
  return {
    nodes,
    packageName: nodes.find((node) => node.packageName)?.packageName ?? null,
    width: root ? root.right - root.left : 0,
    height: root ? root.bottom - root.top : 0,
  };
}

/** Whether `node` is `container` or lies inside it. */
export function isWithin(screen: UiScreen, node: UiNode, container: (node: UiNode) => boolean): boolean {
  for (let at: UiNode | undefined = node; at; at = at.parent >= 0 ? screen.nodes[at.parent] : undefined) if (container(at)) return true;
  return false;
}

export function centerOf(bounds: Bounds): { x: number; y: number } {
  return { x: Math.round((bounds.left + bounds.right) / 2), y: Math.round((bounds.top + bounds.bottom) / 2) };
}

/** Whether a node can be seen and touched: it has area. */
export function isVisible(node: UiNode): boolean {
  return node.bounds.right > node.bounds.left && node.bounds.bottom > node.bounds.top;
}
