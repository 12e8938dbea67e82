import { describe, expect, it } from 'vitest';
import { lineOf, locateJson } from './recipe.lines';

const doc = {
  id: 'instagram.like',
  version: 2,
  app: { package: 'com.instagram.android' },
  steps: [{ do: 'open_app' }, { do: 'tap', target: { id: 'like', text: 'Like' } }, { do: 'pause', for: '2s' }],
};
const text = JSON.stringify(doc, null, 2);
const lineWith = (fragment: string) => text.split('\n').findIndex((line) => line.includes(fragment)) + 1;

describe('locateJson', () => {
  it('reads the same value as JSON.parse, keys in order', () => {
    const located = locateJson(text);
    expect(located.ok && located.value).toEqual(doc);
    expect(located.ok && Object.keys(located.value as object)).toEqual(['id', 'version', 'app', 'steps']);
  });

  it('answers the line of each key and of array items', () => {
    const located = locateJson(text);
    if (!located.ok) throw new Error('not read');
    expect(lineOf(located.lines, ['version'])).toBe(lineWith('"version"'));
    expect(lineOf(located.lines, ['app', 'package'])).toBe(lineWith('"package"'));
    expect(lineOf(located.lines, ['steps', 1, 'target', 'text'])).toBe(lineWith('"text": "Like"'));
    expect(lineOf(located.lines, ['steps', 2, 'for'])).toBe(lineWith('"for"'));
    expect(lineOf(located.lines, ['steps', 2])).toBe(lineWith('"for"') - 2);
  });

  it('falls back to the nearest enclosing value for a key that is missing', () => {
    const located = locateJson(text);
    if (!located.ok) throw new Error('not read');
    // The first step has no target: its own line, where its object opens.
    expect(lineOf(located.lines, ['steps', 0, 'target'])).toBe(lineWith('"do": "open_app"') - 1);
    expect(lineOf(located.lines, ['nothing', 'here'])).toBe(1);
  });

  it('reads compact JSON on one line, escapes and numbers', () => {
    const located = locateJson('{"a":"x\\"y","b":[1,-2.5e3,true,null],"c":{}}');
    expect(located.ok && located.value).toEqual({ a: 'x"y', b: [1, -2500, true, null], c: {} });
  });

  it('names the line of a syntax error', () => {
    const broken = text.replace('"version": 2,', '"version": 2');
    const located = locateJson(broken);
    expect(located.ok).toBe(false);
    if (located.ok) return;
    expect(located.error.line).toBe(lineWith('"app"'));
    expect(located.error.message).toMatch(/A "," or "}" is expected/);
  });

  it('names unclosed text and a document cut short', () => {
    const unclosed = locateJson('{\n  "id": "abc,\n  "version": 1\n}');
    expect(!unclosed.ok && unclosed.error.line).toBe(2);
    const cut = locateJson('{\n  "steps": [\n');
    expect(!cut.ok && cut.error).toEqual({ line: 3, message: 'Not JSON here: the text ends too early' });
    const trailing = locateJson('{}\n{}');
    expect(!trailing.ok && trailing.error.line).toBe(2);
  });
});
