/**
 * The one writer of the activity feed and the audit log: what a person, a phone or the automation did.
 * Every module that records a fact goes through here.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActivityType } from '@farm/sql';
import { serialize } from '@farm/sql';
import type { Db } from './db.ts';
import { type Outbox, Outboxes } from './outbox.ts';

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

/** The audit log's row for a fact, from the request's address when there is one. */
function auditRow(workspaceId: string, actorId: string | null, audit: AuditFact) {
  return {
    workspaceId,
    actorId,
    action: audit.action,
    entityType: audit.entityType,
    entityId: audit.entityId,
    data: JSON.stringify(audit.data ?? {}),
    ip: requestContext()?.ip ?? null,
  };
}

/** The audit half of the one writer: who did what to which entity, from which address (the request's, when there is one). */
export async function recordAudit(db: Db, workspaceId: string, actorId: string | null, audit: AuditFact): Promise<void> {
  await db
    .insertInto('auditLog')
    .values(auditRow(workspaceId, actorId, audit))
    .execute();
  const context = requestContext();
  if (context) context.audited = true;
}

/**
 * Writes one fact to the workspace's feed, and to the audit log when `audit` is given (in the same statement);
 * announces it after commit.
 */
export async function recordActivity(db: Db, activity: NewActivity, audit?: AuditFact, outbox?: Outbox) {
  const [row] = await recordActivities(db, [{ activity, audit }], outbox ? Outboxes.of(outbox) : undefined);
  return row!;
}

/**
 * As `recordActivity` for any number of facts, in one statement (a busy farm's results, written together): each
 * activity written, with its audit row when it has one, and announced after commit in its workspace's outbox.
 */
export async function recordActivities(db: Db, facts: readonly { activity: NewActivity; audit?: AuditFact | undefined }[], outboxes?: Outboxes) {
  if (facts.length === 0) return [];
  const audited = facts.flatMap(({ activity, audit }) => (audit ? [auditRow(activity.workspaceId, activity.userId, audit)] : []));
  const values = facts.map(({ activity }) => ({
    workspaceId: activity.workspaceId,
    userId: activity.userId,
    action: activity.action,
    deviceId: activity.deviceId ?? null,
    type: activity.type ?? ('info' as const),
  }));
  const rows =
    audited.length > 0
      ? await db
          .with('audited', (db) => db.insertInto('auditLog').values(audited))
          .insertInto('activities')
          .values(values)
          .returningAll()
          .execute()
      : await db.insertInto('activities').values(values).returningAll().execute();
  const context = requestContext();
  if (audited.length > 0 && context) context.audited = true;
  for (const row of rows) outboxes?.for(row.workspaceId).add('activity.created', serialize(row));
  return rows;
}
