/**
 * A failed run's evidence on the phone side of /agent: a phone's `task.result` is read with its failure's trace apart
 * (a trace that does not fit is dropped and logged, the result kept), and once the result is written the failed
 * step's trace is kept (evidence.service.ts). Neither may cost the phone its result: what cannot be kept is logged.
 */
import type { FastifyBaseLogger } from 'fastify';
import { automation } from '@farm/workers';
import type { AgentFeatures, AgentHooks, AgentPeer } from '../../agents/agents.features.ts';
import type { Db } from '../../shared/types.ts';
import type { Storage } from '../../storage/storage.ts';
import { parseTaskResult, storeFailureTrace, TRACE_DROPPED } from './evidence.service.ts';

interface EvidenceContext {
  db: Db;
  storage: Storage;
  log: FastifyBaseLogger;
}

/** How the evidence reads a result, and what it keeps of one written. */
export function evidenceAgent(ctx: EvidenceContext): Required<Pick<AgentFeatures, 'parseResult'>> & AgentHooks {
  return {
    parseResult(raw: unknown, peer: AgentPeer) {
      const parsed = parseTaskResult(raw);
      if (parsed.success && parsed.droppedTrace) {
        const issue = parsed.droppedTrace.issues[0];
        ctx.log.warn(
          {
            deviceId: peer.device.id,
            workspaceId: peer.device.workspaceId,
            field: ['failure', 'trace', ...(issue?.path ?? [])].join('.'),
            reason: issue?.message,
          },
          'failure trace dropped: it does not fit the schema',
        );
      }
      return parsed;
    },

    /** The failed step's evidence, once the result is written; a trace that cannot be kept is logged, never the result's loss. */
    async resultTaken(peer, result) {
      const failure = result.failure;
      if (result.status !== 'failed' || !failure?.trace) return;
      const { device } = peer;
      const given = {
        workspaceId: device.workspaceId,
        deviceId: device.id,
        taskId: result.taskId,
        attempt: result.attempt,
        trace: failure.trace,
        recipe: failure.recipe,
        app: failure.app,
      };
      const where = { deviceId: device.id, workspaceId: device.workspaceId, taskId: result.taskId };
      try {
        const kept = await storeFailureTrace(ctx.db, ctx.storage, given, automation().storageQuotaBytes);
        if (kept === 'stored-without-screen') ctx.log.warn(where, `failure trace kept without its screen: ${TRACE_DROPPED}`);
      } catch (error) {
        ctx.log.warn({ err: error, ...where }, 'failure trace not kept');
      }
    },
  };
}
