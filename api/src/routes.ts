/** Every REST module under /api. */
import type { FastifyPluginAsync } from 'fastify';
import { authRoutes } from './auth/auth.routes.ts';
import { accountsRoutes } from './modules/accounts/accounts.routes.ts';
import { activitiesRoutes } from './modules/activities/activities.routes.ts';
import { analyticsRoutes } from './modules/analytics/analytics.routes.ts';
import { campaignsRoutes } from './modules/campaigns/campaigns.routes.ts';
import { devicesRoutes } from './modules/devices/devices.routes.ts';
import { postsRoutes } from './modules/posts/posts.routes.ts';
import { routinesRoutes } from './modules/routines/routines.routes.ts';
import { sessionsRoutes } from './modules/sessions/sessions.routes.ts';
import { tasksRoutes } from './modules/tasks/tasks.routes.ts';
import { uploadsRoutes } from './modules/uploads/uploads.routes.ts';
import { usersRoutes } from './modules/users/users.routes.ts';
import { fleetAgentLinkRoutes } from './modules/fleet/fleet.agent-link.routes.ts';
import { wallRoutes } from './modules/wall/wall.routes.ts';
import { fleetEnrollmentRoutes } from './modules/fleet/fleet.enrollment.routes.ts';
import { fleetHostsRoutes } from './modules/fleet/fleet.hosts.routes.ts';
import { fleetHealthRoutes } from './modules/fleet/fleet.health.routes.ts';
import { fleetTimelineRoutes } from './modules/fleet/fleet.timeline.routes.ts';
import { recipesRoutes } from './modules/recipes/recipes.routes.ts';
import { groupControlRoutes } from './modules/group-control/group-control.routes.ts';
import { recipeVersionsRoutes } from './modules/recipes/recipe-versions.routes.ts';
import { twoFactorRoutes } from './auth/two-factor.routes.ts';
import { passwordResetsRoutes } from './auth/password-resets.routes.ts';
import { resetRequestsRoutes } from './auth/reset-requests.routes.ts';
import { authSessionsRoutes } from './auth/auth-sessions.routes.ts';
import { auditRoutes } from './modules/audit/audit.routes.ts';
import { exportRoutes } from './modules/export/export.routes.ts';
import { usageRoutes } from './modules/usage/usage.routes.ts';
import { importRoutes } from './modules/import/import.routes.ts';
import { alertsRoutes } from './modules/alerts/alerts.routes.ts';
import { onboardingRoutes } from './modules/onboarding/onboarding.routes.ts';
import { groupsRoutes } from './modules/groups/groups.routes.ts';
import { appsRoutes } from './modules/apps/apps.routes.ts';
import { capturesRoutes } from './modules/captures/captures.routes.ts';
import { dryRunsRoutes } from './modules/dryruns/dryruns.routes.ts';
import { fleetPhoneSettingsRoutes } from './modules/fleet/fleet.phone-settings.routes.ts';
import { evidenceRoutes } from './modules/evidence/evidence.routes.ts';

export const routes: FastifyPluginAsync = async (app) => {
  for (const plugin of [
    authRoutes,
    usersRoutes,
    devicesRoutes,
    fleetPhoneSettingsRoutes,
    tasksRoutes,
    sessionsRoutes,
    activitiesRoutes,
    analyticsRoutes,
    campaignsRoutes,
    routinesRoutes,
    accountsRoutes,
    postsRoutes,
    uploadsRoutes,
    fleetAgentLinkRoutes,
    fleetEnrollmentRoutes,
    fleetHostsRoutes,
    fleetHealthRoutes,
    fleetTimelineRoutes,
    recipesRoutes,
    groupControlRoutes,
    recipeVersionsRoutes,
    wallRoutes,
    twoFactorRoutes,
    passwordResetsRoutes,
    resetRequestsRoutes,
    authSessionsRoutes,
    auditRoutes,
    exportRoutes,
    usageRoutes,
    importRoutes,
    alertsRoutes,
    onboardingRoutes,
    groupsRoutes,
    appsRoutes,
    capturesRoutes,
    evidenceRoutes,
    dryRunsRoutes,
  ]) {
    await app.register(plugin);
  }
};
