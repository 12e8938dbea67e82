/** Settings → Alerts: the workspace's webhooks (operators only), a test delivery, and the delivery log. */
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { WebhookDeliveryRow, WebhookRow } from '@farm/sql';
import { createWebhookBody, errorBody, idParams, updateWebhookBody, webhook, webhookDelivery, webhookDeliveryQuery, type AlertEvent } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { DEFAULT_LIMIT, page } from '../../shared/paging.ts';
import { changeWebhook, checkWebhookUrl, createWebhook, removeWebhook, testWebhook } from './alerts.service.ts';
import { listDeliveries, listWebhooks } from './alerts.queries.ts';

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
      const row = await createWebhook(db, actor, { ...request.body, secret: randomBytes(24).toString('hex') });
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
      const row = await changeWebhook(db, actor, request.params.id, request.body);
      return { ...toWebhook(row), ...(warning ? { warning } : {}) };
    },
  );

  app.delete('/webhooks/:id', { config: { access: 'alerts.manage' }, schema: { tags: ['alerts'], params: idParams } }, async (request, reply) => {
    const actor = actorOf(request);
    await removeWebhook(db, actor, request.params.id);
    return reply.code(204).send();
  });

  app.post(
    '/webhooks/:id/test',
    { config: { access: 'alerts.manage' }, schema: { tags: ['alerts'], params: idParams, response: { 202: webhookDelivery, 404: errorBody } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const row = await testWebhook(db, actor, request.params.id);
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
