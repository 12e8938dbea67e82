/**
 * Browser events leave in runs. The events one turn of the loop sends to the same room one after another (a batch of
 * phones' results, written together, announces three or four changes per phone) go as one `changes` message, at
 * the end of the turn, in their order; an event alone goes as itself. A run ends where an event for another room
 * comes between, so a browser in two rooms (its workspace's and its person's) hears every event in the order it was
 * sent. With the Redis adapter each message is one entry in the stream every instance reads: a run of 500 is one
 * entry, not 500. Nothing waits a timer, so an event is not later than before, only sent with its neighbours.
 */
import { BATCH_EVENT, type EventBatch } from '@farm/contracts';

/** At most this many events in one message, so no message grows past a few hundred kilobytes. */
export const MAX_BATCH = 200;

export type Emit = (local: boolean, room: string, event: string, payload: unknown) => void;

type Item = EventBatch['changes'][number];

interface Run {
  local: boolean;
  room: string;
  items: Item[];
  /** The same events for a second room (a workspace's wall screens), whose sockets are in no other room. */
  copies?: { room: string; items: Item[] } | undefined;
}

export class Outgoing {
  private runs: Run[] = [];
  private scheduled: NodeJS.Immediate | undefined;

  constructor(private readonly emit: Emit) {}

  /** Queues an event for a room, and its copy for a second room when `copyTo` is given. */
  send(local: boolean, room: string, event: string, payload: unknown, copyTo?: string): void {
    const last = this.runs.at(-1);
    const run = last && last.local === local && last.room === room && (!copyTo || !last.copies || last.copies.room === copyTo) ? last : undefined;
    const item = { event, payload };
    if (run) {
      run.items.push(item);
      if (copyTo) {
        run.copies ??= { room: copyTo, items: [] };
        run.copies.items.push(item);
      }
    } else {
      this.runs.push({ local, room, items: [item], copies: copyTo ? { room: copyTo, items: [item] } : undefined });
    }
    this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Sends what is queued now (at the end of the turn, or when the server closes). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const runs = this.runs;
    this.runs = [];
    for (const run of runs) {
      this.sendRun(run.local, run.room, run.items);
      if (run.copies) this.sendRun(run.local, run.copies.room, run.copies.items);
    }
  }

  private sendRun(local: boolean, room: string, items: Item[]): void {
    if (items.length === 1) {
      this.emit(local, room, items[0]!.event, items[0]!.payload);
      return;
    }
    for (let from = 0; from < items.length; from += MAX_BATCH) {
      this.emit(local, room, BATCH_EVENT, { changes: items.slice(from, from + MAX_BATCH) } satisfies EventBatch);
    }
  }
}
