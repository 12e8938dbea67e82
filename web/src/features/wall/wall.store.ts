/**
 * The wall's live store: the REST snapshot of every tile, corrected by pushed deltas. Tiles keep their place:
 * the order comes from the first snapshot, later snapshots and new phones only append, and deletions close up.
 * The transitions are pure functions of the state, so they are tested without a socket.
 */
import type { Device, ServerEventPayload, Session, WallGroup, WallSnapshot, WallTile } from '@farm/contracts';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ConnectionState } from '../../shared/realtime/connection';

export type WallLoad = 'loading' | 'ready' | 'unauthorized';

/** A tile as the wall shows it, who controls the phone from the console ("in use by") included. */
export type WallTileState = WallTile;

export interface WallState {
  load: WallLoad;
  workspaceName: string | null;
  /** Tile ids in display order. */
  order: readonly string[];
  tiles: Readonly<Record<string, WallTileState>>;
  /** Each phone's assignee as last seen in a device event: tells when a tile's VA (a snapshot field) changed. */
  assigned: Readonly<Record<string, string | null>>;
  connection: ConnectionState;
  /** The workspace's groups and tags, for the filter. */
  groups: readonly WallGroup[];
  /** The group the tiles are of (null: every phone): a phone outside it is not added by its events. */
  groupId: string | null;
}

export type WallStore = StoreApi<WallState>;

export function initialWallState(): WallState {
  return {
    load: 'loading',
    workspaceName: null,
    order: [],
    tiles: {},
    assigned: {},
    connection: { status: 'connecting', downSince: Date.now() },
    groups: [],
    groupId: null,
  };
}

export function createWallStore(initial: WallState = initialWallState()): WallStore {
  return createStore<WallState>()(() => initial);
}

const newer = (a: string, b: string) => Date.parse(a) > Date.parse(b);

/**
 * A fresh snapshot: known tiles keep their place, new ones go last in the snapshot's order, vanished ones go.
 * A tile whose live status is newer than the snapshot's (a heartbeat raced the read) keeps it.
 */
export function withSnapshot(state: WallState, snapshot: WallSnapshot): Partial<WallState> {
  const incoming = new Map(snapshot.tiles.map((tile) => [tile.id, tile]));
  const order = state.order.filter((id) => incoming.has(id));
  const placed = new Set(order);
  for (const tile of snapshot.tiles) if (!placed.has(tile.id)) order.push(tile.id);

  const tiles: Record<string, WallTileState> = {};
  for (const [id, snapshotTile] of incoming) {
    const current = state.tiles[id];
    const tile: WallTileState = snapshotTile;
    tiles[id] =
      current && newer(current.lastActive, tile.lastActive)
        ? { ...tile, status: current.status, battery: current.battery, lastActive: current.lastActive }
        : tile;
  }
  const assigned = Object.fromEntries(Object.entries(state.assigned).filter(([id]) => incoming.has(id)));
  return { load: 'ready', workspaceName: snapshot.workspaceName, order, tiles, assigned, groups: snapshot.groups, groupId: snapshot.groupId };
}

/** Heartbeats: status, battery and last-seen time of the tiles they name. */
export function withPulse(state: WallState, devices: ServerEventPayload<'devices.pulse'>['devices']): Partial<WallState> | null {
  let tiles: Record<string, WallTileState> | undefined;
  for (const pulse of devices) {
    const tile = (tiles ?? state.tiles)[pulse.id];
    if (!tile) continue;
    if (tile.status === pulse.status && tile.battery === pulse.battery && tile.lastActive === pulse.lastActive) continue;
    if (newer(tile.lastActive, pulse.lastActive)) continue;
    tiles ??= { ...state.tiles };
    tiles[pulse.id] = { ...tile, status: pulse.status, battery: pulse.battery, lastActive: pulse.lastActive };
  }
  return tiles ? { tiles } : null;
}

/** Whether a device event may have changed the tile's VA, which only a snapshot can name. */
export function vaMayHaveChanged(state: WallState, device: Pick<Device, 'id' | 'assignedToId'>): boolean {
  const tile = state.tiles[device.id];
  if (!tile) return device.assignedToId !== null;
  const before = state.assigned[device.id];
  if (before !== undefined) return before !== device.assignedToId;
  return (device.assignedToId === null) !== (tile.vaName === null);
}

/** A created or updated phone: patched in place, or appended as a new tile (on a wall of every phone). */
export function withDevice(state: WallState, device: Device): Partial<WallState> | null {
  const tile = state.tiles[device.id];
  // A wall of one group: a phone not on it joins with the next snapshot, if it joined the group (group.updated).
  if (!tile && state.groupId !== null) return null;
  const next: WallTileState = tile
    ? { ...tile, name: device.name, status: device.status, battery: device.battery, lastActive: device.lastActive, controlledByName: device.controlledByName }
    : {
        id: device.id,
        name: device.name,
        status: device.status,
        battery: device.battery,
        lastActive: device.lastActive,
        screenshotUrl: null,
        currentTask: null,
        vaName: null,
        controlledByName: device.controlledByName,
      };
  return {
    tiles: { ...state.tiles, [device.id]: next },
    order: tile ? state.order : [...state.order, device.id],
    assigned: { ...state.assigned, [device.id]: device.assignedToId },
  };
}

export function withoutDevice(state: WallState, id: string): Partial<WallState> | null {
  if (!state.tiles[id]) return null;
  const tiles = { ...state.tiles };
  const assigned = { ...state.assigned };
  delete tiles[id];
  delete assigned[id];
  return { tiles, assigned, order: state.order.filter((other) => other !== id) };
}

export function withScreenshot(state: WallState, shot: ServerEventPayload<'screenshot.added'>): Partial<WallState> | null {
  const tile = state.tiles[shot.deviceId];
  if (!tile || tile.screenshotUrl === shot.url) return null;
  return { tiles: { ...state.tiles, [shot.deviceId]: { ...tile, screenshotUrl: shot.url } } };
}

/** A running session that names its current task shows it at once (a task's own title needs the snapshot). */
export function withSession(state: WallState, session: Session): Partial<WallState> | null {
  const tile = state.tiles[session.deviceId];
  if (!tile || session.endedAt !== null || session.currentTask === null || tile.currentTask === session.currentTask) return null;
  return { tiles: { ...state.tiles, [session.deviceId]: { ...tile, currentTask: session.currentTask } } };
}
