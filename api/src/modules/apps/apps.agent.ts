/**
 * App rollouts on the phone side of /agent: a farm host's result of an app job on one of its phones (`host.app`) is
 * recorded and moves the rollout on (apps.rollout.ts), where a job stands while it runs (`host.app-progress`) is
 * shown on the phone's row, and a host that says hello listing `apps` is sent again the
 * jobs it took and did not answer.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { AgentHooks, HostMessages } from '../../agents/agents.features.ts';
import { findHostDevice } from '../fleet/fleet.health.queries.ts';
import type { WriteContext } from '../../events/write.ts';
import { type AppHosts, recordPhoneProgress, recordPhoneResult, resendAppJobs } from './apps.rollout.ts';

/** The rollouts' answer to a host's message, and what they do when a host says hello. */
export function appsAgent(
  ctx: WriteContext,
  hosts: AppHosts,
  log: FastifyBaseLogger,
): {
  hostMessages: Pick<HostMessages, 'host.app' | 'host.app-progress'>;
} & AgentHooks {
  return {
    hostMessages: {
      /** A phone's result of an app job: the rollout records it and moves on when its stage is settled. */
      async 'host.app'(host, message) {
        const device = await findHostDevice(ctx.db, host, message.serial);
        if (!device) return;
        await recordPhoneResult(ctx, hosts, { workspaceId: host.workspaceId, deviceId: device.id }, message);
      },
      /** Where a phone's job stands while it runs: its row in the rollout says so, and the job is not given up on. */
      async 'host.app-progress'(host, message) {
        const device = await findHostDevice(ctx.db, host, message.serial);
        if (!device) return;
        await recordPhoneProgress(ctx, { workspaceId: host.workspaceId, deviceId: device.id }, message);
      },
    },
    async hostReady(host, features) {
      // Only a host that says it installs apps is sent app jobs: older ones keep working as they did.
      if (!features.includes('apps')) return;
      await resendAppJobs(ctx.db, hosts, host).catch((error: unknown) => log.warn({ err: error, hostId: host.id }, 'app jobs not sent again'));
    },
  };
}
