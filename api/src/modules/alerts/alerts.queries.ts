import type { Updateable } from 'kysely';
import type { WebhooksTable } from '@farm/sql';
import type { Db, Tx } from '../../shared/types.ts';
import { decodeCursor, pastCursor } from '../../shared/paging.ts';

export function listWebhooks(db: Db, workspaceId: string) {
  return db.selectFrom('webhooks').selectAll().where('workspaceId', '=', workspaceId).orderBy('createdAt').orderBy('id').limit(100).execute();
}

export function findWebhook(db: Db, workspaceId: string, id: string) {
  return db.selectFrom('webhooks').selectAll().where('workspaceId', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function insertWebhook(
  tx: Tx,
  values: {
    workspaceId: string;
    url: string;
    secret: string;
    events: string[];
    offlineMinutes?: number | undefined;
    isActive?: boolean | undefined;
    createdById: string;
  },
) {
  return tx
    .insertInto('webhooks')
    .values({
      workspaceId: values.workspaceId,
      url: values.url,
      secret: values.secret,
      events: values.events,
      createdById: values.createdById,
      ...(values.offlineMinutes !== undefined ? { offlineMinutes: values.offlineMinutes } : {}),
      ...(values.isActive !== undefined ? { isActive: values.isActive } : {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateWebhook(tx: Tx, workspaceId: string, id: string, changes: Updateable<WebhooksTable>) {
  return tx.updateTable('webhooks').set(changes).where('workspaceId', '=', workspaceId).where('id', '=', id).returningAll().executeTakeFirst();
}

export function deleteWebhook(tx: Tx, workspaceId: string, id: string) {
  return tx.deleteFrom('webhooks').where('workspaceId', '=', workspaceId).where('id', '=', id).returning(['id', 'url']).executeTakeFirst();
}

/** A delivery made on purpose, to try the endpoint: it goes through the same queue and log as the alerts. */
export function queueTestDelivery(tx: Tx, workspaceId: string, webhookId: string, text: string) {
  const at = new Date().toISOString();
  return tx
    .insertInto('webhookDeliveries')
    .values({
      workspaceId,
      webhookId,
      event: 'webhook.test',
      dedupeKey: `webhook.test:${webhookId}:${at}`,
      payload: JSON.stringify({ event: 'webhook.test', id: webhookId, at, text }),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The delivery log, newest first. */
export function listDeliveries(db: Db, workspaceId: string, filter: { webhookId?: string | undefined; cursor?: string | undefined; limit: number }) {
  const cursor = decodeCursor(filter.cursor);
  let query = db.selectFrom('webhookDeliveries').selectAll().where('workspaceId', '=', workspaceId);
  if (filter.webhookId) query = query.where('webhookId', '=', filter.webhookId);
  if (cursor) query = query.where(pastCursor(cursor, 'newest'));
  return query
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}
