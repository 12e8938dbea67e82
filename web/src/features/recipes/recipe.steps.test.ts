import { describe, expect, it } from 'vitest';
import { buildStep, canCount, deleteStep, describeStep, describeTarget, insertStep, moveStep, setCounts, stepsOf } from './recipe.steps';

const doc = {
  id: 'instagram.like',
  version: 1,
  steps: [
    { do: 'open_app' },
    { do: 'tap', target: { id: 'com.instagram.android:id/row_feed_button_like' }, counts: 'like' },
    { do: 'tap', target: { point: { x: 0.5, y: 0.9 } } },
  ],
  notes: 'last',
};

describe('recipe steps', () => {
  it('describes steps and their targets, marking points positional', () => {
    const steps = stepsOf(doc)!;
    expect(steps.map(describeStep)).toEqual(['Open the app', 'Tap com.instagram.android:id/row_feed_button_like', 'Tap a point']);
    expect(describeTarget(steps[1]!.target)).toEqual({ text: 'id "com.instagram.android:id/row_feed_button_like"', positional: false });
    expect(describeTarget(steps[2]!.target)).toEqual({ text: 'point 0.5, 0.9', positional: true });
    expect(describeTarget('like_button')).toEqual({ text: 'element "like_button"', positional: false });
  });

  it('offers no count on a positional step (a point is only for a screen that cannot be read)', () => {
    const steps = stepsOf(doc)!;
    expect(canCount(steps[1]!)).toBe(true);
    expect(canCount(steps[2]!)).toBe(false);
    expect(canCount({ do: 'tap', target: { id: 'feed_tab', fallback: { x: 0.1, y: 0.9 } }, positional: true })).toBe(false);
    // One that already counts keeps the choice, so the count can be cleared.
    expect(canCount({ do: 'tap', target: { point: { x: 0.5, y: 0.9 } }, positional: true, counts: 'like' })).toBe(true);
  });

  it('adds a Wait for step after a step, keeping the other keys in order', () => {
    const next = insertStep(doc, 0, buildStep({ do: 'wait_for', target: { kind: 'id', value: 'feed_tab' }, timeout: '10s' }));
    expect(Object.keys(next)).toEqual(['id', 'version', 'steps', 'notes']);
    expect(stepsOf(next)![1]).toEqual({ do: 'wait_for', target: { id: 'feed_tab' }, timeout: '10s' });
    expect(stepsOf(next)).toHaveLength(4);
  });

  it('builds a guard that taps what shows, or goes back', () => {
    expect(buildStep({ do: 'when', target: { kind: 'text', value: 'Not now' }, action: 'tap' })).toEqual({
      do: 'when',
      present: { text: 'Not now' },
      steps: [{ do: 'tap', target: { text: 'Not now' } }],
    });
    expect(buildStep({ do: 'when', target: { kind: 'desc', value: 'Close' }, action: 'back' }).steps).toEqual([{ do: 'key', key: 'back' }]);
    expect(buildStep({ do: 'pause', for: ' 2s ' })).toEqual({ do: 'pause', for: '2s' });
  });

  it('moves, deletes and sets counts', () => {
    expect(stepsOf(moveStep(doc, 1, -1))!.map((step) => step.do)).toEqual(['tap', 'open_app', 'tap']);
    expect(moveStep(doc, 0, -1)).toBe(doc);
    expect(stepsOf(deleteStep(doc, 0))).toHaveLength(2);
    expect(stepsOf(setCounts(doc, 2, 'follow'))![2]).toEqual({ do: 'tap', target: { point: { x: 0.5, y: 0.9 } }, counts: 'follow' });
    expect(stepsOf(setCounts(doc, 1, null))![1]).toEqual({ do: 'tap', target: { id: 'com.instagram.android:id/row_feed_button_like' } });
    expect(Object.keys(stepsOf(setCounts(doc, 1, 'comment'))![1]!)).toEqual(['do', 'target', 'counts']);
  });
});
