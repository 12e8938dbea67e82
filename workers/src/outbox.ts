import type { Change, InternalEventName, InternalEventPayload, ServerEventName, ServerEventPayload } from '@farm/contracts';
import type { Announce } from './changes.ts';

type Target = Announce | { publish: Announce };

/**
 * Changes gathered inside a transaction and announced only once it has committed:
 * a rolled-back write publishes nothing.
 */
export class Outbox {
  private readonly changes: Change[] = [];

  constructor(readonly workspaceId: string) {}

  add<E extends ServerEventName>(event: E, payload: ServerEventPayload<E>, userId?: string | null): void {
    this.changes.push({ workspaceId: this.workspaceId, event, payload, ...(userId ? { userId } : {}) } as Change);
  }

  /** A fact for the servers only (see `internalEvents`). */
  internal<E extends InternalEventName>(event: E, payload: InternalEventPayload<E>): void {
    this.changes.push({ workspaceId: this.workspaceId, event, payload } as Change);
  }

  flush(target: Target): void {
    const publish = typeof target === 'function' ? target : target.publish.bind(target);
    for (const change of this.changes.splice(0)) publish(change);
  }

  /** What is gathered so far; `rewind` takes back what was added after (a transaction rolled back to be run again). */
  mark(): () => void {
    const kept = this.changes.length;
    return () => {
      this.changes.length = kept;
    };
  }
}

/** One outbox per workspace, for work that spans workspaces (the schedulers and watchdogs). */
export class Outboxes {
  private readonly byWorkspace = new Map<string, Outbox>();

  /** The outboxes of a request that already has its workspace's outbox: changes of that workspace go there. */
  static of(outbox: Outbox): Outboxes {
    const outboxes = new Outboxes();
    outboxes.byWorkspace.set(outbox.workspaceId, outbox);
    return outboxes;
  }

  for(workspaceId: string): Outbox {
    let outbox = this.byWorkspace.get(workspaceId);
    if (!outbox) {
      outbox = new Outbox(workspaceId);
      this.byWorkspace.set(workspaceId, outbox);
    }
    return outbox;
  }

  flush(target: Target): void {
    for (const outbox of this.byWorkspace.values()) outbox.flush(target);
  }

  /** As `Outbox.mark`, over every workspace's outbox, those opened after the mark included. */
  mark(): () => void {
    const rewinds = new Map([...this.byWorkspace].map(([workspaceId, outbox]) => [workspaceId, outbox.mark()]));
    return () => {
      for (const workspaceId of [...this.byWorkspace.keys()]) {
        const rewind = rewinds.get(workspaceId);
        if (rewind) rewind();
        else this.byWorkspace.delete(workspaceId);
      }
    };
  }
}
