/**
 * The wall's layout: how many columns and how large a tile, so that every phone of the workspace fits on one
 * screen without scrolling, each tile as large as it can be at a fixed (portrait, phone-like) shape.
 */

/** Tile width over height. */
export const TILE_ASPECT = 3 / 4;
/** A wall with fewer phones still lays out this many slots, so one phone does not fill a whole TV. */
export const MIN_SLOTS = 4;

export interface WallGridInput {
  width: number;
  height: number;
  count: number;
  gap?: number;
  aspect?: number;
}

export interface WallGrid {
  columns: number;
  rows: number;
  tileWidth: number;
  tileHeight: number;
  gap: number;
}

/** Tighter gaps when there are many tiles: at 200 phones every pixel counts. */
export function wallGap(count: number): number {
  return count > 100 ? 4 : count > 36 ? 6 : 10;
}

/**
 * Tries every column count and keeps the one giving the tallest tile of the given shape; the tile is then the
 * largest of that shape fitting its cell. Ties keep fewer columns.
 */
export function computeWallGrid({ width, height, count, gap = wallGap(count), aspect = TILE_ASPECT }: WallGridInput): WallGrid {
  const slots = Math.max(MIN_SLOTS, Math.floor(count));
  let best: WallGrid | undefined;
  for (let columns = 1; columns <= slots; columns += 1) {
    const rows = Math.ceil(slots / columns);
    const cellWidth = (width - gap * (columns - 1)) / columns;
    const cellHeight = (height - gap * (rows - 1)) / rows;
    if (cellWidth <= 0 || cellHeight <= 0) continue;
    const tileHeight = Math.floor(Math.min(cellHeight, cellWidth / aspect));
    if (tileHeight <= 0) continue;
    if (!best || tileHeight > best.tileHeight) {
      best = { columns, rows, tileHeight, tileWidth: Math.floor(tileHeight * aspect), gap };
    }
  }
  // A window too small for any tile: one pixel per tile is still a layout, never a crash.
  if (!best) {
    const columns = Math.ceil(Math.sqrt(slots));
    return { columns, rows: Math.ceil(slots / columns), tileWidth: 1, tileHeight: 1, gap: 0 };
  }
  return best;
}
