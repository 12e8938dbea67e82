/**
 * The change feed: every write announces what changed, after its transaction committed, and the realtime gateway
 * relays it to the browsers of that workspace; the phone dispatcher and the read cache listen too.
 */
import { EventEmitter } from 'node:events';
import type { Change } from '@farm/contracts';

export type { Change };

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
