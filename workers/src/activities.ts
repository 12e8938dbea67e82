/**
 * The one writer of the activity feed and the audit log: what a person, a phone or the automation did.
 * Every module that records a fact goes through here.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActivityType } from '@farm/sql';
import { serialize } from '@farm/sql';
import type { Db } from './db.ts';
import type { Outbox } from './outbox.ts';

export interface NewActivity {
  workspaceId: string;
  userId: string | null;
  action: string;
  deviceId?: string | null;
  type?: ActivityType;
}

export interface AuditFact {
  action: string;
  entityType: string;
  entityId: string | null;
  data?: Record<string, unknown>;
}

/** What the writer knows of the request it writes for: the caller's address, and whether its write was recorded. */
export interface RequestContext {
  ip: string;
  audited: boolean;
}

const requests = new AsyncLocalStorage<RequestContext>();

/** Runs a request's work with its context, carried through async calls without threading it by hand. */
export function runInRequestContext(context: RequestContext, fn: () => void): void {
  requests.run(context, fn);
}

/** The current request's context; undefined outside a request (jobs, phone agents, the demo seed). */
export function requestContext(): RequestContext | undefined {
  return requests.getStore();
}

/** The audit half of the one writer: who did what to which entity, from which address (the request's, when there is one). */
export async function recordAudit(db: Db, workspaceId: string, actorId: string | null, audit: AuditFact): Promise<void> {
  const context = requestContext();
  await db
    .insertInto('auditLog')
    .values({
      workspaceId,
      actorId,
      action: audit.action,
      entityType: audit.entityType,
      entityId: audit.entityId,
      data: JSON.stringify(audit.data ?? {}),
      ip: context?.ip ?? null,
    })
    .execute();
  if (context) context.audited = true;
}

/** Writes one fact to the workspace's feed, and to the audit log when `audit` is given; announces it after commit. */
export async function recordActivity(db: Db, activity: NewActivity, audit?: AuditFact, outbox?: Outbox) {
  const row = await db
    .insertInto('activities')
    .values({
      workspaceId: activity.workspaceId,
      userId: activity.userId,
      action: activity.action,
      deviceId: activity.deviceId ?? null,
      type: activity.type ?? 'info',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (audit) await recordAudit(db, activity.workspaceId, activity.userId, audit);
  outbox?.add('activity.created', serialize(row));
  return row;
}
