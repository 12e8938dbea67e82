import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { onboarding } from '@farm/contracts';
import { actorOf } from '../../auth/auth.plugin.ts';
import { onboardingOf } from './onboarding.queries.ts';

export const onboardingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/onboarding', { config: { access: 'workspace.read' }, schema: { tags: ['onboarding'], response: { 200: onboarding } } }, async (request) =>
    onboardingOf(app.ctx.db, actorOf(request).workspaceId),
  );
};
