/**
 * The UI fixtures of real phones say where they come from and read as `uiautomator dump` does: every file is in
 * the index with its app, package, version, source, licence and case, names them in its header, and carries the
 * attribute set a real dump gives each node.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readUiTree } from '../../src/phone/phone.uitree.ts';
import { parseUiXml } from '../../src/recipes/recipe.ui.ts';
import { fixture, fixturesDir } from '../fake-android.ts';

interface IndexEntry {
  file: string;
  app: string;
  package: string;
  version: string;
  source: string;
  licence: string;
  kind: 'verbatim' | 'rebuilt';
  case: string;
  size: { width: number; height: number };
}

const index = JSON.parse(fixture('real/index.json')) as IndexEntry[];
const apps = ['instagram', 'tiktok-musically', 'tiktok-trill', 'settings', 'play-store'];
const files = apps.flatMap((app) =>
  readdirSync(`${fixturesDir}real/${app}`)
    .filter((name) => name.endsWith('.xml'))
    .map((name) => `${app}/${name}`),
);
/** The attributes `uiautomator dump` writes on every node, in its order. */
const DUMP_ATTRIBUTES = [
  'index',
  'text',
  'resource-id',
  'class',
  'package',
  'content-desc',
  'checkable',
  'checked',
  'clickable',
  'enabled',
  'focusable',
  'focused',
  'scrollable',
  'long-clickable',
  'password',
  'selected',
  'bounds',
];

describe('the UI fixtures of real phones', () => {
  it('are all in the index, and the index names nothing else', () => {
    expect(index.map((entry) => entry.file).sort()).toEqual([...files].sort());
    expect(new Set(index.map((entry) => entry.app))).toEqual(new Set(apps));
  });

  it.each(index.map((entry) => [entry.file, entry] as const))('%s names its source, version, licence and case, and reads as a dump', (file, entry) => {
    const xml = fixture(`real/${file}`);
    const header = /<!--([\s\S]*?)-->/.exec(xml)?.[1] ?? '';
    expect(header).toContain(`source: ${entry.source}`);
    expect(header).toContain(`licence: ${entry.licence}`);
    expect(header).toContain(`version ${entry.version}`);
    expect(header).toContain(`case: ${entry.case}`);
    // No source here grants a licence to copy its files: every tree is rebuilt from the facts and says so.
    expect(entry.kind).toBe('rebuilt');
    expect(header).toContain('rebuilt from published facts');
    const screen = parseUiXml(xml);
    expect(screen.nodes.length).toBeGreaterThan(3);
    expect(screen.nodes.every((node) => node.packageName !== '')).toBe(true);
    // Attribute names in the order written, whichever quote each value took.
    for (const element of readUiTree(xml)) expect(Object.keys(element.attributes)).toEqual(DUMP_ATTRIBUTES);
    const root = screen.nodes[0]?.bounds;
    expect(root && { width: root.right, height: root.bottom }).toEqual(entry.size);
    expect(screen.nodes.some((node) => node.packageName === entry.package)).toBe(true);
  });
});
