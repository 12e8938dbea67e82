/**
 * The change feed: every write announces what changed, after its transaction committed,
 * and the realtime gateway relays it to the browsers of that workspace.
 */
import { EventEmitter } from 'node:events';
import type { ServerEventName } from '../contracts/index.ts';

/** A change browsers hear about, or a session revocation the gateway acts on. */
export type Change =
  | {
      workspaceId: string;
      event: ServerEventName;
      payload: unknown;
      /** Deliver to this person's room only (a VA's pushed task) rather than the whole workspace. */
      userId?: string;
      /** Heard by every API instance (from a worker process): deliver to this instance's own sockets only. */
      local?: boolean;
    }
  | { workspaceId: string; event: 'auth.revoked'; payload: { sessionIds: string[] }; userId?: undefined }
  | { workspaceId: string; event: 'wall.revoked'; payload: { wallLinkId: string }; userId?: undefined };

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
