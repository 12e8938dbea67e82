/**
 * Two-factor sign-in in Settings: set it up (scan, then confirm with a code), see how many recovery codes are
 * left, make new ones, turn it off; and a workspace's rule that its operators use it.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  disableTwoFactorBody,
  enableTwoFactorBody,
  errorBody,
  messages,
  recoveryCodesResponse,
  regenerateRecoveryCodesBody,
  twoFactorSetup,
  twoFactorStatus,
  workspaceTwoFactor,
  workspaceTwoFactorBody,
} from '@farm/contracts';
import { AppError, badRequest, conflict } from '../errors.ts';
import { actorOf } from './auth.plugin.ts';
import { passwordHashOf } from './auth.queries.ts';
import { verifyPassword } from './passwords.ts';
import { LoginThrottle } from './throttle.ts';
import { auditSignIn } from './security.service.ts';
import { countRecoveryCodes, endSessionsWithoutTwoFactor, findTwoFactor, setPendingSecret, setWorkspaceTwoFactor } from './two-factor.queries.ts';
import {
  codeStep,
  enableWithRecoveryCodes,
  renewRecoveryCodes,
  turnOffTwoFactor,
  newRecoveryCodes,
  newSetup,
  openSecret,
  sealSecret,
  verifySecondFactor,
} from './two-factor.service.ts';

export const twoFactorRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config, changes } = app.ctx;
  const throttle = new LoginThrottle(app.limits);
  const wrongCode = () => badRequest('code', messages.twoFactorCodeWrong);

  app.get('/auth/two-factor', { config: { access: 'session' }, schema: { tags: ['auth'], response: { 200: twoFactorStatus } } }, async (request) => {
    const user = await findTwoFactor(db, request.session!.id);
    return { enabled: user.totpEnabledAt !== null, required: user.required, recoveryCodesLeft: await countRecoveryCodes(db, user.id) };
  });

  app.post(
    '/auth/two-factor/setup',
    { config: { access: 'session' }, schema: { tags: ['auth'], response: { 200: twoFactorSetup, 409: errorBody } } },
    async (request) => {
      const user = await findTwoFactor(db, request.session!.id);
      if (user.totpEnabledAt) throw conflict(messages.twoFactorAlreadyOn);
      const setup = await newSetup(user.email);
      await setPendingSecret(db, user.id, sealSecret(setup.secretBase32, config.sessionSecret));
      return { secret: setup.secret, otpauthUrl: setup.otpauthUrl, qrCode: setup.qrCode };
    },
  );

  /** The first code from the app confirms the setup; the answer holds the recovery codes, shown this once. */
  app.post(
    '/auth/two-factor/enable',
    {
      config: { access: 'session' },
      schema: { tags: ['auth'], body: enableTwoFactorBody, response: { 200: recoveryCodesResponse, 400: errorBody, 409: errorBody } },
    },
    async (request, reply) => {
      const user = await findTwoFactor(db, request.session!.id);
      if (user.totpEnabledAt) throw conflict(messages.twoFactorAlreadyOn);
      const pending = user.totpPendingSecret;
      const secret = pending ? openSecret(pending, config.sessionSecret) : undefined;
      if (!pending || !secret) throw conflict(messages.twoFactorNotStarted);
      const account = `user:${user.id}`;
      await throttle.refuseIfBlocked(request, reply, account);
      const step = codeStep(secret, request.body.code);
      if (step === undefined) {
        await throttle.failed(request, account);
        throw wrongCode();
      }
      const fresh = newRecoveryCodes();
      const enabled = await enableWithRecoveryCodes(db, user.id, pending, step, fresh.hashes);
      if (!enabled) throw conflict(messages.twoFactorNotStarted);
      await auditSignIn(db, user.id, 'auth.two_factor_enabled');
      return { recoveryCodes: fresh.codes };
    },
  );

  app.post(
    '/auth/two-factor/recovery-codes',
    {
      config: { access: 'session' },
      schema: { tags: ['auth'], body: regenerateRecoveryCodesBody, response: { 200: recoveryCodesResponse, 400: errorBody, 409: errorBody } },
    },
    async (request, reply) => {
      const user = await findTwoFactor(db, request.session!.id);
      if (!user.totpEnabledAt) throw conflict(messages.twoFactorNotOn);
      const account = `user:${user.id}`;
      await throttle.refuseIfBlocked(request, reply, account);
      const used = await verifySecondFactor(db, user, request.body.code, config.sessionSecret);
      if (!used) {
        await throttle.failed(request, account);
        throw wrongCode();
      }
      const fresh = newRecoveryCodes();
      await renewRecoveryCodes(db, user.id, fresh.hashes);
      if (used === 'recovery') await auditSignIn(db, user.id, 'auth.recovery_code_used');
      await auditSignIn(db, user.id, 'auth.recovery_codes_regenerated');
      return { recoveryCodes: fresh.codes };
    },
  );

  /** Turning it off takes the password and a code: a session left open on a shared computer is not enough. */
  app.post(
    '/auth/two-factor/disable',
    {
      config: { access: 'session' },
      schema: { tags: ['auth'], body: disableTwoFactorBody, response: { 200: twoFactorStatus, 400: errorBody, 409: errorBody } },
    },
    async (request, reply) => {
      const user = await findTwoFactor(db, request.session!.id);
      if (!user.totpEnabledAt) throw conflict(messages.twoFactorNotOn);
      if (user.required) throw conflict(messages.twoFactorRequiredByWorkspace);
      const account = `user:${user.id}`;
      await throttle.refuseIfBlocked(request, reply, account);
      if (!(await verifyPassword(await passwordHashOf(db, user.id), request.body.password))) {
        await throttle.failed(request, account);
        throw badRequest('password', messages.passwordWrong);
      }
      const used = await verifySecondFactor(db, user, request.body.code, config.sessionSecret);
      if (!used) {
        await throttle.failed(request, account);
        throw wrongCode();
      }
      await turnOffTwoFactor(db, user.id);
      if (used === 'recovery') await auditSignIn(db, user.id, 'auth.recovery_code_used');
      await auditSignIn(db, user.id, 'auth.two_factor_disabled');
      return { enabled: false, required: false, recoveryCodesLeft: 0 };
    },
  );

  /**
   * A workspace's rule that its operators sign in with a second factor. Turning it on ends the sessions of
   * operators who have none: they set it up at their next login.
   */
  app.put(
    '/workspace/two-factor',
    {
      config: { access: 'workspace.manage' },
      schema: { tags: ['workspace'], body: workspaceTwoFactorBody, response: { 200: workspaceTwoFactor, 409: errorBody } },
    },
    async (request) => {
      const actor = actorOf(request);
      const { required } = request.body;
      if (required && !(await findTwoFactor(db, actor.userId)).totpEnabledAt) throw new AppError(409, messages.twoFactorSelfFirst);
      await setWorkspaceTwoFactor(db, actor.workspaceId, required);
      if (required) {
        const ended = await endSessionsWithoutTwoFactor(db, actor.workspaceId);
        if (ended.length > 0) changes.publish({ workspaceId: actor.workspaceId, event: 'auth.revoked', payload: { sessionIds: ended } });
      }
      return { required };
    },
  );
};
