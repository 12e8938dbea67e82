import { describe, expect, it } from 'vitest';
import { diffLines, MAX_CELLS, prettyRecipe } from './recipes.diff.ts';

const marked = (before: string, after: string) =>
  diffLines(before, after).map((line) => `${line.kind === 'added' ? '+' : line.kind === 'removed' ? '-' : ' '}${line.text}`);

describe('diffLines', () => {
  it('answers every line as kept for equal documents', () => {
    expect(marked('a\nb\nc', 'a\nb\nc')).toEqual([' a', ' b', ' c']);
  });

  it('finds an added line in the middle and numbers both sides', () => {
    const lines = diffLines('a\nb\nc', 'a\nb\nx\nc');
    expect(lines.map((line) => line.kind)).toEqual(['same', 'same', 'added', 'same']);
    expect(lines[2]).toEqual({ kind: 'added', text: 'x', oldLine: null, newLine: 3 });
    expect(lines[3]).toEqual({ kind: 'same', text: 'c', oldLine: 3, newLine: 4 });
  });

  it('shows a changed line as removed then added, and keeps what both share', () => {
    expect(marked('a\nb\nc\nd', 'a\nB\nc\nd\ne')).toEqual([' a', '-b', '+B', ' c', ' d', '+e']);
  });

  it('keeps the longest common run when lines move', () => {
    expect(marked('x\na\nb\nc', 'a\nb\nc\nx')).toEqual(['-x', ' a', ' b', ' c', '+x']);
  });

  it('handles an empty side', () => {
    expect(marked('', 'a')).toEqual(['-', '+a']);
    expect(marked('a\nb', 'a')).toEqual([' a', '-b']);
  });

  it('shows a middle too large to compare as removed then added, whole', () => {
    const side = Math.ceil(Math.sqrt(MAX_CELLS)) + 1;
    const before = Array.from({ length: side }, (_, i) => `old ${i}`).join('\n');
    const after = Array.from({ length: side }, (_, i) => `new ${i}`).join('\n');
    const lines = diffLines(`head\n${before}\ntail`, `head\n${after}\ntail`);
    expect(lines).toHaveLength(side * 2 + 2);
    expect(lines[1]!.kind).toBe('removed');
    expect(lines[side + 1]!.kind).toBe('added');
  });

  it('diffs recipe documents pretty-printed with their keys in order', () => {
    const v1 = { id: 'instagram.like', version: 1, steps: [{ do: 'open_app' }] };
    const v2 = { id: 'instagram.like', version: 2, steps: [{ do: 'open_app' }, { do: 'wait_for', target: { id: 'feed' }, timeout: '10s' }] };
    const lines = marked(prettyRecipe(v1), prettyRecipe(v2));
    expect(lines).toContain('-  "version": 1,');
    expect(lines).toContain('+  "version": 2,');
    expect(lines.filter((line) => line.startsWith('+'))).toEqual([
      '+  "version": 2,',
      '+    },',
      '+    {',
      '+      "do": "wait_for",',
      '+      "target": {',
      '+        "id": "feed"',
      '+      },',
      '+      "timeout": "10s"',
    ]);
    expect(lines[0]).toBe(' {');
  });
});
