/** Settings → Phone hosts: add a host (a one-time code to give it), list hosts, revoke one (its phones drop at once). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createdHost, createHostBody, enrollmentCode, errorBody, host, idParams } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { issueCode } from './fleet.enrollment.queries.ts';
import { createHost, findHost, listHosts, revokeHost, countHosts } from './fleet.hosts.queries.ts';
import { write } from '../../events/write.ts';

export const hostsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get('/hosts', { config: { access: 'devices.manage' }, schema: { tags: ['hosts'], response: { 200: z.array(host) } } }, async (request) => {
    const rows = await listHosts(db, actorOf(request).workspaceId);
    const connected = await Promise.all(rows.map((row) => app.ctx.agents?.hostConnected(row.id) ?? false));
    return rows.map((row, index) => ({
      ...row,
      enrolledAt: row.enrolledAt?.toISOString() ?? null,
      lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
      revokedAt: row.revokedAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      phones: row.phones ?? 0,
      phonesOnline: row.phonesOnline ?? 0,
      connected: connected[index]!,
    }));
  });

  app.post(
    '/hosts',
    { config: { access: 'devices.manage' }, schema: { tags: ['hosts'], body: createHostBody, response: { 201: createdHost, 400: errorBody } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const answer = await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
        const count = await countHosts(tx, actor.workspaceId);
        const created = await createHost(tx, actor.workspaceId, request.body.name ?? `Farm host ${count + 1}`, actor.userId);
        const code = await issueCode(tx, actor.workspaceId, { hostId: created.id }, actor.userId);
        await outbox.record(
          { userId: actor.userId, action: `Phone host "${created.name}" added`, type: 'info' },
          { action: 'host.created', entityType: 'host', entityId: created.id },
        );
        return { host: created, code: code.code, expiresAt: code.expiresAt.toISOString() };
      });
      return reply.code(201).send(answer);
    },
  );

  /** A new code for the host (the last one expired, or the PC was reinstalled); the old one stops working. */
  app.post(
    '/hosts/:id/enrollment',
    { config: { access: 'devices.manage' }, schema: { tags: ['hosts'], params: idParams, response: { 201: enrollmentCode, 404: errorBody, 409: errorBody } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const answer = await write(app.ctx, actor.workspaceId, async (tx) => {
        const target = await findHost(tx, actor.workspaceId, request.params.id);
        if (!target || target.revokedAt) throw notFound();
        return issueCode(tx, actor.workspaceId, { hostId: target.id }, actor.userId);
      });
      return reply.code(201).send({ code: answer.code, expiresAt: answer.expiresAt.toISOString() });
    },
  );

  app.delete('/hosts/:id', { config: { access: 'devices.manage' }, schema: { tags: ['hosts'], params: idParams } }, async (request, reply) => {
    const actor = actorOf(request);
    await write(app.ctx, actor.workspaceId, async (tx, outbox) => {
      const revoked = await revokeHost(tx, actor.workspaceId, request.params.id);
      if (!revoked) throw notFound();
      await outbox.record(
        { userId: actor.userId, action: `Phone host "${revoked.name}" revoked`, type: 'warning' },
        { action: 'host.revoked', entityType: 'host', entityId: revoked.id },
      );
    });
    // Its connection and every phone's it opened close now, on whichever instance they are.
    app.ctx.agents?.disconnectHost(request.params.id);
    return reply.code(204).send();
  });
};
