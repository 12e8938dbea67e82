/**
 * The simulated phone's screen: a tree of nodes shaped like Android views, written out as `uiautomator dump`
 * XML (what recipes read) and drawn as an SVG for screenshots (what people watching a demo see). The XML is written
 * and read as Android's serializer writes it (`phone.uitree.ts`): a value holding `"` in single quotes.
 */
import { androidAttribute, readUiTree } from '../phone/phone.uitree.ts';

export interface SimNode {
  cls: string;
  /** resource-id; written as `<package>:id/<id>` unless it already has a package. */
  id?: string;
  text?: string;
  desc?: string;
  bounds: [number, number, number, number];
  clickable?: boolean;
  scrollable?: boolean;
  selected?: boolean;
  focused?: boolean;
  checkable?: boolean;
  checked?: boolean;
  focusable?: boolean;
  longClickable?: boolean;
  enabled?: boolean;
  password?: boolean;
  /** The package that drew it, when not the app's (a system dialog over the app). */
  pkg?: string;
  children?: SimNode[];
  /** What a tap on it does (not written out). */
  onTap?: () => void;
  /** How it is drawn: a filled block (media), a button, a field, a bar, an app icon with its name, a wallpaper, or plain text. */
  look?: 'media' | 'button' | 'field' | 'bar' | 'icon' | 'wallpaper';
  /** Fill colour of media blocks and icons. */
  colour?: string;
  /** Drawn on screenshots only, never in the dump (a photo the real tree describes by no node of its own). */
  drawOnly?: boolean;
}

/** Text and attributes of the SVG drawing (not Android's serializer: the drawing is the simulator's own). */
const escapeXml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

function nodeXml(node: SimNode, packageName: string, index: number): string {
  const flag = (value: boolean | undefined) => (value ? 'true' : 'false');
  const pkg = node.pkg ?? packageName;
  const id = node.id ? (node.id.includes(':id/') ? node.id : `${pkg}:id/${node.id}`) : '';
  const [l, t, r, b] = node.bounds;
  // Attribute by attribute as AOSP's AccessibilityNodeInfoDumper writes them, each quoted as its serializer does.
  const attributes: [string, string][] = [
    ['index', String(index)],
    ['text', node.text ?? ''],
    ['resource-id', id],
    ['class', node.cls],
    ['package', pkg],
    ['content-desc', node.desc ?? ''],
    ['checkable', flag(node.checkable)],
    ['checked', flag(node.checked)],
    ['clickable', flag(node.clickable)],
    ['enabled', flag(node.enabled ?? true)],
    ['focusable', flag(node.focusable ?? (node.clickable || node.focused))],
    ['focused', flag(node.focused)],
    ['scrollable', flag(node.scrollable)],
    ['long-clickable', flag(node.longClickable)],
    ['password', flag(node.password)],
    ['selected', flag(node.selected)],
    ['bounds', `[${l},${t}][${r},${b}]`],
  ];
  const open = `<node${attributes.map(([name, value]) => androidAttribute(name, value)).join('')}`;
  const children = (node.children ?? []).filter((child) => !child.drawOnly);
  if (children.length === 0) return `${open} />`;
  return `${open}>${children.map((child, i) => nodeXml(child, packageName, i)).join('')}</node>`;
}

/** The screen as `uiautomator dump` writes it (one line). */
export function toUiXml(root: SimNode, packageName: string): string {
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy${androidAttribute('rotation', '0')}>${nodeXml(root, packageName, 0)}</hierarchy>`;
}

/**
 * Reads a `uiautomator dump` tree (a fixture of a real phone) into nodes the simulator can serve, draw and hit, with
 * every bounds scaled from the fixture's screen to the simulated one. Comments (the fixture's source note) are skipped.
 */
export function fromUiXml(xml: string, size: { width: number; height: number }): SimNode {
  const top: SimNode = { cls: 'hierarchy', bounds: [0, 0, size.width, size.height], children: [] };
  // Each element's node by its position in the reader's list, so a child finds its parent.
  const built: SimNode[] = [];
  let scale: { x: number; y: number } | null = null;
  for (const { attributes: a, parent } of readUiTree(xml)) {
    const m = /\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]/.exec(a.bounds ?? '');
    const raw = m ? [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] : [0, 0, 0, 0];
    // The first node spans the fixture's screen: its size sets the scale.
    scale ??= { x: size.width / Math.max(1, raw[2] as number), y: size.height / Math.max(1, raw[3] as number) };
    const flag = (name: string) => a[name] === 'true';
    const node: SimNode = {
      cls: a.class ?? 'android.view.View',
      bounds: [
        Math.round((raw[0] as number) * scale.x),
        Math.round((raw[1] as number) * scale.y),
        Math.round((raw[2] as number) * scale.x),
        Math.round((raw[3] as number) * scale.y),
      ],
      ...(a['resource-id'] ? { id: a['resource-id'] } : {}),
      ...(a.text ? { text: a.text } : {}),
      ...(a['content-desc'] ? { desc: a['content-desc'] } : {}),
      ...(a.package ? { pkg: a.package } : {}),
      clickable: flag('clickable'),
      scrollable: flag('scrollable'),
      selected: flag('selected'),
      focused: flag('focused'),
      checkable: flag('checkable'),
      checked: flag('checked'),
      focusable: flag('focusable'),
      longClickable: flag('long-clickable'),
      enabled: a.enabled !== 'false',
      password: flag('password'),
      children: [],
    };
    built.push(node);
    (parent >= 0 ? built[parent] : top)?.children?.push(node);
  }
  const first = top.children?.[0];
  if (!first) throw new Error('The fixture has no <node>.');
  return first;
}

/**
 * The node under a point that takes a touch, then what holds it. Of the views under the finger that react (clickable
 * or wired), the smallest wins: the Like button over the full-screen video view, a dialog's OK over its dimmer
 * (equal sizes: the one drawn later).
 */
export function nodesAt(root: SimNode, x: number, y: number): SimNode[] {
  let best: { path: SimNode[]; area: number } | null = null;
  const visit = (node: SimNode, ancestors: SimNode[]) => {
    const [l, t, r, b] = node.bounds;
    const inside = x >= l && x < r && y >= t && y < b;
    if (inside && (node.clickable || node.onTap)) {
      const area = (r - l) * (b - t);
      if (!best || area <= best.area) best = { path: [node, ...ancestors], area };
    }
    for (const child of node.children ?? []) visit(child, [node, ...ancestors]);
  };
  visit(root, []);
  return (best as { path: SimNode[] } | null)?.path ?? [];
}

/** The topmost clickable node under a point (later siblings are drawn over earlier ones). */
export function hitTest(root: SimNode, x: number, y: number): SimNode | null {
  const [l, t, r, b] = root.bounds;
  if (x < l || x >= r || y < t || y >= b) return null;
  for (const child of [...(root.children ?? [])].reverse()) {
    const hit = hitTest(child, x, y);
    if (hit) return hit;
  }
  return root.clickable ? root : null;
}

export function walk(root: SimNode, visit: (node: SimNode) => void): void {
  visit(root);
  for (const child of root.children ?? []) walk(child, visit);
}

/** Draws the screen: status bar (time, battery), the views, and a caption line saying what runs. */
export function toSvg(
  root: SimNode,
  options: { width: number; height: number; time: string; battery: number; charging: boolean; title: string; caption?: string; dark?: boolean },
): string {
  const { width, height } = options;
  const fg = options.dark ? '#f5f5f5' : '#111111';
  const bg = options.dark ? '#000000' : '#ffffff';
  const parts: string[] = [
    `<defs><linearGradient id="wallpaper" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1d3b6e"/><stop offset="0.55" stop-color="#3f2b72"/><stop offset="1" stop-color="#0f5b5b"/></linearGradient></defs>`,
    `<rect width="${width}" height="${height}" fill="${bg}"/>`,
  ];
  // Backgrounds first (wallpaper, then photos and videos), then everything over them: a real tree may list the
  // full-screen video after the buttons that float over it.
  const layer = (node: SimNode) => (node.look === 'wallpaper' ? 0 : node.look === 'media' ? 1 : 2);
  const ordered: SimNode[] = [];
  walk(root, (node) => ordered.push(node));
  ordered.sort((a, b) => layer(a) - layer(b));
  for (const node of ordered) {
    const [l, t, r, b] = node.bounds;
    const w = r - l;
    const h = b - t;
    if (w <= 0 || h <= 0) continue;
    if (node.look === 'wallpaper') parts.push(`<rect x="${l}" y="${t}" width="${w}" height="${h}" fill="url(#wallpaper)"/>`);
    if (node.look === 'icon') {
      // A rounded square with the app's initial, its name underneath.
      const side = Math.min(w - 40, h - 90);
      const x = l + (w - side) / 2;
      parts.push(
        `<rect x="${x}" y="${t}" width="${side}" height="${side}" rx="${side / 4}" fill="${node.colour ?? '#888'}"/>`,
        `<text x="${l + w / 2}" y="${t + side * 0.68}" font-family="sans-serif" font-size="${Math.floor(side * 0.5)}" font-weight="bold" fill="#ffffff" text-anchor="middle">${escapeXml((node.text ?? '?').slice(0, 1))}</text>`,
        `<text x="${l + w / 2}" y="${t + side + 60}" font-family="sans-serif" font-size="${Math.max(16, Math.min(40, Math.floor((w - 8) / ((node.text ?? '').length * 0.56))))}" fill="#ffffff" text-anchor="middle">${escapeXml(node.text ?? '')}</text>`,
      );
      continue;
    }
    if (node.look === 'media') parts.push(`<rect x="${l}" y="${t}" width="${w}" height="${h}" fill="${node.colour ?? '#7a8fa6'}"/>`);
    if (node.look === 'bar') parts.push(`<rect x="${l}" y="${t}" width="${w}" height="${h}" fill="${options.dark ? '#111' : '#f2f2f2'}"/>`);
    if (node.look === 'button')
      parts.push(`<rect x="${l + 6}" y="${t + 6}" width="${w - 12}" height="${h - 12}" rx="18" fill="${node.selected ? '#e1306c' : '#0095f6'}"/>`);
    // A switch or a radio button shows whether it is checked: a pill or a ring at the row's end, filled when on.
    if (node.checkable) {
      const r = Math.max(8, Math.min(h, 80) / 2 - 10);
      const cy = t + h / 2;
      const on = node.checked ? '#1a73e8' : 'none';
      if (/Switch$/.test(node.cls))
        parts.push(
          `<rect x="${l + w / 2 - r * 1.6}" y="${cy - r}" width="${r * 3.2}" height="${r * 2}" rx="${r}" fill="${node.checked ? '#1a73e8' : '#bbb'}"/>`,
          `<circle cx="${node.checked ? l + w / 2 + r * 0.6 : l + w / 2 - r * 0.6}" cy="${cy}" r="${r * 0.8}" fill="#fff"/>`,
        );
      else
        parts.push(
          `<circle cx="${node.bounds[2] - r - 24}" cy="${cy}" r="${r}" fill="none" stroke="#1a73e8" stroke-width="4"/>`,
          `<circle cx="${node.bounds[2] - r - 24}" cy="${cy}" r="${r * 0.55}" fill="${on}"/>`,
        );
    }
    if (node.look === 'field')
      parts.push(`<rect x="${l + 4}" y="${t + 4}" width="${w - 8}" height="${h - 8}" rx="14" fill="none" stroke="#999" stroke-width="3"/>`);
    // Icon buttons (like, comment, tabs' icons) as rings, filled when selected (a liked heart).
    if (node.clickable && !node.text && !node.look && w <= 160 && h <= 160) {
      parts.push(
        `<circle cx="${l + w / 2}" cy="${t + h / 2}" r="${Math.min(w, h) / 2 - 6}" fill="${node.selected ? '#e1306c' : 'none'}" stroke="${options.dark ? '#fff' : '#333'}" stroke-width="4"/>`,
      );
    }
    const label = node.text || (node.clickable && node.look !== 'media' ? node.desc : '');
    if (label) {
      const shown = label.length > 60 ? `${label.slice(0, 57)}…` : label;
      // Fits the label in its box: narrow buttons (tab bars, icon rows) get smaller, centred text.
      // A radio button's words stop short of its ring at the row's end.
      const room = node.checkable ? w - Math.min(h, 80) - 48 : w;
      const size = Math.max(16, Math.min(44, Math.floor(h * 0.45), Math.floor((room - 16) / (shown.length * 0.56))));
      const colour = node.look === 'button' || node.look === 'media' ? '#ffffff' : node.selected ? '#e1306c' : fg;
      const centred = node.clickable && w < 400;
      const x = centred ? l + w / 2 : l + Math.min(24, w / 2);
      parts.push(
        `<text x="${x}" y="${t + h / 2 + size / 3}" font-family="sans-serif" font-size="${size}" fill="${colour}"${centred ? ' text-anchor="middle"' : ''}>${escapeXml(shown)}</text>`,
      );
    }
  }
  const level = Math.max(0, Math.min(100, options.battery));
  parts.push(
    `<rect width="${width}" height="110" fill="${options.dark ? '#000' : '#fafafa'}"/>`,
    `<text x="48" y="74" font-family="sans-serif" font-size="42" fill="${fg}">${escapeXml(options.time)}</text>`,
    `<text x="${width / 2}" y="74" font-family="sans-serif" font-size="34" fill="#888" text-anchor="middle">${escapeXml(options.title)}</text>`,
    `<rect x="${width - 170}" y="40" width="90" height="42" rx="8" fill="none" stroke="${fg}" stroke-width="4"/>`,
    `<rect x="${width - 164}" y="46" width="${Math.round(78 * (level / 100))}" height="30" fill="${level <= 15 ? '#d33' : options.charging ? '#3a3' : fg}"/>`,
    `<text x="${width - 60}" y="74" font-family="sans-serif" font-size="30" fill="${fg}">${level}</text>`,
  );
  if (options.caption) {
    parts.push(
      `<rect x="0" y="${height - 120}" width="${width}" height="120" fill="#000" fill-opacity="0.75"/>`,
      `<text x="${width / 2}" y="${height - 45}" font-family="sans-serif" font-size="40" fill="#fff" text-anchor="middle">${escapeXml(options.caption.slice(0, 60))}</text>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
}
