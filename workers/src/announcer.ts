/**
 * A workers process's announcements to the API instances over Redis: each change is published on the changes channel
 * with its sequence number (see api/src/events/relay.ts). The changes made in one turn of the event loop, and those
 * made while a batch is on its way, go together in one script: it numbers them and publishes them in order, one round
 * trip for the batch instead of two per change, and atomically, so two processes' numbers reach the channel in order.
 */
import type { Redis } from 'ioredis';
import { CHANGES_CHANNEL, CHANGES_SEQ_KEY, type Announce, type Change } from './changes.ts';

/** At most this many changes go in one script. */
export const MAX_ANNOUNCED = 500;

// Each change's JSON gets its number as its first field ('{"seq":N,' + the rest of its text).
const ANNOUNCE = `
local last = redis.call('INCRBY', KEYS[1], #ARGV - 1)
local first = last - (#ARGV - 1)
for i = 2, #ARGV do
  redis.call('PUBLISH', ARGV[1], '{"seq":' .. string.format('%d', first + i - 1) .. ',' .. string.sub(ARGV[i], 2))
end
return last`;

export interface Announcer {
  announce: Announce;
  /** Resolves once every change announced so far has been published (or has failed and been reported). */
  flushed(): Promise<void>;
}

export function redisAnnouncer(
  publisher: Redis,
  onError: (error: unknown) => void,
  names: { channel: string; seqKey: string } = { channel: CHANGES_CHANNEL, seqKey: CHANGES_SEQ_KEY },
): Announcer {
  const queued: Change[] = [];
  let sending: Promise<void> | undefined;

  async function send(): Promise<void> {
    // The rest of this turn's changes (an outbox flushes several at once) join the first.
    await null;
    while (queued.length > 0) {
      const batch = queued.splice(0, MAX_ANNOUNCED);
      try {
        await publisher.eval(ANNOUNCE, 1, names.seqKey, names.channel, ...batch.map((change) => JSON.stringify(change)));
      } catch (error) {
        onError(error);
      }
    }
    sending = undefined;
  }

  return {
    announce(change) {
      queued.push(change);
      sending ??= send();
    },
    flushed: () => sending ?? Promise.resolve(),
  };
}
