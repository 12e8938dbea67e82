import { describe, expect, it } from 'vitest';
import { computeWallGrid, MIN_SLOTS, TILE_ASPECT } from './wall.grid';

const screens = [
  { width: 1920, height: 1040 },
  { width: 1280, height: 680 },
  { width: 3840, height: 2120 },
  { width: 1080, height: 1880 },
  { width: 800, height: 560 },
];

describe('computeWallGrid', () => {
  it('fits every tile on screen, without scrolling, from 4 to 200 phones', () => {
    for (const screen of screens) {
      for (let count = 1; count <= 200; count += 1) {
        const grid = computeWallGrid({ ...screen, count });
        expect(grid.columns * grid.rows).toBeGreaterThanOrEqual(Math.max(count, MIN_SLOTS));
        expect(grid.columns * grid.tileWidth + (grid.columns - 1) * grid.gap).toBeLessThanOrEqual(screen.width);
        expect(grid.rows * grid.tileHeight + (grid.rows - 1) * grid.gap).toBeLessThanOrEqual(screen.height);
        // Never an empty last row: that height would be wasted.
        expect((grid.rows - 1) * grid.columns).toBeLessThan(Math.max(count, MIN_SLOTS));
      }
    }
  });

  it('keeps tiles the same (portrait) shape', () => {
    const grid = computeWallGrid({ width: 1920, height: 1040, count: 24 });
    expect(Math.abs(grid.tileWidth / grid.tileHeight - TILE_ASPECT)).toBeLessThan(0.02);
  });

  it('picks the column count giving the largest tiles', () => {
    // Four phones on a wide screen stand side by side.
    expect(computeWallGrid({ width: 1920, height: 1040, count: 4 })).toMatchObject({ columns: 4, rows: 1 });
    // Two hundred on a 1080p TV: 23 × 9, tiles still about 80 × 106 px.
    const many = computeWallGrid({ width: 1920, height: 1040, count: 200 });
    expect(many).toMatchObject({ columns: 23, rows: 9 });
    expect(many.tileHeight).toBeGreaterThanOrEqual(100);
    // A portrait screen stacks more rows.
    const portrait = computeWallGrid({ width: 1080, height: 1880, count: 12 });
    expect(portrait.rows).toBeGreaterThan(portrait.columns);
  });

  it('lays out a few phones as four slots, so one phone does not fill the TV', () => {
    expect(computeWallGrid({ width: 1920, height: 1040, count: 1 })).toEqual(computeWallGrid({ width: 1920, height: 1040, count: 4 }));
  });

  it('still answers for a window too small for any tile', () => {
    const grid = computeWallGrid({ width: 10, height: 10, count: 200 });
    expect(grid.columns * grid.rows).toBeGreaterThanOrEqual(200);
  });

  it('grows tiles as phones leave, never overflowing', () => {
    let previous = 0;
    for (let count = 200; count >= 4; count -= 1) {
      const grid = computeWallGrid({ width: 1920, height: 1040, count });
      expect(grid.tileHeight).toBeGreaterThanOrEqual(previous - 6); // gaps tighten past 100 and 36 phones
      previous = grid.tileHeight;
    }
  });
});
