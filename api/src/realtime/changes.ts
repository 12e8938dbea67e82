/**
 * The change feed: every write announces what changed, after its transaction committed,
 * and the realtime gateway relays it to the browsers of that workspace.
 */
import { EventEmitter } from 'node:events';

export interface Change {
  workspaceId: string;
  /** `entity.verb`, e.g. `device.updated`. */
  event: string;
  payload: unknown;
  /** Deliver only to this person's room (a VA's pushed task), as well as to the workspace. */
  userId?: string;
}

export interface ChangeFeed {
  publish(change: Change): void;
  subscribe(listener: (change: Change) => void): () => void;
}

export function createChangeFeed(): ChangeFeed {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish(change) {
      emitter.emit('change', change);
    },
    subscribe(listener) {
      emitter.on('change', listener);
      return () => emitter.off('change', listener);
    },
  };
}
