import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createdWallLink, createWallLinkBody, errorBody, idParams, wallLink, wallQuery, wallSnapshot } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { hashToken } from '../../auth/auth.queries.ts';
import { AppError, notFound } from '../../errors.ts';
import { serialize } from '../../shared/serialize.ts';
import { findWallLink, insertWallLink, listWallLinks, revokeWallLink, wallGroups, wallTiles, workspaceName } from './wall.queries.ts';

export const wallRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, changes } = app.ctx;

  app.get('/wall-links', { config: { access: 'workspace.manage' }, schema: { tags: ['wall'], response: { 200: z.array(wallLink) } } }, async (request) => {
    const rows = await listWallLinks(db, actorOf(request).workspaceId);
    return rows.map(serialize);
  });

  app.post(
    '/wall-links',
    { config: { access: 'workspace.manage' }, schema: { tags: ['wall'], body: createWallLinkBody, response: { 201: createdWallLink } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const token = randomBytes(24).toString('base64url');
      const row = await insertWallLink(db, actor.workspaceId, { tokenHash: hashToken(token), createdById: actor.userId, name: request.body.name });
      const path = `/monitor/wall?token=${token}`;
      const base = app.ctx.config.publicUrl;
      return reply.code(201).send({ ...serialize(row), token, url: base ? new URL(path, base).toString() : path });
    },
  );

  app.delete('/wall-links/:id', { config: { access: 'workspace.manage' }, schema: { tags: ['wall'], params: idParams } }, async (request, reply) => {
    const actor = actorOf(request);
    const row = await revokeWallLink(db, actor.workspaceId, request.params.id);
    if (!row) throw notFound();
    changes.publish({ workspaceId: actor.workspaceId, event: 'wall.revoked', payload: { wallLinkId: row.id } });
    return reply.code(204).send();
  });

  /** The wall's snapshot: by a wall link's token (a TV, no sign-in), or by a signed-in member; all phones or one group's. */
  app.get(
    '/wall',
    { config: { access: 'public' }, schema: { tags: ['wall'], querystring: wallQuery, response: { 200: wallSnapshot, 401: errorBody, 404: errorBody } } },
    async (request) => {
      let workspaceId: string | null | undefined;
      if (request.query.token) workspaceId = (await findWallLink(db, request.query.token))?.workspaceId;
      else if (request.session && !request.session.deactivatedAt) workspaceId = request.session.workspaceId;
      if (!workspaceId) throw new AppError(401, 'This wall link is invalid or was revoked');
      const workspace = await workspaceName(db, workspaceId);
      const groups = await wallGroups(db, workspaceId);
      const { groupId } = request.query;
      // A group of another workspace is as unknown as one removed: the wall says so (and shows every phone again).
      if (groupId && !groups.some((group) => group.id === groupId)) throw new AppError(404, 'This group does not exist (it may have been removed)');
      return { workspaceName: workspace.name, tiles: await wallTiles(db, workspaceId, groupId), groups, groupId: groupId ?? null };
    },
  );
};
