/** Settings → Alerts: the workspace's webhooks (operators only), a test delivery, and the delivery log. */
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { WebhookDeliveryRow, WebhookRow } from '@farm/sql';
import { createWebhookBody, errorBody, idParams, updateWebhookBody, webhook, webhookDelivery, webhookDeliveryQuery, type AlertEvent } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { DEFAULT_LIMIT, page } from '../../shared/paging.ts';
import { recordAudit } from '../../events/write.ts';
import { checkWebhookUrl } from './alerts.service.ts';
import { deleteWebhook, findWebhook, insertWebhook, listDeliveries, listWebhooks, queueTestDelivery, updateWebhook } from './alerts.queries.ts';

const toWebhook = (row: WebhookRow) => ({
  id: row.id,
  url: row.url,
  events: row.events as AlertEvent[],
  offlineMinutes: row.offlineMinutes,
  isActive: row.isActive,
  secret: row.secret,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const toDelivery = (row: WebhookDeliveryRow) => ({
  id: row.id,
  webhookId: row.webhookId,
  event: row.event,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.nextAttemptAt.toISOString(),
  lastStatus: row.lastStatus,
  lastError: row.lastError,
  deliveredAt: row.deliveredAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
  text: typeof row.payload.text === 'string' ? row.payload.text : null,
});

/** Where a webhook is shown in the log: its host, never its path (Slack puts its secret in the path). */
const hostOf = (url: string) => new URL(url).host;

export const alertsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get('/webhooks', { config: { access: 'alerts.manage' }, schema: { tags: ['alerts'], response: { 200: z.array(webhook) } } }, async (request) =>
    (await listWebhooks(db, actorOf(request).workspaceId)).map(toWebhook),
  );

  app.post(
    '/webhooks',
    { config: { access: 'alerts.manage' }, schema: { tags: ['alerts'], body: createWebhookBody, response: { 201: webhook, 400: errorBody } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const { warning } = await checkWebhookUrl(request.body.url);
      const row = await db.transaction().execute(async (tx) => {
        const created = await insertWebhook(tx, {
          ...request.body,
          workspaceId: actor.workspaceId,
          secret: randomBytes(24).toString('hex'),
          createdById: actor.userId,
        });
        await recordAudit(tx, actor.workspaceId, actor.userId, {
          action: 'webhook.created',
          entityType: 'webhook',
          entityId: created.id,
          data: { host: hostOf(created.url), events: created.events },
        });
        return created;
      });
      return reply.code(201).send({ ...toWebhook(row), ...(warning ? { warning } : {}) });
    },
  );

  app.patch(
    '/webhooks/:id',
    {
      config: { access: 'alerts.manage' },
      schema: { tags: ['alerts'], params: idParams, body: updateWebhookBody, response: { 200: webhook, 400: errorBody, 404: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const { warning } = request.body.url === undefined ? {} : await checkWebhookUrl(request.body.url);
      const row = await db.transaction().execute(async (tx) => {
        const before = await findWebhook(tx, actor.workspaceId, request.params.id);
        if (!before) throw notFound();
        if (Object.keys(request.body).length === 0) return before;
        const updated = await updateWebhook(tx, actor.workspaceId, before.id, request.body);
        if (!updated) throw notFound();
        await recordAudit(tx, actor.workspaceId, actor.userId, {
          action: 'webhook.updated',
          entityType: 'webhook',
          entityId: updated.id,
          data: { fields: Object.keys(request.body) },
        });
        return updated;
      });
      return { ...toWebhook(row), ...(warning ? { warning } : {}) };
    },
  );

  app.delete('/webhooks/:id', { config: { access: 'alerts.manage' }, schema: { tags: ['alerts'], params: idParams } }, async (request, reply) => {
    const actor = actorOf(request);
    await db.transaction().execute(async (tx) => {
      const removed = await deleteWebhook(tx, actor.workspaceId, request.params.id);
      if (!removed) throw notFound();
      await recordAudit(tx, actor.workspaceId, actor.userId, {
        action: 'webhook.deleted',
        entityType: 'webhook',
        entityId: removed.id,
        data: { host: hostOf(removed.url) },
      });
    });
    return reply.code(204).send();
  });

  app.post(
    '/webhooks/:id/test',
    { config: { access: 'alerts.manage' }, schema: { tags: ['alerts'], params: idParams, response: { 202: webhookDelivery, 404: errorBody } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const row = await db.transaction().execute(async (tx) => {
        const target = await findWebhook(tx, actor.workspaceId, request.params.id);
        if (!target) throw notFound();
        const delivery = await queueTestDelivery(tx, actor.workspaceId, target.id, 'Test alert from the phone farm console: this webhook works.');
        await recordAudit(tx, actor.workspaceId, actor.userId, { action: 'webhook.tested', entityType: 'webhook', entityId: target.id });
        return delivery;
      });
      // The embedded runner sends it now rather than at its next tick.
      void app.ctx.jobs?.runNow('webhooks.deliver');
      return reply.code(202).send(toDelivery(row));
    },
  );

  app.get(
    '/webhook-deliveries',
    { config: { access: 'alerts.manage' }, schema: { tags: ['alerts'], querystring: webhookDeliveryQuery, response: { 200: z.array(webhookDelivery) } } },
    async (request, reply) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await listDeliveries(db, actorOf(request).workspaceId, { ...request.query, limit });
      return page(reply, rows, limit, (row) => row.createdAt).map(toDelivery);
    },
  );
};
