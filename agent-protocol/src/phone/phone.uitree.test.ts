/**
 * The one UI-tree reader against trees shaped as Android's serializer writes them (test/fixtures/EVIDENCE.md, "How
 * Android writes a tree"): both quotings, entities, references, and a hostile DOCTYPE refused.
 */
import { describe, expect, it } from 'vitest';
import { fixture } from '../../test/fake-android.ts';
import { serverSource } from '../../test/fake-uiautomator2.ts';
import { androidAttribute, readUiTree, UiTreeError } from './phone.uitree.ts';

const quoting = () => fixture('real/instagram/comments-quoting.xml');
const comments = (xml: string) =>
  readUiTree(xml)
    .filter((element) => element.attributes['resource-id']?.endsWith(':id/row_comment_textview_comment'))
    .map((element) => element.attributes.text);

/** What each comment of the fixture says, once its quoting and references are undone. */
const WORDS = [
  'maya_k She said "hi"',
  "alex.rivera It's where we met",
  'sam.o "Don\'t" was all I said',
  'jo.b Fish & chips <3 > pizza',
  'lee.m First line\nsecond line',
  'nina.p Sunset 🌅',
  'kai.r So good 😍',
];

describe('the UI-tree reader', () => {
  it('reads a dump in both quotings, with entities, a newline and emoji', () => {
    expect(comments(quoting())).toEqual(WORDS);
    const field = readUiTree(quoting()).find((element) => element.attributes.focused === 'true');
    expect(field?.attributes.text).toBe('Love this "golden hour" & the pier');
  });

  it('reads the same words from the UI server page source (elements named by class)', () => {
    const source = serverSource(quoting(), null);
    expect(source).toContain(`<android.widget.TextView index="0" text='maya_k She said "hi"'`);
    expect(comments(source)).toEqual(WORDS);
  });

  it('keeps the tree: depth and parent of each element, self-closing or not', () => {
    const elements = readUiTree(quoting());
    expect(elements[0]).toMatchObject({ name: 'node', depth: 0, parent: -1 });
    const list = elements.findIndex((element) => element.attributes['resource-id']?.endsWith(':id/sticky_header_list'));
    const rows = elements.filter((element) => element.parent === list);
    expect(rows).toHaveLength(WORDS.length);
    expect(rows.every((row) => row.depth === (elements[list]?.depth ?? 0) + 1)).toBe(true);
  });

  it('refuses a DOCTYPE with entities before expanding any, with a sentence saying so', () => {
    expect(() => readUiTree(fixture('ui-doctype-entity.xml'))).toThrow(UiTreeError);
    expect(() => readUiTree(fixture('ui-doctype-entity.xml'))).toThrow(
      'The screen was refused: its tree declares a DOCTYPE, which Android never writes (entities are not expanded).',
    );
  });

  it('refuses an entity XML does not define, malformed XML and another root', () => {
    expect(() => readUiTree('<hierarchy><node text="&e;" /></hierarchy>')).toThrow(/^The screen's tree is not well-formed XML \(.*undefined entity/);
    expect(() => readUiTree('<hierarchy><node text="a"></hierarchy>')).toThrow(UiTreeError);
    expect(() => readUiTree('<svg><node /></svg>')).toThrow('This is not a UI tree (its root is <svg>, not <hierarchy>).');
  });

  it('writes attributes as KXmlSerializer does, and reads back what it wrote', () => {
    expect(androidAttribute('text', 'She said "hi"')).toBe(` text='She said "hi"'`);
    expect(androidAttribute('text', "It's")).toBe(` text="It's"`);
    expect(androidAttribute('text', `"Don't"`)).toBe(` text='"Don&apos;t"'`);
    expect(androidAttribute('text', 'a & b <3 >\n\t\r')).toBe(' text="a &amp; b &lt;3 &gt;&#10;&#9;&#13;"');
    expect(androidAttribute('text', 'Sunset 🌅 ☀')).toBe(' text="Sunset &#127749; ☀"');
    for (const words of [...WORDS, '', `'"'"`, '&amp; literally']) {
      expect(readUiTree(`<hierarchy><node${androidAttribute('text', words)} /></hierarchy>`)[0]?.attributes.text).toBe(words);
    }
  });
});
