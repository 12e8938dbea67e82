/** Settings → Phone hosts: add a host (a one-time code to give it), list hosts, revoke one (its phones drop at once). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createdHost, createHostBody, enrollmentCode, errorBody, host, idParams } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { issueHostCode } from './fleet.enrollment.service.ts';
import { listHosts } from './fleet.hosts.queries.ts';
import { addHost, revokeHost } from './fleet.hosts.service.ts';

export const fleetHostsRoutes: FastifyPluginAsyncZod = async (app) => {
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
      const answer = await addHost(app.ctx, actorOf(request), request.body.name);
      return reply.code(201).send({ ...answer, expiresAt: answer.expiresAt.toISOString() });
    },
  );

  /** A new code for the host (the last one expired, or the PC was reinstalled); the old one stops working. */
  app.post(
    '/hosts/:id/enrollment',
    { config: { access: 'devices.manage' }, schema: { tags: ['hosts'], params: idParams, response: { 201: enrollmentCode, 404: errorBody, 409: errorBody } } },
    async (request, reply) => {
      const answer = await issueHostCode(app.ctx, actorOf(request), request.params.id);
      return reply.code(201).send({ code: answer.code, expiresAt: answer.expiresAt.toISOString() });
    },
  );

  app.delete('/hosts/:id', { config: { access: 'devices.manage' }, schema: { tags: ['hosts'], params: idParams } }, async (request, reply) => {
    await revokeHost(app.ctx, actorOf(request), request.params.id);
    return reply.code(204).send();
  });
};
