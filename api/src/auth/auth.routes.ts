import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  appConfig,
  errorBody,
  invitationPreview,
  loginBody,
  messages,
  signupBody,
  updateMeBody,
  userResponse,
} from '../contracts/index.ts';
import { AppError } from '../errors.ts';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from './auth.plugin.ts';
import { createSession, deleteSessionByToken, findMe, findUserByEmail, type SessionUser } from './auth.queries.ts';
import { toMe, signup, findInvitationByToken, updateMe } from './auth.service.ts';
import { decoyHash, verifyPassword } from './passwords.ts';
import { FailureThrottle } from './throttle.ts';
import { DEMO_CREDENTIALS } from '../demo/credentials.ts';

export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.ctx;
  const secure = config.env === 'production';
  const throttle = new FailureThrottle();

  app.get(
    '/config',
    { config: { access: 'public' }, schema: { tags: ['auth'], response: { 200: appConfig } } },
    async () => ({ demo: config.demo, demoCredentials: config.demo ? DEMO_CREDENTIALS : null }),
  );

  app.post(
    '/auth/signup',
    {
      config: { access: 'public' },
      schema: { tags: ['auth'], body: signupBody, response: { 201: userResponse, 400: errorBody, 409: errorBody } },
    },
    async (request, reply) => {
      const userId = await signup(db, request.body);
      const joined = await findMeOrThrow(userId);
      if (joined.workspaceId) {
        const { workspaceId: _w, workspaceName: _n, ...person } = toMe(joined);
        app.ctx.changes.publish({ workspaceId: joined.workspaceId, event: 'user.created', payload: person });
      }
      await rotateSession(request.cookies[SESSION_COOKIE], request.session);
      const { token } = await createSession(db, userId, { ip: request.ip, userAgent: request.headers['user-agent'] });
      setSessionCookie(reply, token, secure);
      return reply.code(201).send({ user: toMe(await findMeOrThrow(userId)) });
    },
  );

  app.post(
    '/auth/login',
    {
      config: { access: 'public' },
      schema: { tags: ['auth'], body: loginBody, response: { 200: userResponse, 401: errorBody, 429: errorBody } },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      const keys = [`ip:${request.ip}`, `email:${email}`];
      if (keys.some((key) => throttle.isBlocked(key))) throw new AppError(429, messages.tooManyAttempts);
      const found = await findUserByEmail(db, email);
      const ok = await verifyPassword(found?.passwordHash ?? (await decoyHash()), password);
      if (!found || !ok || found.deactivatedAt) {
        for (const key of keys) throttle.fail(key);
        throw new AppError(401, messages.invalidCredentials);
      }
      throttle.clear(`email:${email}`);
      await rotateSession(request.cookies[SESSION_COOKIE], request.session);
      const { token } = await createSession(db, found.id, { ip: request.ip, userAgent: request.headers['user-agent'] });
      setSessionCookie(reply, token, secure);
      return { user: toMe(await findMeOrThrow(found.id)) };
    },
  );

  app.post('/auth/logout', { config: { access: 'public' }, schema: { tags: ['auth'] } }, async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) {
      await deleteSessionByToken(db, token);
      const session = request.session;
      if (session) {
        app.ctx.changes.publish({ workspaceId: session.workspaceId ?? '', event: 'auth.revoked', payload: { sessionIds: [session.sessionId] } });
      }
    }
    clearSessionCookie(reply, secure);
    return reply.code(204).send();
  });

  app.get(
    '/auth/me',
    { config: { access: 'session' }, schema: { tags: ['auth'], response: { 200: userResponse, 401: errorBody } } },
    async (request) => ({ user: toMe(await findMeOrThrow(request.session!.id)) }),
  );

  app.patch(
    '/users/me',
    { config: { access: 'session' }, schema: { tags: ['users'], body: updateMeBody, response: { 200: userResponse } } },
    async (request) => {
      const session = request.session!;
      const ended = await updateMe(db, session.id, session.sessionId, request.body);
      if (ended.length > 0) app.ctx.changes.publish({ workspaceId: session.workspaceId ?? '', event: 'auth.revoked', payload: { sessionIds: ended } });
      return { user: toMe(await findMeOrThrow(session.id)) };
    },
  );

  app.get(
    '/invitations/lookup/:token',
    {
      config: { access: 'public' },
      schema: { tags: ['invitations'], params: z.object({ token: z.string().max(200) }), response: { 200: invitationPreview, 404: errorBody } },
    },
    async (request) => {
      const invitation = await findInvitationByToken(db, request.params.token);
      if (!invitation) throw new AppError(404, messages.invitationInvalid);
      return {
        workspaceName: invitation.workspaceName,
        role: invitation.role,
        email: invitation.email,
        expiresAt: invitation.expiresAt.toISOString(),
      };
    },
  );

  /** Ends the session the browser came with, and says so: the session cache and sockets must drop it too. */
  async function rotateSession(oldToken: string | undefined, old: SessionUser | null): Promise<void> {
    if (!oldToken) return;
    await deleteSessionByToken(db, oldToken);
    if (old) app.ctx.changes.publish({ workspaceId: old.workspaceId ?? '', event: 'auth.revoked', payload: { sessionIds: [old.sessionId] } });
  }

  function findMeOrThrow(userId: string) {
    return findMe(db, userId);
  }
};
