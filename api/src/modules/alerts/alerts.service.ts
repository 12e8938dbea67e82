/** Settings → Alerts: where a webhook may point, checked when it is saved (and again at every send, by the workers). */
import { automation, checkUrl } from '@farm/workers';
import type { Updateable } from 'kysely';
import type { WebhooksTable } from '@farm/sql';
import { badRequest, notFound } from '../../errors.ts';
import { recordAudit } from '../../events/write.ts';
import type { Actor, Db } from '../../shared/types.ts';
import { deleteWebhook, findWebhook, insertWebhook, queueTestDelivery, updateWebhook } from './alerts.queries.ts';

/** Where a webhook is shown in the log: its host, never its path (Slack puts its secret in the path). */
const hostOf = (url: string) => new URL(url).host;

/**
 * Refuses a URL that is, or resolves to, a private or local address (unless the farm allows them:
 * ALERTS_ALLOW_PRIVATE=1). A name that does not resolve now is saved with a warning, since DNS may not be there yet;
 * every send checks it again.
 */
export async function checkWebhookUrl(url: string): Promise<{ warning?: string }> {
  const check = await checkUrl(url, { allowPrivate: automation().outboundAllowPrivate });
  if (check.ok) return {};
  if (check.reason === 'unresolved') return { warning: `${check.message} It is saved; alerts are sent once it resolves to a public address.` };
  throw badRequest('url', check.message);
}

/** Saves a new webhook and its audit fact in one transaction. */
export function createWebhook(db: Db, actor: Actor, values: Omit<Parameters<typeof insertWebhook>[1], 'workspaceId' | 'createdById'>) {
  return db.transaction().execute(async (tx) => {
    const created = await insertWebhook(tx, { ...values, workspaceId: actor.workspaceId, createdById: actor.userId });
    await recordAudit(tx, actor.workspaceId, actor.userId, {
      action: 'webhook.created',
      entityType: 'webhook',
      entityId: created.id,
      data: { host: hostOf(created.url), events: created.events },
    });
    return created;
  });
}

/** Changes a webhook and records which fields changed; an empty change returns it as it is. Not found: 404. */
export function changeWebhook(db: Db, actor: Actor, id: string, changes: Updateable<WebhooksTable>) {
  return db.transaction().execute(async (tx) => {
    const before = await findWebhook(tx, actor.workspaceId, id);
    if (!before) throw notFound();
    if (Object.keys(changes).length === 0) return before;
    const updated = await updateWebhook(tx, actor.workspaceId, before.id, changes);
    if (!updated) throw notFound();
    await recordAudit(tx, actor.workspaceId, actor.userId, {
      action: 'webhook.updated',
      entityType: 'webhook',
      entityId: updated.id,
      data: { fields: Object.keys(changes) },
    });
    return updated;
  });
}

/** Deletes a webhook and records it. Not found: 404. */
export async function removeWebhook(db: Db, actor: Actor, id: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const removed = await deleteWebhook(tx, actor.workspaceId, id);
    if (!removed) throw notFound();
    await recordAudit(tx, actor.workspaceId, actor.userId, {
      action: 'webhook.deleted',
      entityType: 'webhook',
      entityId: removed.id,
      data: { host: hostOf(removed.url) },
    });
  });
}

/** Queues a test delivery to a webhook and records it. Not found: 404. */
export function testWebhook(db: Db, actor: Actor, id: string) {
  return db.transaction().execute(async (tx) => {
    const target = await findWebhook(tx, actor.workspaceId, id);
    if (!target) throw notFound();
    const delivery = await queueTestDelivery(tx, actor.workspaceId, target.id, 'Test alert from the phone farm console: this webhook works.');
    await recordAudit(tx, actor.workspaceId, actor.userId, { action: 'webhook.tested', entityType: 'webhook', entityId: target.id });
    return delivery;
  });
}
