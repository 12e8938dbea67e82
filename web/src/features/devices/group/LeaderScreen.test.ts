import { describe, expect, it } from 'vitest';
import { actionOfGesture } from './LeaderScreen';

const rect = { left: 0, top: 0, width: 200, height: 400 };

describe('the leader’s screen', () => {
  it('sends a tap or long press as the finger, or by point when the person switched to it', () => {
    expect(actionOfGesture(rect, { clientX: 50, clientY: 100, at: 0 }, { clientX: 51, clientY: 100, at: 100 }, false)).toEqual({
      kind: 'finger',
      x: 0.25,
      y: 0.25,
      press: 'tap',
    });
    expect(actionOfGesture(rect, { clientX: 50, clientY: 100, at: 0 }, { clientX: 50, clientY: 100, at: 900 }, false)).toEqual({
      kind: 'finger',
      x: 0.25,
      y: 0.25,
      press: 'long_press',
    });
    expect(actionOfGesture(rect, { clientX: 100, clientY: 200, at: 0 }, { clientX: 100, clientY: 200, at: 80 }, true)).toEqual({
      kind: 'point',
      x: 0.5,
      y: 0.5,
      press: 'tap',
    });
  });

  it('sends a drag as a swipe', () => {
    expect(actionOfGesture(rect, { clientX: 100, clientY: 350, at: 0 }, { clientX: 100, clientY: 50, at: 300 }, true)).toEqual({
      kind: 'swipe',
      from: { x: 0.5, y: 0.875 },
      to: { x: 0.5, y: 0.125 },
      durationMs: 300,
    });
  });
});
