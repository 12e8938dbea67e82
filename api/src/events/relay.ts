/**
 * The workers' announcements to browsers, in the distributed mode. Workers publish each change on a Redis channel
 * with a sequence number; every API instance hears it, and exactly one of them (the relay, chosen by a lease in
 * Redis) emits it through the Socket.IO adapter, whose Redis stream carries it to every instance's browsers once and
 * keeps it for a browser that recovers its connection after a short drop. Every instance keeps the last few seconds
 * of announcements: when the relay stops (a deploy, a crash), the next instance to take the lease emits those the old
 * one had not, after the last sequence number it recorded.
 */
import type { Redis } from 'ioredis';
import type { Change } from '@farm/contracts';

export const RELAY_LEASE_KEY = 'farm:changes:relay';
export const RELAY_LAST_KEY = 'farm:changes:relayed';

/** How long the lease lasts unless renewed, and how often it is renewed or sought. */
const LEASE_MS = 3000;
const TICK_MS = 1000;
/** How long announcements are kept for a takeover (longer than a lease). */
const KEEP_MS = 15_000;

const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

interface Held {
  seq: number;
  change: Change;
  at: number;
}

export class ChangeRelay {
  private leading = false;
  private readonly held: Held[] = [];
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** The newest number emitted, and whether its record is being written (see record). */
  private unrecorded = 0;
  private recording = false;

  constructor(
    private readonly redis: Redis,
    private readonly instance: string,
    /** Emits the change to browsers through the adapter (every instance's sockets). */
    private readonly emit: (change: Change) => void,
    private readonly onError: (error: unknown) => void,
    private readonly keys: { lease: string; last: string } = { lease: RELAY_LEASE_KEY, last: RELAY_LAST_KEY },
  ) {
    this.timer = setInterval(() => void this.tick().catch(onError), TICK_MS);
    this.timer.unref();
    void this.tick().catch(onError);
  }

  get isRelay(): boolean {
    return this.leading;
  }

  /** An announcement heard on the channel, in the order the channel delivers them. */
  receive(seq: number, change: Change): void {
    const now = Date.now();
    this.held.push({ seq, change, at: now });
    while (this.held.length > 0 && now - this.held[0]!.at > KEEP_MS) this.held.shift();
    if (!this.leading) return;
    this.emit(change);
    this.record(seq);
  }

  /**
   * Records the last number emitted: one SET at a time, the newest after it (a burst of announcements is a few
   * writes, not one each). A relay that stops between an emit and its record has the next one emit the unrecorded
   * again, which browsers take as the same change once more; one at a time keeps that window to one round trip.
   */
  private record(seq: number): void {
    this.unrecorded = Math.max(this.unrecorded, seq);
    if (this.recording) return;
    this.recording = true;
    const write = (): void => {
      const newest = this.unrecorded;
      this.redis
        .set(this.keys.last, String(newest), 'PX', 3_600_000)
        .catch(this.onError)
        .finally(() => {
          if (this.unrecorded > newest && this.leading) write();
          else this.recording = false;
        });
    };
    write();
  }

  private async tick(): Promise<void> {
    if (this.closed) return;
    if (this.leading) {
      const renewed = Number(await this.redis.eval(RENEW, 1, this.keys.lease, this.instance, String(LEASE_MS)));
      if (renewed === 1) return;
      this.leading = false;
    }
    const taken = await this.redis.set(this.keys.lease, this.instance, 'PX', LEASE_MS, 'NX');
    if (taken !== 'OK' || this.closed) return;
    // Taking over: what the last relay did not emit (after the last number it recorded) goes out now, in order.
    const last = Number((await this.redis.get(this.keys.last)) ?? 0);
    this.leading = true;
    let newest = last;
    for (const item of this.held) {
      if (item.seq <= last) continue;
      this.emit(item.change);
      newest = Math.max(newest, item.seq);
    }
    if (newest > last) this.record(newest);
  }

  /** Lets the lease go at once (a stopping instance), so another instance relays without waiting for it to lapse. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    if (!this.leading) return;
    this.leading = false;
    await this.redis.eval(RELEASE, 1, this.keys.lease, this.instance).catch(this.onError);
  }
}
