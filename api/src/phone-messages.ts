/**
 * Every answer to the phones' and farm hosts' messages on /agent that is not the transport's own, put together for the
 * socket (agents/agents.socket.ts), as routes.ts puts the REST modules together: each feature answers its messages
 * in `modules/<feature>/<feature>.agent.ts`, and the types of agents/agents.features.ts ask for one answer to every
 * message. The hooks run in the order given here.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { AgentFeaturesOf } from './agents/agents.socket.ts';
import type { ChangeFeed } from './events/changes.ts';
import { appsAgent } from './modules/apps/apps.agent.ts';
import { dryRunsAgent } from './modules/dryruns/dryruns.agent.ts';
import { evidenceAgent } from './modules/evidence/evidence.agent.ts';
import { fleetHealthAgent } from './modules/fleet/fleet.health.agent.ts';
import { fleetTimelineAgent } from './modules/fleet/fleet.timeline.agent.ts';
import { sessionsAgent } from './modules/sessions/sessions.agent.ts';
import { tasksAgent } from './modules/tasks/tasks.agent.ts';
import type { Db } from './shared/types.ts';
import type { Storage } from './storage/storage.ts';

export function phoneMessages(ctx: { db: Db; changes: ChangeFeed; storage: Storage }, log: FastifyBaseLogger): AgentFeaturesOf {
  return (agents) => {
    const sessions = sessionsAgent({ ...ctx, log });
    const dryRuns = dryRunsAgent(ctx);
    const evidence = evidenceAgent({ ...ctx, log });
    const apps = appsAgent(ctx, agents, log);
    const fleetHealth = fleetHealthAgent(ctx);
    const fleetTimeline = fleetTimelineAgent(ctx);
    const tasks = tasksAgent({ ...ctx, log });
    return {
      messages: { ...sessions.messages, ...dryRuns.messages, ...fleetTimeline.messages, ...tasks.messages },
      hostMessages: { ...fleetHealth.hostMessages, ...apps.hostMessages },
      parseResult: evidence.parseResult,
      // Evidence is kept before the phone is answered; a gone phone's dry runs end (and its wait for a transport)
      // before it is marked offline.
      hooks: [evidence, dryRuns, apps, fleetTimeline.hooks],
    };
  };
}
