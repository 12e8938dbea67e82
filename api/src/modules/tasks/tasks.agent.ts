/**
 * The tasks' side of /agent: a post a phone's run handed to a VA (`task.handover`) becomes the VA's task
 * (tasks.handover.ts). What cannot be made is answered with why, and the phone's run goes on either way.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { FeatureMessages } from '../../agents/agents.features.ts';
import { takeHandOver, type HandOverContext } from './tasks.handover.ts';

export function tasksAgent(ctx: HandOverContext & { log: FastifyBaseLogger }): { messages: Pick<FeatureMessages, 'task.handover'> } {
  return {
    messages: {
      'task.handover': async (peer, message) => {
        try {
          return await takeHandOver(ctx, peer, message);
        } catch (error) {
          ctx.log.warn({ err: error, deviceId: peer.device.id, taskId: message.taskId }, 'hand-over not taken');
          return { ok: false, error: 'The hand-over could not be kept: try again' };
        }
      },
    },
  };
}
