import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  campaignImageBody,
  errorBody,
  messages,
  presignedUrlBody,
  presignedUrlResponse,
  storedObjectResponse,
  storageUsage,
  uploadLimits,
  uploadUrlResponse,
} from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { AppError, badRequest, notFound } from '../../errors.ts';
import { objectPath, sendStoredFile } from '../../storage/storage.ts';
import { reserveObject, resolveStoredObject, SAFE_IMAGE, storeUpload } from './uploads.service.ts';
import { perPerson } from '../../auth/limits.ts';
import { findWallLink } from '../wall/wall.queries.ts';
import { SCREENS_NOT_YOURS } from '../usage/screens.rules.ts';
import { findUploadedObject, storedBytes } from './uploads.queries.ts';
import { automation } from '@farm/workers';

const objectParams = z.object({ id: z.string() });

export const uploadsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, storage } = app.ctx;

  // Raw bytes of an upload: images only, up to the spec's 10 MB.
  app.addContentTypeParser(
    /^(image\/[\w.+-]+|application\/octet-stream)$/,
    { parseAs: 'buffer', bodyLimit: uploadLimits.maxFileSize },
    (_request, body, done) => {
      done(null, body);
    },
  );

  app.post(
    '/objects/upload',
    {
      config: { access: 'uploads.write' },
      preHandler: perPerson('uploads'),
      schema: { tags: ['uploads'], response: { 200: uploadUrlResponse, 429: errorBody } },
    },
    async (request) => ({ url: (await reserveObject(db, storage, actorOf(request), app.ctx.config.uploadsPendingMax)).url }),
  );

  app.post(
    '/object-storage/presigned-url',
    {
      config: { access: 'uploads.write' },
      preHandler: perPerson('uploads'),
      schema: { tags: ['uploads'], body: presignedUrlBody, response: { 200: presignedUrlResponse, 429: errorBody } },
    },
    async (request) => {
      const { id, url } = await reserveObject(db, storage, actorOf(request), app.ctx.config.uploadsPendingMax);
      return { presignedUrl: url, objectPath: objectPath(id) };
    },
  );

  /** The signature in the URL is the authority: it was handed to a signed-in member moments ago. */
  app.put(
    '/objects/:id',
    {
      config: { access: 'public' },
      bodyLimit: uploadLimits.maxFileSize,
      schema: {
        tags: ['uploads'],
        params: objectParams,
        querystring: z.object({ expires: z.string().max(20), signature: z.string().max(100) }),
        response: { 200: storedObjectResponse, 400: errorBody, 403: errorBody, 413: errorBody, 415: errorBody },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!storage.verifyUpload(id, request.query.expires, request.query.signature)) throw new AppError(403, 'This upload link is invalid or has expired');
      const contentType = request.headers['content-type'] ?? '';
      if (!SAFE_IMAGE.test(contentType)) throw new AppError(415, 'You can only upload: image/*');
      const bytes = request.body;
      if (!Buffer.isBuffer(bytes) || bytes.length === 0) throw badRequest('body', 'The file is empty');
      await storeUpload(db, storage, id, { bytes, contentType });
      return { objectPath: objectPath(id) };
    },
  );

  /**
   * Members read their workspace's files (a VA, the frames of the phones they may control only); a wall link reads
   * only its workspace's screenshots.
   */
  app.get(
    '/objects/:id',
    { config: { access: 'public' }, schema: { tags: ['uploads'], params: objectParams, querystring: z.object({ wall: z.string().max(200).optional() }) } },
    async (request, reply) => {
      const session = request.session;
      let scope: { workspaceId: string; screenshotsOnly: boolean; viewer?: string | undefined };
      if (request.query.wall) {
        const link = await findWallLink(db, request.query.wall);
        if (!link) throw new AppError(401, 'This wall link is invalid or was revoked');
        scope = { workspaceId: link.workspaceId, screenshotsOnly: true };
      } else {
        if (!session) throw new AppError(401, messages.notSignedIn);
        if (!session.workspaceId || session.deactivatedAt) throw new AppError(403, messages.noWorkspace);
        scope = { workspaceId: session.workspaceId, screenshotsOnly: false, viewer: session.role === 'operator' ? undefined : session.id };
      }
      const row = await findUploadedObject(db, request.params.id, scope);
      if (!row) throw notFound();
      // A frame of a phone's screen: for whoever may control that phone, as live Inspect.
      if (row.hidden) throw new AppError(403, SCREENS_NOT_YOURS);
      return sendStoredFile(reply, storage, row, 'private, max-age=31536000, immutable');
    },
  );

  app.put(
    '/campaign-images',
    { config: { access: 'uploads.write' }, schema: { tags: ['uploads'], body: campaignImageBody, response: { 200: storedObjectResponse, 400: errorBody } } },
    async (request) => ({ objectPath: await resolveStoredObject(db, actorOf(request).workspaceId, request.body.imageURL, 'imageURL') }),
  );

  /** Operators see how much of the workspace's storage its files take (Settings). */
  app.get('/storage', { config: { access: 'workspace.manage' }, schema: { tags: ['uploads'], response: { 200: storageUsage } } }, async (request) => ({
    usedBytes: await storedBytes(db, actorOf(request).workspaceId),
    quotaBytes: automation().storageQuotaBytes,
  }));
};
