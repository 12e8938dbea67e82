/**
 * The app library and staged rollouts (issue #42): everyone in the workspace reads the library, its pins, its
 * rollouts and the coverage warnings; operators upload, remove, pin and roll out. An upload is the file's raw bytes
 * (`POST /apps?fileName=…`), streamed to disk under APP_UPLOAD_MAX_BYTES, RATE_LIMIT_APP_UPLOADS a workspace; the farm host fetches a rollout's APKs from
 * `/agent/apps/<key>` with its own credential.
 */
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  appCoverageWarning,
  appLibrary,
  appPin,
  appPinBody,
  appPinParams,
  appRollout,
  appUploadQuery,
  appVersion,
  createAppRolloutBody,
  errorBody,
  idParams,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { perWorkspace } from '../../auth/limits.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import { findHostByToken } from '../../agents/agents.hosts.queries.ts';
import { hostAppFile, listRollouts, listVersions } from './apps.queries.ts';
import { expireAppJobs, rolloutOf, startRollout, toRollout } from './apps.rollout.ts';
import { coverageBasis, coverageWarnings, pinsOf, pinVersion, removeVersion, toAppVersion, unpin, uploadApp } from './apps.service.ts';

/** What a browser or a script may send an APK or a split set as; the bytes decide what it is. */
const APP_TYPES = [
  'application/octet-stream',
  'application/vnd.android.package-archive',
  'application/zip',
  'application/x-zip-compressed',
  'application/x-zip',
  'application/xapk-package-archive',
];

/** How often each API instance looks for app jobs a host took and never answered. */
const APP_JOB_SWEEP_MS = 60_000;

export const appsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.ctx;

  const sweep = setInterval(() => {
    expireAppJobs(app.ctx, app.ctx.agents).catch((error: unknown) => app.log.warn({ err: error }, 'overdue app jobs not failed'));
  }, APP_JOB_SWEEP_MS);
  sweep.unref();
  app.addHook('onClose', () => clearInterval(sweep));

  // The body stays a stream: a split set may be hundreds of MB, counted against the cap as it arrives.
  app.addContentTypeParser(APP_TYPES, (_request, payload, done) => {
    done(null, payload);
  });

  app.get('/apps', { config: { access: 'workspace.read' }, schema: { tags: ['apps'], response: { 200: appLibrary } } }, async (request) => {
    const { workspaceId } = actorOf(request);
    const [rows, basis, pins] = await Promise.all([listVersions(db, workspaceId), coverageBasis(db, workspaceId), pinsOf(db, workspaceId)]);
    return { versions: rows.map((row) => toAppVersion(row, basis)), pins, maxUploadBytes: app.ctx.config.appUploadMaxBytes };
  });

  app.post(
    '/apps',
    {
      config: { access: 'devices.manage' },
      // Each upload is read and inflated up to the cap: a workspace's budget of them, whoever sends them.
      preHandler: perWorkspace('appUploads'),
      schema: {
        tags: ['apps'],
        querystring: appUploadQuery,
        response: { 201: appVersion, 400: errorBody, 409: errorBody, 413: errorBody, 415: errorBody, 429: errorBody },
      },
    },
    async (request, reply) => {
      const body = request.body as Readable | undefined;
      if (!body || typeof (body as { pipe?: unknown }).pipe !== 'function')
        throw new AppError(415, 'Send the APK or split set as the raw request body (application/octet-stream)', [
          { field: 'file', message: 'Send the APK or split set as the raw request body (application/octet-stream)' },
        ]);
      const declared = Number(request.headers['content-length']);
      const version = await uploadApp(app.ctx, actorOf(request), {
        body,
        declaredLength: Number.isFinite(declared) ? declared : null,
        fileName: request.query.fileName,
        maxBytes: app.ctx.config.appUploadMaxBytes,
      });
      return reply.code(201).send(version);
    },
  );

  app.delete('/apps/:id', { config: { access: 'devices.manage' }, schema: { tags: ['apps'], params: idParams } }, async (request, reply) => {
    await removeVersion(app.ctx, actorOf(request), request.params.id, request.log);
    return reply.code(204).send();
  });

  app.put(
    '/apps/pins',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['apps'], body: appPinBody, response: { 200: z.object({ pins: z.array(appPin) }), 400: errorBody } },
    },
    async (request) => ({ pins: await pinVersion(app.ctx, actorOf(request), request.body) }),
  );

  app.delete(
    '/apps/pins/:groupId/:package',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['apps'], params: appPinParams, response: { 200: z.object({ pins: z.array(appPin) }), 404: errorBody } },
    },
    async (request) => ({ pins: await unpin(app.ctx, actorOf(request), request.params.groupId, request.params.package) }),
  );

  /** Phones whose installed app version no recipe of the workspace covers (the coverage rule). */
  app.get(
    '/apps/coverage',
    { config: { access: 'workspace.read' }, schema: { tags: ['apps'], response: { 200: z.array(appCoverageWarning) } } },
    async (request) => coverageWarnings(db, actorOf(request).workspaceId),
  );

  app.get('/apps/rollouts', { config: { access: 'workspace.read' }, schema: { tags: ['apps'], response: { 200: z.array(appRollout) } } }, async (request) =>
    (await listRollouts(db, actorOf(request).workspaceId)).map(toRollout),
  );

  app.get(
    '/apps/rollouts/:id',
    { config: { access: 'workspace.read' }, schema: { tags: ['apps'], params: idParams, response: { 200: appRollout, 404: errorBody } } },
    async (request) => rolloutOf(db, actorOf(request).workspaceId, request.params.id),
  );

  app.post(
    '/apps/rollouts',
    {
      config: { access: 'devices.manage' },
      schema: { tags: ['apps'], body: createAppRolloutBody, response: { 201: appRollout, 400: errorBody, 409: errorBody } },
    },
    async (request, reply) => reply.code(201).send(await startRollout(app.ctx, app.ctx.agents, actorOf(request), request.body)),
  );

  /** The farm host's side: one APK of a rollout waiting on one of its phones, with the host's credential. */
  app.get(
    '/agent/apps/:id',
    { config: { access: 'public' }, schema: { tags: ['agents'], params: z.object({ id: z.string().max(64) }) } },
    async (request, reply) => {
      const bearer = /^Bearer (\S{1,200})$/.exec(request.headers.authorization ?? '')?.[1];
      const host = bearer ? await findHostByToken(db, bearer) : undefined;
      if (!host) throw new AppError(401, 'This host credential is not valid');
      if (!/^[\w-]{1,64}$/.test(request.params.id)) throw badRequest('id', 'Not a file of the app library');
      const file = await hostAppFile(db, host, request.params.id);
      if (!file) throw notFound();
      return reply
        .type('application/vnd.android.package-archive')
        .header('content-length', String(file.size))
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .send(app.ctx.storage.stream(file.key));
    },
  );
};
