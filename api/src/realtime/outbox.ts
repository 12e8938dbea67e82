import type { ServerEventName, ServerEventPayload } from '../contracts/index.ts';
import type { Change, ChangeFeed } from './changes.ts';

/**
 * Changes gathered inside a transaction and announced only once it has committed:
 * a rolled-back write publishes nothing.
 */
export class Outbox {
  private readonly changes: Change[] = [];

  constructor(readonly workspaceId: string) {}

  add<E extends ServerEventName>(event: E, payload: ServerEventPayload<E> | Record<string, unknown>, userId?: string | null): void {
    this.changes.push({ workspaceId: this.workspaceId, event, payload, ...(userId ? { userId } : {}) });
  }

  flush(feed: ChangeFeed): void {
    for (const change of this.changes.splice(0)) feed.publish(change);
  }
}
