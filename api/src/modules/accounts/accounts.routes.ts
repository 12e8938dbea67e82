/**
 * The workspace's accounts on the phones: everyone reads them; operators add and remove them, and a VA updates the
 * numbers of the accounts on their phone (the rules in accounts.service.ts).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { account, accountListQuery, createAccountBody, errorBody, idParams, updateAccountBody } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { notFound } from '../../errors.ts';
import { DEFAULT_LIMIT, decodeCursor, page } from '../../shared/paging.ts';
import { serialize } from '../../shared/serialize.ts';
import { findAccount, listAccounts } from './accounts.queries.ts';
import { changeAccount, createAccount, removeAccount } from './accounts.service.ts';

export const accountsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  app.get(
    '/accounts',
    { config: { access: 'workspace.read' }, schema: { tags: ['accounts'], querystring: accountListQuery, response: { 200: z.array(account) } } },
    async (request, reply) => {
      const { platform, status, deviceId, search } = request.query;
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const cursor = decodeCursor(request.query.cursor);
      const rows = await listAccounts(db, actorOf(request).workspaceId, { platform, status, deviceId, search, cursor, limit });
      return page(reply, rows, limit, (row) => row.createdAt).map(serialize);
    },
  );

  app.get(
    '/accounts/:id',
    { config: { access: 'workspace.read' }, schema: { tags: ['accounts'], params: idParams, response: { 200: account, 404: errorBody } } },
    async (request) => {
      const row = await findAccount(db, actorOf(request).workspaceId, request.params.id);
      if (!row) throw notFound();
      return serialize(row);
    },
  );

  app.post(
    '/accounts',
    {
      config: { access: 'accounts.manage' },
      schema: { tags: ['accounts'], body: createAccountBody, response: { 201: account, 400: errorBody, 409: errorBody } },
    },
    async (request, reply) => reply.code(201).send(serialize(await createAccount(app.ctx, actorOf(request), request.body))),
  );

  app.patch(
    '/accounts/:id',
    {
      config: { access: 'accounts.stats' },
      bodyLimit: 16 * 1024 * 1024,
      schema: {
        tags: ['accounts'],
        params: idParams,
        body: updateAccountBody,
        response: { 200: account, 400: errorBody, 403: errorBody, 404: errorBody, 409: errorBody },
      },
    },
    async (request) => serialize(await changeAccount(app.ctx, actorOf(request), request.params.id, request.body)),
  );

  app.delete('/accounts/:id', { config: { access: 'accounts.manage' }, schema: { tags: ['accounts'], params: idParams } }, async (request, reply) => {
    await removeAccount(app.ctx, actorOf(request), request.params.id);
    return reply.code(204).send();
  });
};
