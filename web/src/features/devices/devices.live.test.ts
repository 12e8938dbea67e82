import { describe, expect, it } from 'vitest';
import { FrameRate, fractionAt, gestureOf, InputLatency, pathLabel, wheelStep } from './devices.live';

const rect = { left: 100, top: 50, width: 200, height: 400 };

describe('live input shaping', () => {
  it('turns a pointer into fractions of the picture, kept within it', () => {
    expect(fractionAt(rect, 150, 150)).toEqual({ x: 0.25, y: 0.25 });
    expect(fractionAt(rect, 40, 900)).toEqual({ x: 0, y: 1 });
    expect(fractionAt({ left: 0, top: 0, width: 0, height: 0 }, 10, 10)).toEqual({ x: 0, y: 0 });
  });

  it('reads a press and release as a tap, a long press or a swipe', () => {
    expect(gestureOf(rect, { clientX: 150, clientY: 150, at: 0 }, { clientX: 155, clientY: 152, at: 120 })).toEqual({ kind: 'tap', x: 0.25, y: 0.25 });
    expect(gestureOf(rect, { clientX: 150, clientY: 150, at: 0 }, { clientX: 150, clientY: 150, at: 900 })).toEqual({
      kind: 'long_press',
      x: 0.25,
      y: 0.25,
      durationMs: 900,
    });
    expect(gestureOf(rect, { clientX: 200, clientY: 400, at: 0 }, { clientX: 200, clientY: 130, at: 300 })).toEqual({
      kind: 'swipe',
      from: { x: 0.5, y: 0.875 },
      to: { x: 0.5, y: 0.2 },
      durationMs: 300,
    });
  });

  it('keeps a swipe between 20 ms and 5 s', () => {
    const quick = gestureOf(rect, { clientX: 100, clientY: 100, at: 0 }, { clientX: 200, clientY: 100, at: 3 });
    const slow = gestureOf(rect, { clientX: 100, clientY: 100, at: 0 }, { clientX: 200, clientY: 100, at: 60_000 });
    expect(quick).toMatchObject({ kind: 'swipe', durationMs: 20 });
    expect(slow).toMatchObject({ kind: 'swipe', durationMs: 5000 });
  });

  it('scrolls by a fixed step in the wheel direction', () => {
    expect(wheelStep(120)).toBe(0.3);
    expect(wheelStep(-3)).toBe(-0.3);
    expect(wheelStep(0)).toBe(0);
  });
});

describe('FrameRate', () => {
  it('counts the frames drawn over the last two seconds', () => {
    const rate = new FrameRate();
    for (let at = 0; at < 2000; at += 125) rate.add(at);
    expect(rate.perSecond(1999)).toBe(8);
    expect(rate.perSecond(3000)).toBe(4);
    expect(rate.perSecond(10_000)).toBe(0);
  });
});

describe('InputLatency', () => {
  it('measures from the input to the first picture showing it, once, and the newest input a picture shows', () => {
    const latency = new InputLatency();
    latency.sentAt(1, 1000);
    latency.sentAt(2, 1100);
    expect(latency.shown(undefined, 1150)).toBeNull();
    expect(latency.shown(0, 1150)).toBeNull();
    // A picture showing input 2 shows input 1 too: the figure is for the newest.
    expect(latency.shown(2, 1180)).toBe(80);
    expect(latency.shown(2, 1300)).toBeNull();
    latency.sentAt(3, 2000);
    expect(latency.shown(3, 2045)).toBe(45);
  });
});

describe('pathLabel', () => {
  it('names the path the picture takes', () => {
    expect(pathLabel({ kind: 'h264' })).toBe('H.264');
    expect(pathLabel({ kind: 'jpeg', source: 'minicap' })).toBe('JPEG (minicap)');
    expect(pathLabel({ kind: 'jpeg', source: 'screencap' })).toBe('JPEG (screencap)');
    expect(pathLabel({ kind: 'jpeg', source: 'sim' })).toBe('JPEG (simulated)');
    expect(pathLabel(null)).toBeNull();
  });
});
