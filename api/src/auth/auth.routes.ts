import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  appConfig,
  errorBody,
  invitationPreview,
  loginBody,
  loginCodeBody,
  loginCodeResponse,
  loginResponse,
  loginSetupBody,
  meResponse,
  messages,
  noticesSeenBody,
  signupBody,
  signupResponse,
  twoFactorSetup,
  updateMeBody,
  userResponse,
} from '@farm/contracts';
import { AppError } from '../errors.ts';
import { clearSessionCookie, sessionToken, setSessionCookie } from './auth.plugin.ts';
import { createSession, deleteSessionByToken, findMe, findUserByEmail, type SessionUser } from './auth.queries.ts';
import { toMe, signup, findInvitationByToken, updateMe } from './auth.service.ts';
import { decoyHash, verifyPassword } from './passwords.ts';
import { LoginThrottle } from './throttle.ts';
import { auditFailedLogin, auditSignIn, checkLoginSecondFactor } from './security.service.ts';
import { listNotices, seeNotices } from './notices.service.ts';
import { perAddress } from './limits.ts';
import { DEMO_CREDENTIALS } from '../shared/demo-credentials.ts';
import { countChallengeAttempt, createChallenge, deleteChallenge, findChallenge, findTwoFactor, setPendingSecret } from './two-factor.queries.ts';
import { codeStep, enableWithRecoveryCodes, newRecoveryCodes, newSetup, openSecret, sealSecret } from './two-factor.service.ts';

export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.ctx;
  const secure = config.secureCookies;
  const throttle = new LoginThrottle(app.limits);

  app.get('/config', { config: { access: 'public' }, schema: { tags: ['auth'], response: { 200: appConfig } } }, async () => ({
    demo: config.demo,
    // A production console never serves the demo operator's published password, even with DEMO=1; nor does any console
    // serve a password of the farm's own (DEMO_PASSWORD).
    demoCredentials: config.demo && config.env !== 'production' && !config.demoPassword ? DEMO_CREDENTIALS : null,
  }));

  app.post(
    '/auth/signup',
    {
      config: { access: 'public' },
      onRequest: perAddress('signup'),
      schema: { tags: ['auth'], body: signupBody, response: { 201: signupResponse, 400: errorBody, 409: errorBody, 429: errorBody } },
    },
    async (request, reply) => {
      const userId = await signup(db, request.body);
      const joined = await findMeOrThrow(userId);
      if (joined.workspaceId) {
        const { workspaceId: _w, workspaceName: _n, ...person } = toMe(joined);
        app.ctx.changes.publish({ workspaceId: joined.workspaceId, event: 'user.created', payload: person });
      }
      // An operator joining a workspace that requires two-factor sign-in sets it up before anything else.
      const twoFactor = await findTwoFactor(db, userId);
      if (twoFactor.required && !twoFactor.totpEnabledAt) {
        return reply.code(201).send({ twoFactor: 'setup' as const, challenge: await createChallenge(db, userId) });
      }
      await signIn(request, reply, userId);
      return reply.code(201).send({ user: toMe(await findMeOrThrow(userId)) });
    },
  );

  app.post(
    '/auth/login',
    {
      config: { access: 'public' },
      onRequest: perAddress('login'),
      schema: { tags: ['auth'], body: loginBody, response: { 200: loginResponse, 401: errorBody, 429: errorBody } },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      await throttle.refuseIfBlocked(request, reply, `email:${email}`);
      const found = await findUserByEmail(db, email);
      const ok = await verifyPassword(found?.passwordHash ?? (await decoyHash()), password);
      if (!found || !ok || found.deactivatedAt) {
        await throttle.failed(request, `email:${email}`);
        // An unknown email leaves no trace in any workspace's log (it has none); the answer is the same either way.
        if (found) auditFailedLogin(db, request.log, found.id, ok ? 'deactivated' : 'password');
        throw new AppError(401, messages.invalidCredentials);
      }
      // The password was right; a second step may be due: a code, or setting two-factor up where the workspace requires it.
      const twoFactor = await findTwoFactor(db, found.id);
      if (twoFactor.totpEnabledAt || twoFactor.required) {
        return { twoFactor: twoFactor.totpEnabledAt ? ('code' as const) : ('setup' as const), challenge: await createChallenge(db, found.id) };
      }
      await signIn(request, reply, found.id);
      await auditSignIn(db, found.id, 'auth.login', { secondFactor: 'none' });
      return { user: toMe(await findMeOrThrow(found.id)) };
    },
  );

  /** For a login whose second step is setting two-factor up: the secret and QR code to scan. */
  app.post(
    '/auth/login/two-factor/setup',
    {
      config: { access: 'public' },
      onRequest: perAddress('login'),
      schema: { tags: ['auth'], body: loginSetupBody, response: { 200: twoFactorSetup, 401: errorBody } },
    },
    async (request) => {
      const challenge = await findChallenge(db, request.body.challenge);
      if (!challenge) throw new AppError(401, messages.loginStepExpired);
      const user = await findTwoFactor(db, challenge.userId);
      if (user.totpEnabledAt || !user.required || user.deactivatedAt) throw new AppError(401, messages.loginStepExpired);
      const setup = await newSetup(user.email);
      await setPendingSecret(db, user.id, sealSecret(setup.secretBase32, config.sessionSecret));
      return { secret: setup.secret, otpauthUrl: setup.otpauthUrl, qrCode: setup.qrCode };
    },
  );

  /** The second step of a login: a code from the app (or a recovery code), or the first code of a setup. */
  app.post(
    '/auth/login/two-factor',
    {
      config: { access: 'public' },
      onRequest: perAddress('login'),
      schema: { tags: ['auth'], body: loginCodeBody, response: { 200: loginCodeResponse, 401: errorBody, 429: errorBody } },
    },
    async (request, reply) => {
      const challenge = await findChallenge(db, request.body.challenge);
      if (!challenge) throw new AppError(401, messages.loginStepExpired);
      const account = `user:${challenge.userId}`;
      await throttle.refuseIfBlocked(request, reply, account);
      if (!(await countChallengeAttempt(db, challenge.id))) throw new AppError(401, messages.loginStepExpired);
      const user = await findTwoFactor(db, challenge.userId);
      // Deactivated since the password step: the step ends with the access.
      if (user.deactivatedAt) throw new AppError(401, messages.loginStepExpired);
      let recoveryCodes: string[] | undefined;
      let secondFactor: 'app' | 'recovery' | 'setup' = 'setup';
      if (user.totpEnabledAt) {
        const used = await checkLoginSecondFactor(
          { db, changes: app.ctx.changes, limit: config.rateLimits.secondFactorFailures, serverSecret: config.sessionSecret },
          user,
          request.body.code,
        );
        if (used === 'paused') {
          await throttle.failed(request, account);
          auditFailedLogin(db, request.log, user.id, 'code');
          throw new AppError(429, messages.twoFactorCodesPaused);
        }
        if (!used) {
          await throttle.failed(request, account);
          auditFailedLogin(db, request.log, user.id, 'code');
          throw new AppError(401, messages.twoFactorCodeWrong);
        }
        secondFactor = used;
      } else {
        const pending = user.totpPendingSecret;
        const secret = pending ? openSecret(pending, config.sessionSecret) : undefined;
        if (!pending || !secret || !user.required) throw new AppError(401, messages.loginStepExpired);
        const step = codeStep(secret, request.body.code);
        if (step === undefined) {
          await throttle.failed(request, account);
          auditFailedLogin(db, request.log, user.id, 'code');
          throw new AppError(401, messages.twoFactorCodeWrong);
        }
        const fresh = newRecoveryCodes();
        const enabled = await enableWithRecoveryCodes(db, user.id, pending, step, fresh.hashes);
        if (!enabled) throw new AppError(401, messages.loginStepExpired);
        recoveryCodes = fresh.codes;
        await auditSignIn(db, user.id, 'auth.two_factor_enabled');
      }
      if (secondFactor === 'recovery') await auditSignIn(db, user.id, 'auth.recovery_code_used');
      // A step completes once: of two parallel right answers, one signs in.
      if (!(await deleteChallenge(db, challenge.id))) throw new AppError(401, messages.loginStepExpired);
      await signIn(request, reply, user.id);
      await auditSignIn(db, user.id, 'auth.login', { secondFactor });
      return { user: toMe(await findMeOrThrow(user.id)), ...(recoveryCodes ? { recoveryCodes } : {}) };
    },
  );

  app.post('/auth/logout', { config: { access: 'public' }, schema: { tags: ['auth'] } }, async (request, reply) => {
    const token = sessionToken(request.cookies);
    if (token) {
      await deleteSessionByToken(db, token);
      const session = request.session;
      if (session) {
        await auditSignIn(db, session.id, 'auth.logout');
        app.ctx.changes.publish({ workspaceId: session.workspaceId ?? '', event: 'auth.revoked', payload: { sessionIds: [session.sessionId] } });
      }
    }
    clearSessionCookie(reply, secure);
    return reply.code(204).send();
  });

  /** The signed-in person, and the notices about their sign-in they have not yet been shown. */
  app.get('/auth/me', { config: { access: 'session' }, schema: { tags: ['auth'], response: { 200: meResponse, 401: errorBody } } }, async (request) => ({
    user: toMe(await findMeOrThrow(request.session!.id)),
    notices: await listNotices(db, request.session!.id),
  }));

  /** The console showed these notices: they are not shown again. */
  app.post('/auth/notices/seen', { config: { access: 'session' }, schema: { tags: ['auth'], body: noticesSeenBody } }, async (request, reply) => {
    await seeNotices(db, request.session!.id, request.body.ids);
    return reply.code(204).send();
  });

  app.patch(
    '/users/me',
    { config: { access: 'session' }, schema: { tags: ['users'], body: updateMeBody, response: { 200: userResponse } } },
    async (request) => {
      const session = request.session!;
      const ended = await updateMe(db, session.id, session.sessionId, request.body);
      if (request.body.password !== undefined) await auditSignIn(db, session.id, 'auth.password_changed', { sessionsEnded: String(ended.length) });
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

  /** A fresh session for the person, replacing the one the browser came with. */
  async function signIn(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<void> {
    await rotateSession(sessionToken(request.cookies), request.session);
    const { token } = await createSession(db, userId, { ip: request.ip, userAgent: request.headers['user-agent'] });
    setSessionCookie(reply, token, secure);
  }

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
